#include "migronaut/lock.hpp"

namespace migronaut {

void to_json(nlohmann::json& out, const LockInfo& info) {
  out = {{"lockedAt", info.locked_at_ms}, {"ttlMs", info.ttl_ms},   {"runId", info.run_id},
         {"pid", info.pid},               {"host", info.host},      {"executedBy", info.executed_by},
         {"migration", info.migration},   {"step", info.step},      {"total", info.total}};
}

}  // namespace migronaut

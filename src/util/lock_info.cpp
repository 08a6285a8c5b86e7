#include "migronaut/lock.hpp"

namespace migronaut {

void to_json(nlohmann::json& out, const LockInfo& info) {
  out = {{"lockedAt", info.locked_at_ms},
         {"ttlMs", info.ttl_ms},
         {"runId", info.run_id},
         {"pid", info.pid},
         {"host", info.host},
         {"executedBy", info.executed_by},
         {"migration", info.migration},
         {"step", info.step},
         {"total", info.total}};
}

void from_json(const nlohmann::json& in, LockInfo& info) {
  info.locked_at_ms = in.value("lockedAt", std::int64_t{0});
  info.ttl_ms = in.value("ttlMs", std::int64_t{0});
  info.run_id = in.value("runId", "");
  info.pid = in.value("pid", std::int64_t{0});
  info.host = in.value("host", "");
  info.executed_by = in.value("executedBy", "");
  info.migration = in.value("migration", "");
  info.step = in.value("step", std::int64_t{0});
  info.total = in.value("total", std::int64_t{0});
}

}  // namespace migronaut

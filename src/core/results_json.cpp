#include "migronaut/events.hpp"
#include "migronaut/migrator.hpp"

namespace migronaut {

void to_json(nlohmann::json& out, const RunResult& result) {
  out = {{"name", result.name},
         {"status", result.status},
         {"durationMs", result.duration_ms},
         {"batch", result.batch}};
  if (!result.reason.empty()) out["reason"] = result.reason;
}

void to_json(nlohmann::json& out, const StatusRow& row) {
  out = {{"name", row.name},
         {"state", row.state},
         {"checksumOk", row.checksum_ok ? nlohmann::json(*row.checksum_ok) : nlohmann::json()},
         {"outOfOrder", row.out_of_order},
         {"reversible", row.reversible},
         {"description", row.description}};
  if (row.invalid_name) out["invalid"] = true;
  if (row.up_empty) out["upEmpty"] = true;
  if (!row.checksum.empty()) out["checksum"] = row.checksum;
  if (row.record) out["record"] = *row.record;
}

}  // namespace migronaut

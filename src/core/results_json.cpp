#include "migronaut/events.hpp"
#include "migronaut/migrator.hpp"
#include "util/iso_time.hpp"

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
  if (!row.version.empty()) out["version"] = row.version;
  if (row.repeatable) out["repeatable"] = true;
  if (!row.renamed_from.empty()) out["renamedFrom"] = row.renamed_from;
  if (row.invalid_name) out["invalid"] = true;
  if (row.up_empty) out["upEmpty"] = true;
  if (!row.checksum.empty()) out["checksum"] = row.checksum;
  if (row.record) out["record"] = *row.record;
  if (!row.script.empty()) out["script"] = row.script;
}

void to_json(nlohmann::json& out, const AuditReport& report) {
  nlohmann::json checks = nlohmann::json::array();
  for (const AuditCheck& check : report.checks) {
    checks.push_back({{"name", check.name}, {"status", check.status}, {"detail", check.detail}});
  }
  out = {{"ok", report.ok},
         {"failed", report.failed},
         {"warnings", report.warnings},
         {"checks", checks}};
}

void to_json(nlohmann::json& out, const ImportResult& result) {
  nlohmann::json imported = nlohmann::json::array();
  for (const ImportedMigration& migration : result.imported) {
    nlohmann::json& entry =
        imported.emplace_back(nlohmann::json{{"name", migration.name},
                                             {"checksum", migration.checksum},
                                             {"checksumSource", migration.checksum_source}});
    if (migration.applied_at_ms) entry["appliedAt"] = iso_time(*migration.applied_at_ms);
    if (!migration.baseline.empty()) entry["baseline"] = migration.baseline;
  }
  nlohmann::json not_imported = nlohmann::json::array();
  for (const auto& [name, reason] : result.not_imported) {
    not_imported.push_back({{"name", name}, {"reason", reason}});
  }
  out = {{"from", result.from},  {"table", result.table},     {"dryRun", result.dry_run},
         {"imported", imported}, {"skipped", result.skipped}, {"notImported", not_imported}};
}

}  // namespace migronaut

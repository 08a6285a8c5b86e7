#include <fmt/format.h>

#include "migronaut/errors.hpp"
#include "store/store.hpp"

namespace migronaut {
namespace {

struct FieldNames {
  std::string_view mongo;
  std::string_view sql;
};

FieldNames names(Field field) {
  switch (field) {
    case Field::kBatch:
      return {"batch", "batch"};
    case Field::kStatus:
      return {"status", "status"};
    case Field::kAppliedAt:
      return {"appliedAt", "applied_at"};
    case Field::kFirstAppliedAt:
      return {"firstAppliedAt", "first_applied_at"};
    case Field::kRevertedAt:
      return {"revertedAt", "reverted_at"};
    case Field::kFailedAt:
      return {"failedAt", "failed_at"};
    case Field::kError:
      return {"error", "error"};
    case Field::kFailedChecksum:
      return {"failedChecksum", "failed_checksum"};
    case Field::kDuration:
      return {"duration", "duration"};
    case Field::kChecksum:
      return {"checksum", "checksum"};
    case Field::kEnvironment:
      return {"environment", "environment"};
    case Field::kExecutedBy:
      return {"executedBy", "executed_by"};
    case Field::kRunId:
      return {"runId", "run_id"};
    case Field::kDescription:
      return {"description", "description"};
    case Field::kOrigin:
      return {"origin", "origin"};
    case Field::kRequestedBy:
      return {"requestedBy", "requested_by"};
    case Field::kReason:
      return {"reason", "reason"};
  }
  return {"", ""};
}

}  // namespace

std::string_view field_name(Field field) { return names(field).mongo; }
std::string_view column_name(Field field) { return names(field).sql; }

RecordWrite resolve_elapsed(RecordWrite write, std::int64_t elapsed_ms) {
  for (auto* fields : {&write.set, &write.set_if_absent}) {
    for (auto& [field, value] : *fields) {
      if (std::holds_alternative<WorkElapsed>(value)) value = elapsed_ms;
    }
  }
  return write;
}

bool is_time_field(Field field) {
  return field == Field::kAppliedAt || field == Field::kFirstAppliedAt ||
         field == Field::kRevertedAt || field == Field::kFailedAt;
}

RecordStatus read_record_status(std::string_view name, const std::optional<std::string>& text) {
  if (text) {
    if (const auto status = parse_record_status(*text)) return *status;
  }
  const std::string shown = text ? "'" + *text + "'" : "NULL";
  throw ChangelogInvalidError(
      fmt::format("The changelog record {} has the status {}, which is none of applied, "
                  "reverted, failed, applying or reverting. Set it to the one that is true "
                  "(failed when unsure: the migration then runs again), or delete the row if it "
                  "never ran",
                  name, shown),
      {{"name", name}, {"status", text ? nlohmann::json(*text) : nlohmann::json()}});
}

}  // namespace migronaut

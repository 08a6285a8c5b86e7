#include "migronaut/changelog.hpp"
#include "util/iso_time.hpp"

namespace migronaut {

std::string_view record_status_name(RecordStatus status) {
  switch (status) {
    case RecordStatus::kApplied:
      return "applied";
    case RecordStatus::kReverted:
      return "reverted";
    case RecordStatus::kFailed:
      return "failed";
    case RecordStatus::kApplying:
      return "applying";
    case RecordStatus::kReverting:
      return "reverting";
  }
  return "applied";
}

std::optional<RecordStatus> parse_record_status(std::string_view text) {
  for (auto status : {RecordStatus::kApplied, RecordStatus::kReverted, RecordStatus::kFailed,
                      RecordStatus::kApplying, RecordStatus::kReverting}) {
    if (record_status_name(status) == text) return status;
  }
  return std::nullopt;
}

void to_json(nlohmann::json& out, const ChangelogRecord& record) {
  out = {{"name", record.name},
         {"batch", record.batch},
         {"status", record_status_name(record.status)},
         {"durationMs", record.duration_ms},
         {"environment", record.environment},
         {"executedBy", record.executed_by},
         {"runId", record.run_id},
         {"description", record.description}};
  auto put = [&](const char* key, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
      if (!value.empty()) out[key] = value;
    } else {
      if (value) out[key] = iso_time(*value);
    }
  };
  put("checksum", record.checksum);  // none when it failed before it was ever applied
  put("appliedAt", record.applied_at_ms);
  put("firstAppliedAt", record.first_applied_at_ms);
  put("revertedAt", record.reverted_at_ms);
  put("failedAt", record.failed_at_ms);
  put("error", record.error);
  put("failedChecksum", record.failed_checksum);
  put("origin", record.origin);
  put("requestedBy", record.requested_by);
  put("reason", record.reason);
}

}  // namespace migronaut

// The changelog: one record per migration name, never deleted.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace migronaut {

enum class RecordStatus { kApplied, kReverted, kFailed, kApplying, kReverting };

std::string_view record_status_name(RecordStatus status);  // "applied", …
std::optional<RecordStatus> parse_record_status(std::string_view text);

struct ChangelogRecord {
  std::string name;
  std::int64_t batch = 0;
  RecordStatus status = RecordStatus::kApplied;
  // Times are the database's clock in ms since the Unix epoch; absent when never stamped.
  std::optional<std::int64_t> applied_at_ms;
  std::optional<std::int64_t> first_applied_at_ms;
  std::optional<std::int64_t> reverted_at_ms;
  std::optional<std::int64_t> failed_at_ms;
  std::string error;
  std::string failed_checksum;
  std::int64_t duration_ms = 0;
  std::string checksum;
  std::string environment;
  std::string executed_by;
  std::string run_id;
  std::string description;
  std::string origin;  // "" or "migronaut"; "baseline" marks a forward-only record
  std::string requested_by;
  std::string reason;
};

// Times as ISO-8601 UTC strings ("2026-12-02T11:04:55.123Z"), the duration as `durationMs`.
void to_json(nlohmann::json& out, const ChangelogRecord& record);

}  // namespace migronaut

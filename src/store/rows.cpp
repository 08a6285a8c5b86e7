#include "store/rows.hpp"

#include <algorithm>

#include "migronaut/errors.hpp"

namespace migronaut {

ChangelogRecord read_record(std::string name, const RowReader<Field>& row) {
  ChangelogRecord record;
  record.name = std::move(name);
  const auto text = [&](Field field) { return row.text(field).value_or(""); };
  const auto number = [&](Field field) { return row.integer(field).value_or(0); };
  record.status = read_record_status(record.name, row.text(Field::kStatus));
  record.batch = number(Field::kBatch);
  record.applied_at_ms = row.integer(Field::kAppliedAt);
  record.first_applied_at_ms = row.integer(Field::kFirstAppliedAt);
  record.reverted_at_ms = row.integer(Field::kRevertedAt);
  record.failed_at_ms = row.integer(Field::kFailedAt);
  record.error = text(Field::kError);
  record.failed_checksum = text(Field::kFailedChecksum);
  record.duration_ms = number(Field::kDuration);
  record.checksum = text(Field::kChecksum);
  record.environment = text(Field::kEnvironment);
  record.executed_by = text(Field::kExecutedBy);
  record.run_id = text(Field::kRunId);
  record.description = text(Field::kDescription);
  record.origin = text(Field::kOrigin);
  record.requested_by = text(Field::kRequestedBy);
  record.reason = text(Field::kReason);
  return record;
}

namespace {

struct LockNames {
  std::string_view mongo;
  std::string_view sql;
};

LockNames names(LockField field) {
  switch (field) {
    case LockField::kLockedAt:
      return {"lockedAt", "locked_at"};
    case LockField::kTtl:
      return {"ttlMs", "ttl_ms"};
    case LockField::kOwner:
      return {"owner", "owner"};
    case LockField::kPid:
      return {"pid", "pid"};
    case LockField::kHost:
      return {"host", "host"};
    case LockField::kExecutedBy:
      return {"executedBy", "executed_by"};
    case LockField::kMigration:
      return {"migration", "migration"};
    case LockField::kStep:
      return {"step", "step"};
    case LockField::kTotal:
      return {"total", "total"};
  }
  return {"", ""};
}

}  // namespace

std::string_view lock_field_name(LockField field) { return names(field).mongo; }
std::string_view lock_column_name(LockField field) { return names(field).sql; }

std::vector<std::string_view> lock_table_columns() {
  std::vector<std::string_view> columns{"id"};
  for (LockField field : kAllLockFields) columns.push_back(lock_column_name(field));
  columns.push_back("nonce");
  return columns;
}

std::vector<std::string_view> changelog_table_columns() {
  std::vector<std::string_view> columns{"name"};
  for (Field field : kAllFields) columns.push_back(column_name(field));
  return columns;
}

LockInfo read_lock_row(const RowReader<LockField>& row) {
  const auto text = [&](LockField field) { return row.text(field).value_or(""); };
  const auto number = [&](LockField field) { return row.integer(field).value_or(0); };
  return LockInfo{.locked_at_ms = number(LockField::kLockedAt),
                  .ttl_ms = number(LockField::kTtl),
                  .run_id = text(LockField::kOwner),
                  .pid = number(LockField::kPid),
                  .host = text(LockField::kHost),
                  .executed_by = text(LockField::kExecutedBy),
                  .migration = text(LockField::kMigration),
                  .step = number(LockField::kStep),
                  .total = number(LockField::kTotal)};
}

void sort_by_name(std::vector<ChangelogRecord>& records) {
  const auto by_name = [](const ChangelogRecord& a, const ChangelogRecord& b) {
    return a.name < b.name;
  };
  if (!std::is_sorted(records.begin(), records.end(), by_name)) {
    std::sort(records.begin(), records.end(), by_name);
  }
}

}  // namespace migronaut

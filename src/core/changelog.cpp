#include "core/changelog.hpp"

namespace migronaut {
namespace {

std::string status(RecordStatus value) { return std::string(record_status_name(value)); }

void who(RecordWrite& write, const RecordStamp& stamp) {
  write.set.emplace_back(Field::kRunId, stamp.run_id);
  write.set.emplace_back(Field::kExecutedBy, stamp.executed_by);
  write.set.emplace_back(Field::kEnvironment, stamp.environment);
}

// requestedBy and reason describe an apply: a later apply that says nothing clears them.
void who_and_why(RecordWrite& write, const RecordStamp& stamp) {
  who(write, stamp);
  for (auto [field, value] : {std::pair{Field::kRequestedBy, &stamp.requested_by},
                              std::pair{Field::kReason, &stamp.reason}}) {
    if (value->empty()) {
      write.unset.push_back(field);
    } else {
      write.set.emplace_back(field, *value);
    }
  }
}

}  // namespace

RecordWrite applied_record(const Migration& migration, std::int64_t batch, const RecordStamp& stamp,
                           std::string_view origin) {
  RecordWrite write;
  write.name = migration.name;
  write.set = {{Field::kStatus, status(RecordStatus::kApplied)},
               {Field::kBatch, batch},
               {Field::kAppliedAt, ServerNow{}},
               {Field::kChecksum, migration.checksum},
               {Field::kDescription, migration.description},
               {Field::kDuration, origin.empty() ? FieldValue{WorkElapsed{}} : std::int64_t{0}}};
  // migronaut's own apply keeps the origin a record has: one imported from a tool stays known
  // as the tool's through a down and an up, so that tool's row for it still reads as old news.
  if (!origin.empty()) write.set.emplace_back(Field::kOrigin, std::string(origin));
  who_and_why(write, stamp);
  write.set_if_absent = {{Field::kFirstAppliedAt, ServerNow{}}};
  write.unset.insert(write.unset.end(),
                     {Field::kRevertedAt, Field::kFailedAt, Field::kError, Field::kFailedChecksum});
  return write;
}

RecordWrite applying_record(const Migration& migration, std::int64_t batch,
                            const RecordStamp& stamp) {
  RecordWrite write;
  write.name = migration.name;
  write.set = {{Field::kStatus, status(RecordStatus::kApplying)},
               {Field::kBatch, batch},
               {Field::kChecksum, migration.checksum},
               {Field::kDescription, migration.description}};
  who_and_why(write, stamp);
  write.skip_if_applied = true;
  return write;
}

RecordWrite reverting_record(const std::string& name, const RecordStamp& stamp) {
  RecordWrite write;
  write.name = name;
  write.set = {{Field::kStatus, status(RecordStatus::kReverting)}};
  who(write, stamp);
  return write;
}

RecordWrite reverted_record(const std::string& name, const RecordStamp& stamp) {
  RecordWrite write;
  write.name = name;
  write.set = {{Field::kStatus, status(RecordStatus::kReverted)},
               {Field::kRevertedAt, ServerNow{}}};
  who(write, stamp);
  write.unset = {Field::kFailedAt, Field::kError};  // a failed try of this down, now done
  return write;
}

RecordWrite failed_revert_record(const std::string& name, const std::string& error,
                                 const RecordStamp& stamp) {
  RecordWrite write = reverting_record(name, stamp);
  write.set.emplace_back(Field::kFailedAt, ServerNow{});
  write.set.emplace_back(Field::kError, error);
  return write;
}

RecordWrite failed_record(const Migration& migration, std::int64_t batch, const std::string& error,
                          const RecordStamp& stamp) {
  RecordWrite write;
  write.name = migration.name;
  write.set = {{Field::kStatus, status(RecordStatus::kFailed)},
               {Field::kFailedAt, ServerNow{}},
               {Field::kError, error},
               {Field::kFailedChecksum, migration.checksum},
               {Field::kDescription, migration.description}};
  who(write, stamp);
  // The batch a failure would have joined keeps batch numbers monotonic across retries.
  write.set_if_absent = {{Field::kBatch, batch}};
  write.skip_if_applied = true;
  return write;
}

namespace {

FieldValue time_or_now(const std::optional<std::int64_t>& ms) {
  return ms ? FieldValue{*ms} : FieldValue{ServerNow{}};
}

}  // namespace

RecordWrite renamed_record(const ChangelogRecord& former, const std::string& name,
                           const RecordStamp& stamp) {
  RecordWrite write;
  write.name = name;
  write.set = {{Field::kStatus, status(RecordStatus::kApplied)},
               {Field::kBatch, former.batch},
               {Field::kAppliedAt, time_or_now(former.applied_at_ms)},
               {Field::kFirstAppliedAt, time_or_now(former.first_applied_at_ms)},
               {Field::kChecksum, former.checksum},
               {Field::kDescription, former.description},
               {Field::kDuration, former.duration_ms},
               {Field::kEnvironment, former.environment},
               {Field::kExecutedBy, former.executed_by},
               {Field::kRunId, former.run_id},
               {Field::kRequestedBy, stamp.executed_by},
               {Field::kReason, "renamed from " + former.name}};
  if (!former.origin.empty()) write.set.emplace_back(Field::kOrigin, former.origin);
  return write;
}

namespace {

constexpr std::string_view kRetiredReason = "renamed to ";

}  // namespace

RecordWrite retired_record(const std::string& former, const std::string& name,
                           const RecordStamp& stamp) {
  RecordWrite write;
  write.name = former;
  write.set = {{Field::kStatus, status(RecordStatus::kReverted)},
               {Field::kRequestedBy, stamp.executed_by},
               {Field::kReason, std::string(kRetiredReason) + name}};
  return write;
}

bool is_retired(const ChangelogRecord& record) {
  return record.status == RecordStatus::kReverted && record.reason.starts_with(kRetiredReason);
}

RecordWrite restamped_record(const std::string& name, const std::string& checksum,
                             const RecordStamp& stamp) {
  RecordWrite write;
  write.name = name;
  write.set = {{Field::kChecksum, checksum},
               {Field::kRequestedBy, stamp.requested_by},
               {Field::kReason, stamp.reason}};
  return write;
}

RecordWrite imported_record(const ImportedRecord& record, const RecordStamp& stamp) {
  RecordWrite write;
  write.name = record.name;
  write.set = {{Field::kStatus, status(RecordStatus::kApplied)},
               {Field::kBatch, record.batch},
               {Field::kAppliedAt, time_or_now(record.applied_at_ms)},
               {Field::kFirstAppliedAt, time_or_now(record.applied_at_ms)},
               {Field::kChecksum, record.checksum},
               {Field::kDescription, record.description},
               {Field::kDuration, std::int64_t{0}},
               {Field::kOrigin, record.origin}};
  who_and_why(write, stamp);
  write.unset.insert(write.unset.end(),
                     {Field::kRevertedAt, Field::kFailedAt, Field::kError, Field::kFailedChecksum});
  return write;
}

}  // namespace migronaut

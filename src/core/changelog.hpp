// What each changelog transition writes. This file is the only place that knows;
// stores translate the RecordWrite it builds literally.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "source/migration_set.hpp"
#include "store/store.hpp"

namespace migronaut {

// Who and why, stamped on every record a run writes.
struct RecordStamp {
  std::string run_id;
  std::string environment;
  std::string executed_by;
  std::string requested_by;
  std::string reason;
};

// Applied: a fresh stamp, the migration's checksum, and the traces of an earlier revert or
// failure cleared. firstAppliedAt survives re-applies, and so does the origin of a record
// imported from another tool. `origin` "baseline" marks a record written without running the
// migration (forward-only).
RecordWrite applied_record(const Migration& migration, std::int64_t batch, const RecordStamp& stamp,
                           std::string_view origin = "");
// Applying: set before a migration that runs outside a transaction, so a crash leaves a trace
// that `status` shows as interrupted. Never demotes an applied record.
RecordWrite applying_record(const Migration& migration, std::int64_t batch,
                            const RecordStamp& stamp);
// Reverting: the same before a down outside a transaction; the record keeps its batch and times,
// so a later down still finds it to finish.
RecordWrite reverting_record(const std::string& name, const RecordStamp& stamp);
RecordWrite reverted_record(const std::string& name, const RecordStamp& stamp);
// A down outside a transaction that failed: its mark stays, with the redacted error.
RecordWrite failed_revert_record(const std::string& name, const std::string& error,
                                 const RecordStamp& stamp);
// Failed: the redacted error and the failing file's checksum. Never demotes an applied record.
RecordWrite failed_record(const Migration& migration, std::int64_t batch, const std::string& error,
                          const RecordStamp& stamp);

// A renamed migration's record under its new name: the former record's history, with the
// rename as its reason. The former record stays (records are never deleted), retired.
RecordWrite renamed_record(const ChangelogRecord& former, const std::string& name,
                           const RecordStamp& stamp);
// The former record of a renamed migration, once the new name is recorded: no longer applied, so
// the migration counts once and a revert under the new name leaves nothing applied behind
// (status reverted, though nothing was undone), its reason naming the new name.
RecordWrite retired_record(const std::string& former, const std::string& name,
                           const RecordStamp& stamp);
// Whether `record` was retired by a rename (a file renamed back takes it up again).
bool is_retired(const ChangelogRecord& record);
// Repair: the checksum of an applied migration re-stamped, with who asked and why.
RecordWrite restamped_record(const std::string& name, const std::string& checksum,
                             const RecordStamp& stamp);
// Import: an applied record adopted from another tool's history, which ran the migration at
// `applied_at_ms` (the database's time now when the tool kept none). `origin` names the tool.
struct ImportedRecord {
  std::string name;
  std::string checksum;
  std::string description;
  std::optional<std::int64_t> applied_at_ms;
  std::int64_t batch = 0;
  std::string origin;
};
RecordWrite imported_record(const ImportedRecord& record, const RecordStamp& stamp);

}  // namespace migronaut

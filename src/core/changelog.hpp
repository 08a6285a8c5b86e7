// What each changelog transition writes (DESIGN §4). This file is the only place that knows;
// stores translate the RecordWrite it builds literally.
#pragma once

#include <cstdint>
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
// failure cleared. firstAppliedAt survives re-applies. `origin` "baseline" marks a record
// written without running the migration (forward-only).
RecordWrite applied_record(const Migration& migration, std::int64_t batch, const RecordStamp& stamp,
                           std::string_view origin = "");
// Applying: set before a migration that runs outside a transaction, so a crash leaves a trace
// that `status` shows as interrupted. Never demotes an applied record.
RecordWrite applying_record(const Migration& migration, std::int64_t batch,
                            const RecordStamp& stamp);
RecordWrite reverted_record(const std::string& name, const RecordStamp& stamp);
// Failed: the redacted error and the failing file's checksum. Never demotes an applied record.
RecordWrite failed_record(const Migration& migration, std::int64_t batch, const std::string& error,
                          const RecordStamp& stamp);

}  // namespace migronaut

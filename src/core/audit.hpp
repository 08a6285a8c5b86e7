// `audit`: read-only health checks of a project and its database, each pass, warn or fail.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/plan.hpp"
#include "migronaut/config.hpp"
#include "migronaut/migrator.hpp"
#include "store/store.hpp"

namespace migronaut {

// What `up` would meet beyond the plan: another tool's history it would run again, a history it
// could not read for that or could not find where configured, its verdict, and the files it
// would skip.
struct UpOutlook {
  std::optional<UnimportedHistory> unimported;
  std::optional<std::string> unreadable_history;  // why another tool's history was not read
  std::optional<std::string> missing_history;     // a configured history table that is not there
  std::optional<Error> refusal;                   // what `up` would refuse with
  std::string ignored_files;  // the warning naming files up skips though named like migrations
};

// The checks that need the database: transactions, indexes, lock, then what the plan shows —
// checksums (drift), missing files, changelog names, failed and interrupted records, pending
// migrations, ordering, renames — then from `outlook` the files up skips though named like
// migrations, another tool's history `up` refuses over, and whether `up` would refuse at all.
// Reads only.
std::vector<AuditCheck> audit_database(Store& store, const Config& config, const Plan& plan,
                                       const UpOutlook& outlook);

// The report: counts and `ok` from the checks' verdicts.
AuditReport audit_report(std::vector<AuditCheck> checks);

}  // namespace migronaut

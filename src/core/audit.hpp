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

// The checks that need the database: transactions, indexes, lock, then what the plan shows —
// checksums (drift), missing files, changelog names, failed and interrupted records, pending
// migrations, ordering, renames, and `unimported`: another tool's history `up` refuses over.
// Reads only.
std::vector<AuditCheck> audit_database(Store& store, const Config& config, const Plan& plan,
                                       const std::optional<UnimportedHistory>& unimported);

// The report: counts and `ok` from the checks' verdicts.
AuditReport audit_report(std::vector<AuditCheck> checks);

}  // namespace migronaut

// The PostgreSQL store's read-only side for import and audit: other tools' history tables and
// the probe of migronaut's own schema. Nothing here writes.
#pragma once

#include <libpq-fe.h>

#include <optional>
#include <string>
#include <vector>

#include "store/store.hpp"

namespace migronaut {

std::optional<std::vector<ForeignRecord>> read_postgres_history(PGconn* conn, ForeignTool tool,
                                                                const std::string& table);

// The tables and index by their quoted identifiers, as ensure_schema() creates them.
StoreProbe probe_postgres(PGconn* conn, const std::string& changelog_table,
                          const std::string& lock_table, const std::string& status_index);

}  // namespace migronaut

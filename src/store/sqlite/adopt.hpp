// The SQLite store's read-only side for import and audit: other tools' history tables and the
// probe of migronaut's own schema. Nothing here writes.
#pragma once

#include <sqlite3.h>

#include <optional>
#include <string>
#include <vector>

#include "store/store.hpp"

namespace migronaut {

std::optional<std::vector<ForeignRecord>> read_sqlite_history(sqlite3* db, ForeignTool tool,
                                                              const std::string& table);

// `status_index` is the name of the changelog index ensure_schema() creates.
StoreProbe probe_sqlite(sqlite3* db, const std::string& changelog_table,
                        const std::string& lock_table, const std::string& status_index);

}  // namespace migronaut

#include "store/sqlite/adopt.hpp"

#include <fmt/format.h>

#include <memory>

#include "migronaut/errors.hpp"
#include "store/history_sql.hpp"
#include "store/sqlite/sqlite_errors.hpp"

namespace migronaut {
namespace {

struct StatementCloser {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using StatementHandle = std::unique_ptr<sqlite3_stmt, StatementCloser>;

// A prepared statement, or the error text when `sql` does not prepare (a missing column).
std::pair<StatementHandle, std::string> prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    return {nullptr, sqlite3_errmsg(db)};
  }
  return {StatementHandle(raw), ""};
}

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw_sqlite_error(db, sqlite3_extended_errcode(db), what);
}

// Whether sqlite_master has an object of `type` (or, when given, of `other_type`) named `name`.
bool has_object(sqlite3* db, const char* type, const std::string& name,
                const char* other_type = nullptr) {
  auto [statement, error] =
      prepare(db, "SELECT 1 FROM sqlite_master WHERE type IN (?, ?) AND name = ? COLLATE NOCASE");
  if (!statement) fail(db, "inspect the schema");
  sqlite3_bind_text(statement.get(), 1, type, -1, SQLITE_STATIC);
  sqlite3_bind_text(statement.get(), 2, other_type != nullptr ? other_type : type, -1,
                    SQLITE_STATIC);
  sqlite3_bind_text(statement.get(), 3, name.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(statement.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail(db, "inspect the schema");
  return rc == SQLITE_ROW;
}

// Whether the table or view `table` has a column `column`: sqlite3_table_column_metadata()
// answers for tables only.
bool has_column(sqlite3* db, const std::string& table, const std::string& column) {
  auto [statement, error] =
      prepare(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ? COLLATE NOCASE");
  if (!statement) fail(db, "inspect the schema");
  sqlite3_bind_text(statement.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(statement.get(), 2, column.c_str(), -1, SQLITE_TRANSIENT);
  // A view over a dropped table fails here: the history's own read then says what is wrong.
  return sqlite3_step(statement.get()) == SQLITE_ROW;
}

// SQLite keeps times as text (CURRENT_TIMESTAMP, Flyway) or as numbers of ms (knex's dates).
std::string epoch_ms(std::string_view column) {
  const std::string c(column);
  return "CASE WHEN typeof(" + c + ") IN ('integer', 'real') THEN CAST(" + c +
         " AS INTEGER) ELSE CAST(ROUND((julianday(" + c +
         ") - 2440587.5) * 86400000.0) AS INTEGER) END";
}

}  // namespace

std::optional<std::vector<ForeignRecord>> read_sqlite_history(sqlite3* db, ForeignTool tool,
                                                              const std::string& table) {
  const std::optional<HistoryQuery> query =
      tool == ForeignTool::kNodePgMigrate ? std::nullopt : history_query(tool, table, epoch_ms);
  if (!query) throw_tool_unsupported(tool, "sqlite");
  if (table.find('.') != std::string::npos) {
    throw ConfigInvalidError(
        fmt::format("The table {}: a SQLite database has no schemas, name the table alone", table),
        {{"key", "table"}, {"value", table}});
  }
  // A view is read as a table is, as PostgreSQL's relations are: a history kept behind one (a
  // table renamed, a union of two) is still the tool's.
  if (!has_object(db, "table", query->table, "view")) return std::nullopt;
  if (!query->foreign_column.empty() && has_column(db, query->table, query->foreign_column)) {
    throw_another_tools_table(tool, *query);
  }
  auto [statement, error] = prepare(db, query->select);
  if (!statement) throw_not_the_tools_table(tool, query->table, error);
  std::vector<ForeignRecord> records;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    records.push_back(foreign_record([&](int column) -> std::optional<std::string> {
      const auto* text = sqlite3_column_text(statement.get(), column);
      if (text == nullptr) return std::nullopt;
      return std::string(reinterpret_cast<const char*>(text));
    }));
  }
  if (rc != SQLITE_DONE) fail(db, "read the " + query->table + " table");
  return records;
}

StoreProbe probe_sqlite(sqlite3* db, const std::string& changelog_table,
                        const std::string& lock_table, const std::string& status_index) {
  StoreProbe probe;
  probe.changelog_exists = has_object(db, "table", changelog_table);
  probe.lock_table_exists = has_object(db, "table", lock_table);
  if (probe.changelog_exists && !has_object(db, "index", status_index)) {
    probe.missing_indexes.push_back(status_index);
  }
  return probe;
}

}  // namespace migronaut

// How the SQL stores read other tools' history tables: one SELECT per tool over the table as the
// tool creates it, giving the columns of a ForeignRecord in a fixed order. Each store supplies
// its dialect's conversion of a timestamp column to ms since the epoch.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "store/store.hpp"

namespace migronaut {

struct HistoryQuery {
  std::string table;   // as named: the tool's default, or the one it was configured with
  std::string quoted;  // the same as an SQL identifier, each part quoted ("app"."history")
  // version, name, description, applied_at_ms, checksum, success (1/0), type — NULL where the
  // tool keeps nothing.
  std::string select;
  // A column the tool's table never has, but another tool's table of the same name does:
  // golang-migrate's `dirty` in schema_migrations, which dbmate's `select` would read without
  // complaint. "" when no other tool shares the name.
  std::string foreign_column;
};

// The query for `tool`'s history in `table` (names checked by is_identifier, `schema.table`
// allowed), or nullopt when the tool does not run on SQL databases (migrate-mongo). `epoch_ms`
// turns a column name into the dialect's ms-since-epoch expression.
std::optional<HistoryQuery> history_query(
    ForeignTool tool, const std::string& table,
    const std::function<std::string(std::string_view column)>& epoch_ms);

// The columns of one row of a HistoryQuery's result, read as text (NULL as nullopt).
ForeignRecord foreign_record(const std::function<std::optional<std::string>(int column)>& cell);

// MigrationInvalidFormatError: `table` exists but is not `tool`'s (a column is missing).
[[noreturn]] void throw_not_the_tools_table(ForeignTool tool, const std::string& table,
                                            const std::string& error);
// MigrationInvalidFormatError: `table` has the query's foreign_column, so another tool wrote it.
[[noreturn]] void throw_another_tools_table(ForeignTool tool, const HistoryQuery& query);
// ConfigInvalidError: `tool` does not keep its history in this kind of database.
[[noreturn]] void throw_tool_unsupported(ForeignTool tool, std::string_view store_kind);

}  // namespace migronaut

#include "store/history_sql.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "migronaut/errors.hpp"

namespace migronaut {

namespace {

// `table` quoted part by part: a name as the tool created it, in any case.
std::string quoted_name(const std::string& table) {
  std::string quoted;
  for (std::size_t begin = 0; begin <= table.size();) {
    const std::size_t dot = std::min(table.find('.', begin), table.size());
    quoted += (quoted.empty() ? "\"" : ".\"") + table.substr(begin, dot - begin) + "\"";
    begin = dot + 1;
  }
  return quoted;
}

// The SELECT of a ForeignRecord's columns, in order, from `from`.
std::optional<std::string> select_for(
    ForeignTool tool, const std::string& from,
    const std::function<std::string(std::string_view column)>& epoch_ms) {
  switch (tool) {
    case ForeignTool::kDbmate:
      return "SELECT CAST(version AS TEXT), NULL, NULL, NULL, NULL, 1, NULL FROM " + from;
    case ForeignTool::kGolangMigrate:
      return "SELECT CAST(version AS TEXT), NULL, NULL, NULL, NULL,"
             " CASE WHEN dirty THEN 0 ELSE 1 END, NULL FROM " +
             from;
    case ForeignTool::kFlyway:
      return "SELECT version, script, description, " + epoch_ms("installed_on") +
             ", CAST(checksum AS TEXT), CASE WHEN success THEN 1 ELSE 0 END, type FROM " + from +
             " ORDER BY installed_rank";
    case ForeignTool::kKnex:
      return "SELECT NULL, name, NULL, " + epoch_ms("migration_time") + ", NULL, 1, NULL FROM " +
             from + " ORDER BY id";
    case ForeignTool::kNodePgMigrate:
      return "SELECT NULL, name, NULL, " + epoch_ms("run_on") + ", NULL, 1, NULL FROM " + from +
             " ORDER BY id";
    case ForeignTool::kSqlMigrate:
      // Its id is the file's name; it writes a row only once the migration ran. Ordered by the
      // time itself: SQLite keeps it as text in the writer's zone.
      return "SELECT NULL, id, NULL, " + epoch_ms("applied_at") + ", NULL, 1, NULL FROM " + from +
             " ORDER BY 4, id";
    case ForeignTool::kMigrateMongo:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<HistoryQuery> history_query(
    ForeignTool tool, const std::string& table,
    const std::function<std::string(std::string_view column)>& epoch_ms) {
  const std::string quoted = quoted_name(table);
  std::optional<std::string> select = select_for(tool, quoted, epoch_ms);
  if (!select) return std::nullopt;
  // golang-migrate's `dirty`, which dbmate's select would read without complaint.
  const std::string foreign_column = tool == ForeignTool::kDbmate ? "dirty" : "";
  return HistoryQuery{table, quoted, std::move(*select), foreign_column};
}

ForeignRecord foreign_record(const std::function<std::optional<std::string>(int column)>& cell) {
  ForeignRecord record;
  record.version = cell(0).value_or("");
  record.name = cell(1).value_or("");
  record.description = cell(2).value_or("");
  if (const std::optional<std::string> at = cell(3)) {
    std::int64_t ms = 0;
    if (std::from_chars(at->data(), at->data() + at->size(), ms).ec == std::errc()) {
      record.applied_at_ms = ms;
    }
  }
  record.checksum = cell(4).value_or("");
  record.success = cell(5).value_or("1") != "0";
  record.type = cell(6).value_or("");
  return record;
}

void throw_not_the_tools_table(ForeignTool tool, const std::string& table,
                               const std::string& error) {
  throw MigrationInvalidFormatError(
      fmt::format("The table {} is not {}'s history table: {}", table, foreign_tool_name(tool),
                  error),
      {{"table", table}, {"tool", foreign_tool_name(tool)}, {"error", error}});
}

void throw_another_tools_table(ForeignTool tool, const HistoryQuery& query) {
  const std::string error = fmt::format(
      "it has a {} column, as golang-migrate's has: import it with --from golang-migrate",
      query.foreign_column);
  throw_not_the_tools_table(tool, query.table, error);
}

void throw_tool_unsupported(ForeignTool tool, std::string_view store_kind) {
  throw ConfigInvalidError(
      fmt::format("{} does not keep its history in a {} database", foreign_tool_name(tool),
                  store_kind),
      {{"key", "from"}, {"tool", foreign_tool_name(tool)}, {"store", store_kind}});
}

}  // namespace migronaut

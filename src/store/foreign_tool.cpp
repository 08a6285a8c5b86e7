#include <fmt/format.h>

#include <array>
#include <string>

#include "store/store.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

struct ToolNames {
  ForeignTool tool;
  std::string_view name;
  std::string_view table;
};

constexpr std::array<ToolNames, 7> kToolNames = {{
    {ForeignTool::kDbmate, "dbmate", "schema_migrations"},
    {ForeignTool::kGolangMigrate, "golang-migrate", "schema_migrations"},
    {ForeignTool::kFlyway, "flyway", "flyway_schema_history"},
    {ForeignTool::kKnex, "knex", "knex_migrations"},
    {ForeignTool::kNodePgMigrate, "node-pg-migrate", "pgmigrations"},
    {ForeignTool::kSqlMigrate, "sql-migrate", "gorp_migrations"},
    {ForeignTool::kMigrateMongo, "migrate-mongo", "changelog"},
}};

}  // namespace

std::string_view foreign_tool_name(ForeignTool tool) {
  for (const ToolNames& known : kToolNames) {
    if (known.tool == tool) return known.name;
  }
  return "";
}

std::string foreign_tool_list() {
  std::string list;
  for (const ToolNames& known : kToolNames) {
    list += (list.empty() ? "" : ", ") + std::string(known.name);
  }
  return list;
}

std::string unknown_foreign_tool(std::string_view name) {
  std::vector<std::string_view> names;
  for (const ToolNames& known : kToolNames) names.push_back(known.name);
  const std::optional<std::string_view> suggestion = near_miss(name, names);
  return fmt::format("\"{}\" is no tool migronaut imports from{}; the tools are {}", name,
                     suggestion ? fmt::format(" (did you mean \"{}\"?)", *suggestion) : "",
                     foreign_tool_list());
}

std::string_view foreign_tool_table(ForeignTool tool) {
  for (const ToolNames& known : kToolNames) {
    if (known.tool == tool) return known.table;
  }
  return "";
}

std::vector<ForeignTool> foreign_tools() {
  std::vector<ForeignTool> tools;
  for (const ToolNames& known : kToolNames) tools.push_back(known.tool);
  return tools;
}

std::optional<ForeignTool> parse_foreign_tool(std::string_view name) {
  for (const ToolNames& known : kToolNames) {
    if (known.name == name) return known.tool;
  }
  return std::nullopt;
}

}  // namespace migronaut

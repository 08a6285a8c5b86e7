#include <array>
#include <utility>

#include "store/store.hpp"

namespace migronaut {
namespace {

constexpr std::array<std::pair<ForeignTool, std::string_view>, 6> kToolNames = {{
    {ForeignTool::kDbmate, "dbmate"},
    {ForeignTool::kGolangMigrate, "golang-migrate"},
    {ForeignTool::kFlyway, "flyway"},
    {ForeignTool::kKnex, "knex"},
    {ForeignTool::kNodePgMigrate, "node-pg-migrate"},
    {ForeignTool::kMigrateMongo, "migrate-mongo"},
}};

}  // namespace

std::string_view foreign_tool_name(ForeignTool tool) {
  for (const auto& [known, name] : kToolNames) {
    if (known == tool) return name;
  }
  return "";
}

std::vector<ForeignTool> foreign_tools() {
  std::vector<ForeignTool> tools;
  for (const auto& [tool, name] : kToolNames) tools.push_back(tool);
  return tools;
}

std::optional<ForeignTool> parse_foreign_tool(std::string_view name) {
  for (const auto& [tool, known] : kToolNames) {
    if (known == name) return tool;
  }
  return std::nullopt;
}

}  // namespace migronaut

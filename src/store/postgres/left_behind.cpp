#include "store/postgres/left_behind.hpp"

#include <fmt/format.h>

#include <string_view>

#include "store/execution.hpp"
#include "store/script_check.hpp"

namespace migronaut {
namespace {

// `name` as PostgreSQL's quote_ident() would write it, but for keywords: bare when it is a
// lower-case identifier, quoted otherwise.
std::string identifier(std::string_view name) {
  const auto plain = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || c == '_' || (!first && ((c >= '0' && c <= '9') || c == '$'));
  };
  bool bare = !name.empty();
  for (std::size_t i = 0; i < name.size() && bare; ++i) bare = plain(name[i], i == 0);
  return bare ? std::string(name) : quote_identifier(name);
}

// The string field `key` of a parse tree node, or "".
std::string_view field(const nlohmann::json& node, const char* key) {
  const auto found = node.find(key);
  return found != node.end() && found->is_string()
             ? std::string_view(found->get_ref<const std::string&>())
             : std::string_view();
}

// The line about the INVALID index `index`, a CREATE INDEX CONCURRENTLY's node, may have left.
std::string invalid_index(const nlohmann::json& index, nlohmann::json& context) {
  const nlohmann::json& relation = index.value("relation", nlohmann::json::object());
  const std::string_view schema = field(relation, "schemaname");
  const std::string prefix = schema.empty() ? "" : identifier(schema) + ".";
  const std::string_view name = field(index, "idxname");
  if (name.empty()) {
    return fmt::format(
        "\nA failed CREATE INDEX CONCURRENTLY may leave its index behind, INVALID: find it "
        "with `SELECT indexrelid::regclass FROM pg_index WHERE NOT indisvalid AND indrelid = "
        "'{}{}'::regclass;` and drop it with DROP INDEX CONCURRENTLY before running the "
        "migration again.",
        prefix, identifier(field(relation, "relname")));
  }
  const std::string qualified = prefix + identifier(name);
  context["invalidIndex"] = qualified;
  return fmt::format(
      "\nA failed CREATE INDEX CONCURRENTLY may leave its index behind, INVALID: run `DROP INDEX "
      "CONCURRENTLY IF EXISTS {};` before running the migration again.",
      qualified);
}

}  // namespace

std::string left_behind(const PgStatement& failed, std::size_t ran_before,
                        nlohmann::json& context) {
  std::string text = statements_left_applied(ran_before, context);
  if (failed.kind() == "IndexStmt" && failed.node().value("concurrent", false)) {
    text += invalid_index(failed.node(), context);
  }
  return text;
}

}  // namespace migronaut

#include "sql/pg/session_settings.hpp"

namespace migronaut {

std::vector<const PgStatement*> session_settings(const std::vector<PgStatement>& statements) {
  std::vector<const PgStatement*> found;
  for (const PgStatement& statement : statements) {
    if (!statement.parsed() || statement.kind() != "VariableSetStmt") continue;
    const nlohmann::json& node = statement.node();
    // SET TRANSACTION … lasts for its transaction, as SET LOCAL does.
    if (node.value("is_local", false) || node.value("name", "") == "TRANSACTION") continue;
    found.push_back(&statement);
  }
  return found;
}

}  // namespace migronaut

#include "sql/pg/client_copy.hpp"

#include <algorithm>

namespace migronaut {

const PgStatement* first_client_copy(const std::vector<PgStatement>& statements) {
  const auto through_client = [](const PgStatement& statement) {
    // The parser leaves out the file name of STDIN and STDOUT, as it does a program's absence.
    return statement.kind() == "CopyStmt" && !statement.node().contains("filename");
  };
  const auto found = std::find_if(statements.begin(), statements.end(), through_client);
  return found == statements.end() ? nullptr : &*found;
}

}  // namespace migronaut

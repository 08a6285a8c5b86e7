// COPY … FROM STDIN and COPY … TO STDOUT move their rows through the client: psql feeds a COPY
// FROM STDIN the lines after it, up to `\.`, and prints what a COPY TO STDOUT sends. migronaut
// sends a script, not rows: the server would wait for rows that never come, with the migration's
// transaction and its locks held. COPY from or to a server file or program is the server's own.
#pragma once

#include <vector>

#include "sql/pg/pg_script.hpp"

namespace migronaut {

// The first statement of `statements` that copies through the client, or nullptr. Statements
// that do not parse are left to the server.
const PgStatement* first_client_copy(const std::vector<PgStatement>& statements);

}  // namespace migronaut

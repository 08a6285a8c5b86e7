// The statements of a PostgreSQL script whose effect outlives their transaction: session-level
// SET and RESET (search_path, role, statement_timeout, …), not SET LOCAL nor SET TRANSACTION.
// Outside a transaction, behind a transaction-pooling proxy (PgBouncer), each statement may run on
// another server session: such a setting may miss the script's later statements and stay with a
// server session other clients then use.
#pragma once

#include <vector>

#include "sql/pg/pg_script.hpp"

namespace migronaut {

// Every such statement of `statements`, in order. Statements that do not parse are left out.
std::vector<const PgStatement*> session_settings(const std::vector<PgStatement>& statements);

}  // namespace migronaut

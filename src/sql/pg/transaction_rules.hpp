// The statements of a PostgreSQL script that cannot run inside the transaction migronaut wraps
// a transactional migration in: transaction control that would end or escape it (BEGIN, COMMIT,
// END, ROLLBACK, PREPARE TRANSACTION, RELEASE or ROLLBACK TO of a savepoint the script did not
// open), and statements PostgreSQL refuses inside a transaction block (CREATE/DROP INDEX
// CONCURRENTLY, VACUUM, CREATE DATABASE, …).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sql/pg/pg_script.hpp"

namespace migronaut {

struct TransactionConflict {
  const PgStatement* statement = nullptr;
  // The lint rule it breaks: "transaction-nesting" (transaction control),
  // "ban-concurrent-index-creation-in-transaction" or "transaction-incompatible".
  std::string rule;
  std::string reason;
};

// Every conflict of `statements`, in order. Statements that do not parse are left to the server.
std::vector<TransactionConflict> transaction_conflicts(const std::vector<PgStatement>& statements);

// Whether the statements of `script` are all ones PostgreSQL refuses inside a transaction block
// (CREATE INDEX CONCURRENTLY, VACUUM, …; transaction control is not among them), and there is at
// least one: a script that can run only outside a transaction, as Flyway runs it. A statement
// that does not parse counts against it.
bool runs_only_outside_transaction(std::string_view script);

}  // namespace migronaut

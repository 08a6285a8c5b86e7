// The statements of an SQLite script that cannot run inside the transaction migronaut wraps a
// transactional migration in, found with SQLite's own tokenizer and compiler: the script is
// split where sqlite3_complete() says a statement ends, and each statement compiled (never run)
// on a private in-memory database as EXPLAIN, whose opcodes tell transaction control
// (AutoCommit, Savepoint) and VACUUM apart from everything else.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace migronaut {

// The statements of `script` in order, each from its first token and without its semicolon.
std::vector<std::string_view> sqlite_statements(std::string_view script);

// The statement of `script` that starts at byte `start` (blanks and comments before it
// allowed): from its first token, without its semicolon.
std::string_view sqlite_statement_at(std::string_view script, std::size_t start);

struct SqliteConflict {
  std::size_t offset = 0;  // the statement's first token, in bytes
  std::string statement;
  std::string rule;  // "transaction-nesting" or "transaction-incompatible"
  std::string reason;
};

// The first conflicting statement of `script`, if any. Statements that do not compile on an
// empty database (they name tables) are no transaction control and pass.
std::optional<SqliteConflict> sqlite_transaction_conflict(std::string_view script);

// Whether every statement of `script`, and there is one, cannot run inside a transaction
// (VACUUM): a script that can run only outside one. A statement that does not compile on an
// empty database counts against it.
bool sqlite_runs_only_outside_transaction(std::string_view script);

}  // namespace migronaut

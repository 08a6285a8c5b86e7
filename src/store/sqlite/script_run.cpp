#include "store/sqlite/script_run.hpp"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "migronaut/errors.hpp"
#include "store/execution.hpp"
#include "store/script_check.hpp"
#include "store/sqlite/sqlite_script.hpp"

namespace migronaut {
namespace {

struct Finalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using StatementHandle = std::unique_ptr<sqlite3_stmt, Finalizer>;

// Where in the statement SQLite's last error lies, in bytes, when it blames a token of it
// (SQLite 3.38 and later tell).
int error_offset(sqlite3* db) {
#if SQLITE_VERSION_NUMBER >= 3038000
  return sqlite3_error_offset(db);
#else
  (void)db;
  return -1;
#endif
}

// The first byte of the statement at byte `start` (past the blanks and comments before it).
std::size_t first_token(const Script& script, std::size_t start) {
  return static_cast<std::size_t>(sqlite_statement_at(script.text, start).data() -
                                  script.text.data());
}

// Rolls back a transaction the script left open: the record written next could neither begin
// nor commit it. (SQLite itself ends one on some errors: ON CONFLICT ROLLBACK, a full disk.)
void roll_back_own(sqlite3* db) {
  if (sqlite3_get_autocommit(db) == 0) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
}

// What a failure outside migronaut's transaction leaves, `ran` statements having run: inside
// the script's own transaction, only what ran before its BEGIN.
std::string left_applied(sqlite3* db, const Script& script, std::size_t ran,
                         const std::optional<OwnTransaction>& own, nlohmann::json& context) {
  roll_back_own(db);
  return own ? own_transaction_rolled_back(script, *own, context)
             : statements_left_applied(ran, context);
}

// The failure of the statement at byte `start` of the script (the blanks before it included).
// `blamed` is error_offset()'s answer, -1 when the error names no token of it. Outside a
// transaction (`ran` given), says what stays applied.
[[noreturn]] void fail(sqlite3* db, const Script& script, std::size_t start, int blamed,
                       std::optional<std::size_t> ran,
                       const std::optional<OwnTransaction>& own = std::nullopt) {
  const std::string error = sqlite3_errmsg(db);
  const std::string_view statement = sqlite_statement_at(script.text, start);
  const std::size_t offset =
      blamed >= 0 ? start + static_cast<std::size_t>(blamed) : first_token(script, start);
  nlohmann::json context = {{"error", error}};
  std::string message = place_in_file(script, offset, statement, context) + ": " + error;
  if (ran) message += left_applied(db, script, *ran, own, context);
  throw MigrationExecutionFailedError(message, std::move(context));
}

}  // namespace

void run_sqlite_script(sqlite3* db, const Script& script, bool transactional,
                       const std::function<bool()>& still_held) {
  const char* const begin = script.text.data();
  const char* const end = begin + script.text.size();
  std::size_t ran = 0;
  std::optional<OwnTransaction> own;  // outside migronaut's, the script's own, while open
  const auto left = [&] { return transactional ? std::nullopt : std::optional(ran); };
  for (const char* rest = begin; rest < end;) {
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    // The length counts the string's terminating NUL: given a length without one, SQLite would
    // copy the rest of the script at every statement.
    const int prepared =
        sqlite3_prepare_v2(db, rest, static_cast<int>(end - rest) + 1, &raw, &tail);
    const StatementHandle statement(raw);
    const auto start = static_cast<std::size_t>(rest - begin);
    if (prepared != SQLITE_OK) fail(db, script, start, error_offset(db), left(), own);
    if (statement != nullptr) {  // none for a rest of blanks and comments
      try {
        require_still_held(still_held, ran);
      } catch (const LockLostError&) {
        roll_back_own(db);  // what ran in it must not commit without the lock
        throw;
      }
      int stepped = SQLITE_ROW;
      while (stepped == SQLITE_ROW) stepped = sqlite3_step(raw);
      if (stepped != SQLITE_DONE) fail(db, script, start, -1, left(), own);
      if (!transactional) {
        track_own_transaction(own, sqlite3_get_autocommit(db) == 0, first_token(script, start),
                              ran);
      }
      ++ran;
    }
    if (tail == rest) break;  // no progress (a NUL in the text): as sqlite3_exec, stop
    rest = tail;
  }
  if (own) {
    roll_back_own(db);
    fail_open_transaction(script, *own, sqlite_statement_at(script.text, own->offset));
  }
}

}  // namespace migronaut

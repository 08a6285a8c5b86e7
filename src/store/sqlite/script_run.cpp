#include "store/sqlite/script_run.hpp"

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

// The failure of the statement at byte `start` of the script (the blanks before it included).
// `blamed` is error_offset()'s answer, -1 when the error names no token of it. Outside a
// transaction, the `ran` statements before it stay applied, and it says so.
[[noreturn]] void fail(sqlite3* db, const Script& script, std::size_t start, int blamed,
                       std::optional<std::size_t> ran) {
  const std::string error = sqlite3_errmsg(db);
  const std::string_view statement = sqlite_statement_at(script.text, start);
  const std::size_t first = static_cast<std::size_t>(statement.data() - script.text.data());
  const std::size_t offset = blamed >= 0 ? start + static_cast<std::size_t>(blamed) : first;
  nlohmann::json context = {{"error", error}};
  std::string message = place_in_file(script, offset, statement, context) + ": " + error;
  if (ran) message += statements_left_applied(*ran, context);
  throw MigrationExecutionFailedError(message, std::move(context));
}

}  // namespace

void run_sqlite_script(sqlite3* db, const Script& script, bool transactional,
                       const std::function<bool()>& still_held) {
  const char* const begin = script.text.data();
  const char* const end = begin + script.text.size();
  std::size_t ran = 0;
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
    if (prepared != SQLITE_OK) fail(db, script, start, error_offset(db), left());
    if (statement != nullptr) {  // none for a rest of blanks and comments
      require_still_held(still_held, ran);
      int stepped = SQLITE_ROW;
      while (stepped == SQLITE_ROW) stepped = sqlite3_step(raw);
      if (stepped != SQLITE_DONE) fail(db, script, start, -1, left());
      ++ran;
    }
    if (tail == rest) break;  // no progress (a NUL in the text): as sqlite3_exec, stop
    rest = tail;
  }
}

}  // namespace migronaut

// How the SQLite store runs a migration's script: statement by statement, as sqlite3_exec()
// does, but keeping track of where each statement starts, so a failure names its place in the
// file and the statement, as PostgreSQL's do.
#pragma once

#include <sqlite3.h>

#include <functional>

#include "store/store.hpp"

namespace migronaut {

// Runs `script` on `db`. The first failing statement throws MigrationExecutionFailedError:
// "line L, column C in `statement`: SQLite's message", at the token SQLite blames when it
// names one, else at the statement's first. What ran before it is the caller's to roll back;
// not `transactional`, the message says how many statements ran before it and stay applied.
// Outside a transaction, `still_held` is asked before each statement (require_still_held).
void run_sqlite_script(sqlite3* db, const Script& script, bool transactional = true,
                       const std::function<bool()>& still_held = nullptr);

}  // namespace migronaut

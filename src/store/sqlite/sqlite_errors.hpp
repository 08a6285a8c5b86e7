// How SQLite's result codes become migronaut's errors, for the store and its readers of other
// tools' tables alike.
#pragma once

#include <sqlite3.h>

#include <string_view>

namespace migronaut {

// Throws for SQLite's `code` from `operation` on `db`: PermissionDeniedError when the file or
// its folder is not writable, ConnectionFailedError when the database itself is unavailable
// (busy, I/O, not a database…), otherwise an unclassified Error. The message is SQLite's.
[[noreturn]] void throw_sqlite_error(sqlite3* db, int code, std::string_view operation);

}  // namespace migronaut

// How SQLite's result codes become migronaut's errors, for the store and its readers of other
// tools' tables alike.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

namespace migronaut {

// Throws for SQLite's `code` from `operation` on `db`: PermissionDeniedError when the file or
// its folder is not writable, ConnectionFailedError when the database itself is unavailable
// (busy, I/O, not a database…), otherwise an unclassified Error (an interrupted statement). The
// message is SQLite's, or `code`'s words when that is not the error `db` holds; a busy
// database's names its file (writer_busy_words).
[[noreturn]] void throw_sqlite_error(sqlite3* db, int code, std::string_view operation);

// Why `db` answered SQLITE_BUSY, naming the file: "the database file '…' is locked by another
// writer". Nothing tells a foreign writer from a migronaut run there; the lock record may.
std::string writer_busy_words(sqlite3* db);

}  // namespace migronaut

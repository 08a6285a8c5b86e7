#include "store/sqlite/sqlite_errors.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "migronaut/errors.hpp"
#include "store/store.hpp"

namespace migronaut {
namespace {

// Errors that mean the database itself is unavailable rather than a statement being wrong.
bool is_connection_error(int code) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FULL:
    case SQLITE_PROTOCOL:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string writer_busy_words(sqlite3* db) {
  const char* file = sqlite3_db_filename(db, "main");
  return std::string("the database file '") + (file != nullptr ? file : "") +
         "' is locked by another writer";
}

[[noreturn]] void throw_sqlite_error(sqlite3* db, int code, std::string_view operation) {
  const int primary = code & 0xff;
  // SQLite's words for its own last error; a code the caller reads otherwise (a busy wait given
  // up on an interrupt is the interrupt) gets the code's own.
  const std::string error =
      primary == (sqlite3_errcode(db) & 0xff) ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  nlohmann::json context = {{"operation", operation}, {"error", error}, {"code", code}};
  if (primary == SQLITE_BUSY) context[kWriterBusyKey] = true;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) context[kLastingKey] = true;
  const std::string message =
      "sqlite: " + std::string(operation) +
      " failed: " + (primary == SQLITE_BUSY ? writer_busy_words(db) + " (" + error + ")" : error);
  if (primary == SQLITE_READONLY || primary == SQLITE_PERM) {
    throw PermissionDeniedError(
        message + " (the database file or its folder is not writable by this user)", context);
  }
  if (is_connection_error(code)) throw ConnectionFailedError(message, context);
  throw Error(ErrorCode::kUnclassified, message, context);
}

}  // namespace migronaut

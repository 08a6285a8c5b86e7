#include "support/sqlite_db.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace migronaut::testing {

SqliteDb::SqliteDb(const std::filesystem::path& path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    const std::string error = sqlite3_errmsg(db_);
    sqlite3_close(db_);
    throw std::runtime_error("cannot open " + path.string() + ": " + error);
  }
  sqlite3_busy_timeout(db_, 10'000);
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

std::vector<Row> SqliteDb::rows(const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
  }
  std::vector<Row> result;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    Row& row = result.emplace_back();
    for (int i = 0; i < sqlite3_column_count(statement); ++i) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
      row.emplace_back(text != nullptr ? text : "NULL");
    }
  }
  sqlite3_finalize(statement);
  if (rc != SQLITE_DONE) throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
  return result;
}

std::optional<std::string> SqliteDb::value(const std::string& sql) {
  const std::vector<Row> found = rows(sql);
  if (found.empty()) return std::nullopt;
  return found.front().front();
}

void SqliteDb::exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error(sql + ": " + message);
  }
}

bool SqliteDb::has_table(const std::string& name) {
  return value("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '" + name + "'")
      .has_value();
}

}  // namespace migronaut::testing

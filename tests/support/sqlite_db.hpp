// A raw sqlite3 connection to a test's database file: tests judge migronaut by the database it
// leaves, not through the code under test, and set up scenarios (a held lock, a tampered
// record) the way another process would.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace migronaut::testing {

using Row = std::vector<std::string>;  // NULL reads as "NULL"

class SqliteDb {
 public:
  // Opens an existing database read-write (never creates one); waits out a writer in another
  // process for up to 10 s. Throws std::runtime_error when it cannot.
  explicit SqliteDb(const std::filesystem::path& path);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  std::vector<Row> rows(const std::string& sql);
  // The first column of the first row, if any.
  std::optional<std::string> value(const std::string& sql);
  void exec(const std::string& sql);
  bool has_table(const std::string& name);

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace migronaut::testing

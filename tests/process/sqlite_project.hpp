// A SQLite project for the real `migronaut` binary: a database file, a migrations folder and a
// working directory in a TempDir. The database is read (and, to set up a scenario, written)
// with the sqlite3 C API directly: tests judge the CLI by the database it leaves, not through
// the code under test.
#pragma once

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/eventually.hpp"
#include "support/process.hpp"
#include "support/sqlite_db.hpp"
#include "support/temp_dir.hpp"

namespace migronaut::testing {

// Every table's schema and rows (sorted), as one string; "" for a database with no table — as
// is a file that does not exist or is empty, so "unchanged" also covers "never created".
inline std::string dump_database(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error) || std::filesystem::file_size(path, error) == 0) {
    return "";
  }
  SqliteDb db(path);
  std::string dump;
  for (const Row& object :
       db.rows("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")) {
    dump += object[0] + " " + object[1] + ": " + object[2] + "\n";
    if (object[0] != "table") continue;
    std::vector<Row> rows = db.rows("SELECT * FROM \"" + object[1] + "\"");
    std::sort(rows.begin(), rows.end());
    for (const Row& row : rows) {
      dump += " ";
      for (const std::string& cell : row) dump += " | " + cell;
      dump += "\n";
    }
  }
  return dump;
}

// SQLite's clock in ms, as the store writes `locked_at`.
inline constexpr const char* kSqliteNowMs =
    "CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)";

using Env = std::map<std::string, std::string>;

class SqliteProject {
 public:
  SqliteProject()
      : db_path_(dir_.file("app.db")),
        migrations_(dir_.file("migrations")),
        cwd_(dir_.file("cwd")) {
    std::filesystem::create_directories(migrations_);
    std::filesystem::create_directories(cwd_);
  }

  const std::filesystem::path& db_path() const { return db_path_; }
  const std::filesystem::path& migrations() const { return migrations_; }
  const std::filesystem::path& cwd() const { return cwd_; }
  const TempDir& dir() const { return dir_; }

  std::filesystem::path write_migration(const std::string& name, const std::string& text) const {
    return dir_.write(migrations_ / name, text);
  }

  // `migronaut --no-env --uri sqlite:<db> --dir <migrations> args…`, run in the project's cwd.
  std::vector<std::string> argv(const std::vector<std::string>& args) const {
    std::vector<std::string> all = {
        migronaut_binary(),  "--no-env", "--uri", "sqlite:" + db_path_.string(), "--dir",
        migrations_.string()};
    all.insert(all.end(), args.begin(), args.end());
    return all;
  }
  ProcessResult run(const std::vector<std::string>& args, const Env& env = {}) const {
    return Process(argv(args), env, cwd_).wait();
  }
  std::unique_ptr<Process> start(const std::vector<std::string>& args, const Env& env = {},
                                 const std::filesystem::path& stdin_from = "/dev/null") const {
    return std::make_unique<Process>(argv(args), env, cwd_, stdin_from);
  }

  bool exists() const { return std::filesystem::exists(db_path_); }
  SqliteDb open() const { return SqliteDb(db_path_); }
  std::string dump() const { return dump_database(db_path_); }

  // name → status of every changelog record.
  std::map<std::string, std::string> statuses() const {
    std::map<std::string, std::string> found;
    if (!exists()) return found;
    SqliteDb db = open();
    if (!db.has_table("_migronaut_migrations")) return found;
    for (const Row& row : db.rows("SELECT name, status FROM _migronaut_migrations")) {
      found[row[0]] = row[1];
    }
    return found;
  }
  // The lock record's owner and the migration it is on, if the lock is held.
  std::optional<Row> lock_row() const {
    if (!exists()) return std::nullopt;
    SqliteDb db = open();
    if (!db.has_table("_migronaut_locks")) return std::nullopt;
    const std::vector<Row> rows = db.rows("SELECT owner, migration FROM _migronaut_locks");
    if (rows.empty()) return std::nullopt;
    return rows.front();
  }

 private:
  TempDir dir_{"migronaut-process"};
  std::filesystem::path db_path_;
  std::filesystem::path migrations_;
  std::filesystem::path cwd_;
};

}  // namespace migronaut::testing

// Where a bad-input case runs: a migrations folder, a working directory and a database of one
// kind (a SQLite file, or a fresh schema on the throwaway PostgreSQL cluster). The database is
// read and prepared with its own client library, never through the code under test.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace migronaut::testing {

using Env = std::map<std::string, std::string>;

class Project {
 public:
  virtual ~Project() = default;

  virtual std::string store() const = 0;  // "sqlite", "postgres"
  // The URI every run is given (with --uri).
  virtual std::string uri() const = 0;
  // Every table, view and row the database holds, as one string; "" when it holds none (or,
  // for SQLite, when the file does not exist).
  virtual std::string dump() const = 0;
  // The database's raw state, compared byte for byte where nothing may be written: the SQLite
  // file's bytes ("<absent>" when there is none); on PostgreSQL the dump.
  virtual std::string bytes() const = 0;
  // Runs SQL on the database, to prepare a case (a tampered record, a view for a table).
  virtual void exec(const std::string& sql) const = 0;
  // Fragments of the secrets the URI carries: no output may contain any of them.
  virtual std::vector<std::string> secrets() const { return {}; }
  // SQL that puts a foreign lock row in place, held by host "ghost-host": taken `age_ms` ago
  // (negative: in the future), with the TTL `ttl_ms`.
  virtual std::string ghost_lock_sql(std::int64_t age_ms, std::int64_t ttl_ms) const = 0;

  const std::filesystem::path& migrations() const { return migrations_; }
  const std::filesystem::path& cwd() const { return cwd_; }
  const TempDir& dir() const { return dir_; }
  std::filesystem::path write_migration(const std::string& name, const std::string& text) const;

  // `migronaut --no-env --uri <uri> --dir <dir> args…`, run in the project's cwd; `dir`
  // defaults to migrations(), `uri` to uri().
  ProcessResult run(const std::vector<std::string>& args, const Env& env = {},
                    const std::filesystem::path& dir = {}, const std::string& uri = {}) const;

 protected:
  Project();

 private:
  TempDir dir_{"migronaut-bad-input"};
  std::filesystem::path migrations_;
  std::filesystem::path cwd_;
};

// A project on SQLite: the database file is <project>/app.db.
std::unique_ptr<Project> sqlite_project();
// A project on a fresh schema of the shared PostgreSQL cluster named after `case_name`, with a
// password in the URI (the cluster trusts every connection, so the password only has to stay
// out of every output).
std::unique_ptr<Project> postgres_project(const std::string& case_name);

}  // namespace migronaut::testing

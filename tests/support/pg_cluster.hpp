// A throwaway PostgreSQL cluster for tests: initdb into a fresh temporary directory, a server
// on a free port of 127.0.0.1 with trust authentication, removed again at the end. Nothing
// relies on a system service. When the tests run as root, initdb and postgres run as the
// `postgres` user (they refuse root).
#pragma once

#include <libpq-fe.h>
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace migronaut::testing {

class PgCluster {
 public:
  // The process-wide cluster, started on first use and removed when the process exits.
  static PgCluster& shared();
  // The cluster the whole ctest run shares (the `pg_shared_cluster` fixture), for tests that
  // keep to a schema of their own and never stop or restart the server: one start per run
  // instead of one per test process. Outside ctest (the fixture's server not running), shared().
  static PgCluster& run_wide();
  // Where the ctest run of process `ctest` records its run-wide cluster. One record per run,
  // so two runs in one build directory never stop each other's server; the tests, which ctest
  // starts itself, find it by their parent's pid.
  static std::filesystem::path run_wide_record(pid_t ctest);

  // Starts a cluster of its own (initdb + start); throws std::runtime_error on failure.
  PgCluster();
  ~PgCluster();
  // Adopts the running cluster that keep_running() recorded in `state`; stop() stops it, and
  // the destructor leaves it alone. Throws std::runtime_error when there is no record.
  explicit PgCluster(const std::filesystem::path& state);
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // The superuser's URI for `dbname`: postgres://postgres@127.0.0.1:PORT/DBNAME.
  std::string uri(const std::string& dbname) const;
  void create_database(const std::string& name);
  // Drops `name`, terminating its connections; no error when it does not exist.
  void drop_database(const std::string& name);
  // Drops and re-creates `schema` in `dbname` (created when missing; the cluster being
  // throwaway, "postgres" serves well and costs nothing) and returns a URI whose
  // search_path puts new tables there: as clean as a new database, and far cheaper to make.
  // `schema` must be as schema_name() makes it.
  std::string fresh_schema_uri(const std::string& dbname, const std::string& schema);
  // `text` as the server names an unquoted identifier, which the search_path in the URI is:
  // folded to lower case and cut to 63 bytes.
  static std::string schema_name(std::string text);
  // Stops the server (fast shutdown) and starts it again on the same port and data.
  void restart();
  // Stops the server at once and removes its directory; idempotent.
  void stop();
  // Records the cluster in `state` for PgCluster(state) and leaves it running past this object.
  void keep_running(const std::filesystem::path& state);

  const std::filesystem::path& directory() const { return directory_; }
  int port() const { return port_; }

 private:
  void make_data_directory();
  void start();

  std::filesystem::path bin_dir_;
  std::filesystem::path directory_;  // holds data/, the socket and the logs
  int port_ = 0;
  bool running_ = false;
  bool owned_ = true;  // stopped and removed by the destructor
};

// One connection for a test's many queries: a new one costs tens of milliseconds on a busy
// machine. Throws std::runtime_error when the connection or a statement fails.
class PgSession {
 public:
  explicit PgSession(const std::string& uri);
  // The first cell of `sql`'s result (nullopt for no row or NULL).
  std::optional<std::string> value(const std::string& sql);

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// The first cell of `sql`'s result on a new connection to `uri`, as PgSession::value.
std::optional<std::string> pg_query_value(const std::string& uri, const std::string& sql);

}  // namespace migronaut::testing

// A throwaway PostgreSQL cluster for tests: initdb into a fresh temporary directory, a server
// on a free port of 127.0.0.1 with trust authentication, removed again at the end. Nothing
// relies on a system service. When the tests run as root, initdb and postgres run as the
// `postgres` user (they refuse root).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace migronaut::testing {

class PgCluster {
 public:
  // The process-wide cluster, started on first use and removed when the process exits.
  static PgCluster& shared();

  // Starts a cluster of its own (initdb + start); throws std::runtime_error on failure.
  PgCluster();
  ~PgCluster();
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
  std::string fresh_schema_uri(const std::string& dbname, const std::string& schema);
  // Stops the server (fast shutdown) and starts it again on the same port and data.
  void restart();
  // Stops the server at once and removes its directory; idempotent.
  void stop();

  const std::filesystem::path& directory() const { return directory_; }
  int port() const { return port_; }

 private:
  void make_data_directory();
  void start();

  std::filesystem::path bin_dir_;
  std::filesystem::path directory_;  // holds data/, the socket and the logs
  int port_ = 0;
  bool running_ = false;
};

// The first cell of `sql`'s result on a new connection to `uri` (nullopt for no row or NULL);
// throws std::runtime_error when the connection or the statement fails.
std::optional<std::string> pg_query_value(const std::string& uri, const std::string& sql);

}  // namespace migronaut::testing

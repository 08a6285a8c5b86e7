// A real PgBouncer (Debian's `pgbouncer`) for tests: started on a free port of 127.0.0.1 in
// front of a PgCluster, trust authentication, the given pooling mode; stopped at the end.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "support/pg_cluster.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace migronaut::testing {

class PgBouncer {
 public:
  // The pgbouncer binary, when installed (scripts/install-deps installs it).
  static std::optional<std::string> binary();

  // Throws std::runtime_error when it is missing or does not accept connections in time.
  PgBouncer(const PgCluster& cluster, const std::string& pool_mode);
  PgBouncer(const PgBouncer&) = delete;
  PgBouncer& operator=(const PgBouncer&) = delete;

  // postgres://postgres@127.0.0.1:PORT/DBNAME, through the pooler.
  std::string uri(const std::string& dbname) const;

 private:
  TempDir dir_{"migronaut-pgbouncer"};
  int port_ = 0;
  std::unique_ptr<Process> process_;
};

}  // namespace migronaut::testing

#include "support/pgbouncer.hpp"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "support/ports.hpp"

namespace migronaut::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kServerUser = "postgres";  // pgbouncer refuses to run as root

}  // namespace

std::optional<std::string> PgBouncer::binary() {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"}) {
    const fs::path candidate = fs::path(dir) / "pgbouncer";
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return std::nullopt;
}

PgBouncer::PgBouncer(const PgCluster& cluster, const std::string& pool_mode) {
  const auto program = binary();
  if (!program) throw std::runtime_error("PgBouncer: no pgbouncer binary");
  port_ = free_port();
  dir_.write("users.txt", "\"postgres\" \"\"\n");
  const fs::path ini = dir_.write(
      "pgbouncer.ini",
      "[databases]\n* = host=127.0.0.1 port=" + std::to_string(cluster.port()) +
          "\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = " + std::to_string(port_) +
          "\nunix_socket_dir =\nauth_type = trust\nauth_file = " + dir_.file("users.txt").string() +
          "\npool_mode = " + pool_mode +
          "\nmax_client_conn = 500\ndefault_pool_size = 10\nlogfile = " +
          dir_.file("pgbouncer.log").string() +
          "\npidfile = " + dir_.file("pgbouncer.pid").string() + "\n");
  std::vector<std::string> argv{*program, ini.string()};
  if (geteuid() == 0) {
    const passwd* user = getpwnam(kServerUser);
    if (user == nullptr || chown(dir_.path().c_str(), user->pw_uid, user->pw_gid) != 0) {
      throw std::runtime_error("PgBouncer: running as root needs the `postgres` user");
    }
    argv = {*program, "-u", kServerUser, ini.string()};
  }
  process_ = std::make_unique<Process>(std::move(argv));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    try {
      pg_query_value(uri("postgres"), "SELECT 1");
      return;
    } catch (const std::runtime_error& error) {
      if (process_->wait_for(std::chrono::milliseconds(0))) {
        throw std::runtime_error("PgBouncer exited: " + process_->err_so_far());
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error(std::string("PgBouncer did not come up: ") + error.what());
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string PgBouncer::uri(const std::string& dbname) const {
  return "postgres://postgres@127.0.0.1:" + std::to_string(port_) + "/" + dbname;
}

}  // namespace migronaut::testing

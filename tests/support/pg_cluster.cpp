#include "support/pg_cluster.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "support/ports.hpp"

extern char** environ;

namespace migronaut::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kServerUser = "postgres";

// The bin directory of the newest installed PostgreSQL (/usr/lib/postgresql/<major>/bin).
fs::path find_bin_dir() {
  fs::path best;
  int best_major = -1;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", error)) {
    const std::string version = entry.path().filename().string();
    const int major = std::atoi(version.c_str());
    if (major > best_major && fs::exists(entry.path() / "bin" / "initdb")) {
      best_major = major;
      best = entry.path() / "bin";
    }
  }
  if (best.empty()) throw std::runtime_error("PgCluster: no /usr/lib/postgresql/*/bin/initdb");
  return best;
}

std::string tail(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

enum class As { kServerUser, kSelf };

// Runs `argv` in `cwd` with its output appended to `log` — as the server user when asked and we
// are root — and throws with the log's tail when it fails.
void run(std::vector<std::string> argv, const fs::path& cwd, const fs::path& log,
         As as = As::kServerUser) {
  if (as == As::kServerUser && geteuid() == 0) {
    argv.insert(argv.begin(), {"runuser", "-u", kServerUser, "--"});
  }
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    std::string command;
    for (const std::string& arg : argv) command += (command.empty() ? "" : " ") + arg;
    throw std::runtime_error("PgCluster: `" + command + "` failed:\n" + tail(log));
  }
}

}  // namespace

PgCluster& PgCluster::shared() {
  static PgCluster cluster;
  return cluster;
}

PgCluster& PgCluster::run_wide() {
  static const std::unique_ptr<PgCluster> fixture = []() -> std::unique_ptr<PgCluster> {
    const fs::path record = run_wide_record(getppid());
    if (!fs::exists(record)) {
      // Run by hand, or through a launcher (a wrapper, strace -f) between ctest and the test.
      std::error_code error;
      if (!fs::is_empty(record.parent_path(), error) && !error) {
        std::cerr << "PgCluster: no run-wide cluster recorded for parent pid " << getppid()
                  << " (not started by ctest?): this test process starts its own\n";
      }
      return nullptr;
    }
    auto cluster = std::make_unique<PgCluster>(record);
    try {
      pg_query_value(cluster->uri("postgres"), "SELECT 1");
    } catch (const std::runtime_error&) {
      return nullptr;  // left by a run that was cut short
    }
    return cluster;
  }();
  return fixture ? *fixture : shared();
}

fs::path PgCluster::run_wide_record(pid_t ctest) {
  return fs::path(MIGRONAUT_PG_SHARED_STATE) / std::to_string(ctest);
}

PgCluster::PgCluster(const fs::path& state) : bin_dir_(find_bin_dir()), owned_(false) {
  std::ifstream in(state);
  std::string directory;
  if (!(in >> port_ >> std::ws && std::getline(in, directory))) {
    throw std::runtime_error("PgCluster: no cluster recorded in " + state.string());
  }
  directory_ = directory;
  running_ = true;
}

PgCluster::PgCluster() : bin_dir_(find_bin_dir()) {
  std::string pattern = (fs::temp_directory_path() / "migronaut-pg-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("PgCluster: cannot create a temporary directory");
  }
  directory_ = pattern;
  if (geteuid() == 0) {
    const passwd* user = getpwnam(kServerUser);
    if (user == nullptr || chown(directory_.c_str(), user->pw_uid, user->pw_gid) != 0) {
      fs::remove_all(directory_);
      throw std::runtime_error("PgCluster: running as root needs the `postgres` user");
    }
  }
  try {
    make_data_directory();
    // Another process may take the port between free_port() and the server's bind.
    for (int attempt = 1;; ++attempt) {
      port_ = free_port();
      try {
        start();
        break;
      } catch (const std::runtime_error&) {
        if (attempt == 3) throw;
      }
    }
  } catch (...) {
    fs::remove_all(directory_);
    throw;
  }
}

PgCluster::~PgCluster() {
  if (!owned_) return;
  try {
    stop();
  } catch (...) {
    // A destructor that runs at exit has nowhere to report to.
  }
}

// initdb costs a second or more, and every test process starts a cluster: the first one to
// run keeps a copy of its fresh data directory in the build tree, which later ones copy.
void PgCluster::make_data_directory() {
  const fs::path data = directory_ / "data";
  const fs::path cached = fs::path(MIGRONAUT_PG_TEMPLATE_ROOT) /
                          ("initdb-" + bin_dir_.parent_path().filename().string());
  const fs::path log = directory_ / "initdb.log";
  if (fs::exists(cached / "PG_VERSION")) {
    run({"cp", "-a", cached.string(), data.string()}, directory_, log, As::kSelf);
    return;
  }
  run({(bin_dir_ / "initdb").string(), "-D", data.string(), "-U", "postgres", "-A", "trust", "-E",
       "UTF8", "--locale=C", "--no-sync", "--no-instructions"},
      directory_, log);
  // Published by a rename, so no process ever copies a half-written template.
  const fs::path staging = cached.string() + "." + std::to_string(getpid());
  fs::create_directories(cached.parent_path());
  run({"cp", "-a", data.string(), staging.string()}, directory_, log, As::kSelf);
  std::error_code already_there;
  fs::rename(staging, cached, already_there);
  if (already_there) fs::remove_all(staging);
}

std::string PgCluster::uri(const std::string& dbname) const {
  return "postgres://postgres@127.0.0.1:" + std::to_string(port_) + "/" + dbname;
}

void PgCluster::start() {
  const std::string options = "-p " + std::to_string(port_) + " -k " + directory_.string() +
                              " -c listen_addresses=127.0.0.1 -c fsync=off"
                              " -c synchronous_commit=off -c full_page_writes=off"
                              " -c max_connections=200";
  run({(bin_dir_ / "pg_ctl").string(), "-D", (directory_ / "data").string(), "-l",
       (directory_ / "server.log").string(), "-w", "-t", "60", "-o", options, "start"},
      directory_, directory_ / "pg_ctl.log");
  running_ = true;
}

void PgCluster::restart() {
  run({(bin_dir_ / "pg_ctl").string(), "-D", (directory_ / "data").string(), "-m", "fast", "-w",
       "stop"},
      directory_, directory_ / "pg_ctl.log");
  running_ = false;
  start();
}

void PgCluster::stop() {
  std::exception_ptr failure;
  if (std::exchange(running_, false)) {
    try {
      run({(bin_dir_ / "pg_ctl").string(), "-D", (directory_ / "data").string(), "-m", "immediate",
           "-w", "stop"},
          directory_, directory_ / "pg_ctl.log");
    } catch (...) {
      failure = std::current_exception();
    }
  }
  fs::remove_all(directory_);
  if (failure) std::rethrow_exception(failure);
}

void PgCluster::keep_running(const fs::path& state) {
  std::ofstream out(state);
  out << port_ << '\n' << directory_.string() << '\n';
  if (!out.flush()) throw std::runtime_error("PgCluster: cannot write " + state.string());
  owned_ = false;
}

void PgCluster::create_database(const std::string& name) {
  pg_query_value(uri("postgres"), "CREATE DATABASE \"" + name + "\"");
}

void PgCluster::drop_database(const std::string& name) {
  pg_query_value(uri("postgres"), "DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
}

std::string PgCluster::schema_name(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  text.resize(std::min<std::size_t>(text.size(), 63));
  return text;
}

std::string PgCluster::fresh_schema_uri(const std::string& dbname, const std::string& schema) {
  if (schema != schema_name(schema)) {
    throw std::invalid_argument("PgCluster: the server would name schema " + schema + " " +
                                schema_name(schema));
  }
  if (!pg_query_value(uri("postgres"),
                      "SELECT 1 FROM pg_database WHERE datname = '" + dbname + "'")) {
    create_database(dbname);
  }
  pg_query_value(uri(dbname), "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE; CREATE SCHEMA \"" +
                                  schema + "\"");
  return uri(dbname) + "?options=-csearch_path%3D" + schema;
}

PgSession::PgSession(const std::string& uri) : conn_(PQconnectdb(uri.c_str()), &PQfinish) {
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw std::runtime_error("cannot connect to " + uri + ": " + PQerrorMessage(conn_.get()));
  }
  PQsetNoticeProcessor(
      conn_.get(), [](void*, const char*) {}, nullptr);
}

std::optional<std::string> PgSession::value(const std::string& sql) {
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_.get(), sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    throw std::runtime_error(sql + ": " + PQerrorMessage(conn_.get()));
  }
  if (PQntuples(result.get()) == 0 || PQgetisnull(result.get(), 0, 0)) return std::nullopt;
  return PQgetvalue(result.get(), 0, 0);
}

std::optional<std::string> pg_query_value(const std::string& uri, const std::string& sql) {
  return PgSession(uri).value(sql);
}

}  // namespace migronaut::testing

#include "bad_input/project.hpp"

#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>

#include "process/sqlite_project.hpp"
#include "support/pg_cluster.hpp"

namespace migronaut::testing {
namespace {

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "<absent>";
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

class SqliteCaseProject final : public Project {
 public:
  std::string store() const override { return "sqlite"; }
  std::string uri() const override { return "sqlite:" + db_path().string(); }
  std::string dump() const override { return dump_database(db_path()); }
  std::string bytes() const override { return file_bytes(db_path()); }
  void exec(const std::string& sql) const override { SqliteDb(db_path()).exec(sql); }
  std::string ghost_lock_sql(std::int64_t age_ms, std::int64_t ttl_ms) const override {
    return "INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host, "
           "executed_by) VALUES ('migronaut_lock', " +
           std::string(kSqliteNowMs) + " - " + std::to_string(age_ms) + ", " +
           std::to_string(ttl_ms) + ", 'ghost-run', 'ghost-nonce', 42, 'ghost-host', 'someone')";
  }

 private:
  std::filesystem::path db_path() const { return dir().file("app.db"); }
};

// The password is percent-encoded in the URI ('@' as %40); neither half may show anywhere.
constexpr const char* kPasswordInUri = "Zq9pw7%40Kx4tr";

class PostgresCaseProject final : public Project {
 public:
  explicit PostgresCaseProject(const std::string& case_name) {
    plain_uri_ = PgCluster::run_wide().fresh_schema_uri("postgres",
                                                        PgCluster::schema_name("bad_" + case_name));
    session_ = std::make_unique<PgSession>(plain_uri_);
  }

  std::string store() const override { return "postgres"; }
  std::string uri() const override {
    std::string with_password = plain_uri_;
    with_password.replace(with_password.find("postgres@"), 9,
                          std::string("postgres:") + kPasswordInUri + "@");
    return with_password;
  }
  std::vector<std::string> secrets() const override { return {"Zq9pw7", "Kx4tr"}; }

  std::string dump() const override {
    const std::string tables = value(
        "SELECT string_agg(table_name || ' ' || table_type, ',' ORDER BY table_name) FROM "
        "information_schema.tables WHERE table_schema = current_schema()");
    std::string dump;
    std::istringstream names(tables);
    for (std::string entry; std::getline(names, entry, ',');) {
      const std::string name = entry.substr(0, entry.find(' '));
      dump += entry + ": " +
              value(
                  "SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY "
                  "ordinal_position) FROM information_schema.columns WHERE table_schema = "
                  "current_schema() AND table_name = '" +
                  name + "'") +
              "\n" +
              value("SELECT string_agg(t::text, E'\\n' ORDER BY t::text) FROM \"" + name + "\" t") +
              "\n";
    }
    return dump;
  }
  std::string bytes() const override { return dump(); }
  void exec(const std::string& sql) const override { session_->value(sql); }
  std::string ghost_lock_sql(std::int64_t age_ms, std::int64_t ttl_ms) const override {
    return "INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host, "
           "executed_by) VALUES ('migronaut_lock', clock_timestamp() - interval '" +
           std::to_string(age_ms) + " milliseconds', " + std::to_string(ttl_ms) +
           ", 'ghost-run', 'ghost-nonce', 42, 'ghost-host', 'someone')";
  }

 private:
  std::string value(const std::string& sql) const { return session_->value(sql).value_or(""); }

  std::string plain_uri_;
  std::unique_ptr<PgSession> session_;
};

}  // namespace

Project::Project() : migrations_(dir_.file("migrations")), cwd_(dir_.file("cwd")) {
  std::filesystem::create_directories(migrations_);
  std::filesystem::create_directories(cwd_);
}

std::filesystem::path Project::write_migration(const std::string& name,
                                               const std::string& text) const {
  return dir_.write(migrations_ / name, text);
}

ProcessResult Project::run(const std::vector<std::string>& args, const Env& env,
                           const std::filesystem::path& dir, const std::string& uri) const {
  const std::filesystem::path folder = dir.empty() ? migrations_ : dir;
  std::vector<std::string> argv = {
      migronaut_binary(), "--no-env", "--uri", uri.empty() ? this->uri() : uri, "--dir",
      folder.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return Process(argv, env, cwd_).wait();
}

std::unique_ptr<Project> sqlite_project() { return std::make_unique<SqliteCaseProject>(); }

std::unique_ptr<Project> postgres_project(const std::string& case_name) {
  return std::make_unique<PostgresCaseProject>(case_name);
}

}  // namespace migronaut::testing

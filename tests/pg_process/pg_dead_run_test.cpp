// A transaction:false migration whose process was killed runs on in its server session until
// its statement ends. The next run re-runs the `applying` migration only once that session is
// gone: it terminates the dead run's sessions where its role may, and waits for them (bounded)
// where it may not. The real binary against a throwaway server; the dead statement is held by
// an advisory lock the test keeps, so everything waits on events, never on time.
#include <libpq-fe.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "support/eventually.hpp"
#include "support/pg_cluster.hpp"
#include "support/pgbouncer.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

constexpr std::string_view kSlowName = "20260101000002-slow.sql";
// One statement, outside a transaction, that waits for the test's advisory lock and then logs
// the backend that ran it. Idempotent, so a run that let the dead one finish adds nothing.
constexpr std::string_view kSlowMigration =
    "-- migrate:up transaction:false\n"
    "INSERT INTO log (id, pid) SELECT 1, pg_backend_pid()"
    " FROM (SELECT pg_advisory_xact_lock(4242)) AS gate ON CONFLICT (id) DO NOTHING;\n";

// The test's own session, holding the advisory lock the migration waits for.
class Gate {
 public:
  explicit Gate(const std::string& uri) : conn_(PQconnectdb(uri.c_str()), &PQfinish) {
    if (PQstatus(conn_.get()) != CONNECTION_OK) throw std::runtime_error("Gate: cannot connect");
    exec("SELECT pg_advisory_lock(4242)");
  }
  void open() { exec("SELECT pg_advisory_unlock(4242)"); }

 private:
  void exec(const char* sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_.get(), sql), &PQclear);
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) throw std::runtime_error(sql);
  }
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

class PgDeadRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = test_schema("dead_");
    uri_ = PgCluster::shared().fresh_schema_uri("postgres", schema_);
    dir_.write("20260101000001-log.sql",
               "-- migrate:up\nCREATE TABLE log (id int PRIMARY KEY, pid int NOT NULL);\n");
    dir_.write(std::string(kSlowName), kSlowMigration);
  }

  std::unique_ptr<Process> start_up(const std::string& uri,
                                    std::map<std::string, std::string> env = {}) const {
    return start(uri, {"up", "--no-wait"}, std::move(env));
  }
  std::unique_ptr<Process> start(const std::string& uri, const std::vector<std::string>& command,
                                 std::map<std::string, std::string> env = {}) const {
    env.emplace("MIGRONAUT_LOCK_POLL_INTERVAL_MS", "50");
    std::vector<std::string> args = {migronaut_binary(), "--no-env", "--uri", uri, "--dir"};
    args.push_back(dir_.path().string());
    args.insert(args.end(), command.begin(), command.end());
    return std::make_unique<Process>(std::move(args), std::move(env));
  }

  std::string value(const std::string& sql) const {
    return pg_query_value(uri_, sql).value_or("<null>");
  }
  // The backends waiting for the test's advisory lock, "" when none: "pid,pid".
  std::string gate_waiters() const {
    return pg_query_value(uri_,
                          "SELECT string_agg(pid::text, ',' ORDER BY pid) FROM pg_stat_activity"
                          " WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'")
        .value_or("");
  }
  bool alive(const std::string& pid) const {
    return value("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) == "1";
  }

  // Starts a run, kills it (kill -9) while its slow statement waits at the gate, and makes its
  // lock look dead on the server. Returns the dead run's backend, still running.
  std::string kill_holder_at_the_gate() {
    auto holder = start_up(run_uri_.empty() ? uri_ : run_uri_);
    EXPECT_TRUE(eventually([&] { return !gate_waiters().empty(); })) << holder->err_so_far();
    const std::string dead = gate_waiters();
    // The session carries its run's tag, which is how the next run finds it.
    EXPECT_EQ(value("SELECT application_name LIKE 'migronaut:%' FROM pg_stat_activity"
                    " WHERE pid = " +
                    dead),
              "t");
    holder->signal(SIGKILL);
    EXPECT_EQ(holder->wait().signal, SIGKILL);
    EXPECT_TRUE(alive(dead));
    EXPECT_EQ(value("SELECT status FROM _migronaut_migrations WHERE name = '" +
                    std::string(kSlowName) + "'"),
              "applying");
    value("UPDATE _migronaut_locks SET locked_at = locked_at - interval '1 day'");
    return dead;
  }

  // A role that may use migronaut's tables and the log but cannot signal the superuser's
  // backends; its URI.
  std::string unprivileged_uri() const {
    const std::string role = schema_ + "_peer";
    value("DROP ROLE IF EXISTS " + role + "; CREATE ROLE " + role +
          " LOGIN; GRANT USAGE ON SCHEMA " + schema_ + " TO " + role +
          "; GRANT ALL ON ALL TABLES IN SCHEMA " + schema_ + " TO " + role);
    std::string uri = uri_;
    uri.replace(uri.find("postgres@"), 8, role);
    return uri;
  }

  // Runs `up` through `run_uri` after a killed run (its backend `dead`): once the new run's own
  // statement waits at the gate, the dead one is gone and logged nothing; then the gate opens.
  // The new run's result, and its backend.
  std::pair<ProcessResult, std::string> rerun(const std::string& run_uri, const std::string& dead,
                                              Gate& gate) {
    auto next = start_up(run_uri);
    EXPECT_TRUE(eventually([&] {
      const std::string waiters = gate_waiters();
      return !waiters.empty() && waiters != dead;
    })) << next->err_so_far();
    const std::string own = gate_waiters();
    EXPECT_FALSE(alive(dead));
    EXPECT_EQ(value("SELECT count(*) FROM log"), "0");
    gate.open();
    ProcessResult result = next->wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return {std::move(result), own};
  }

  void expect_applied_once_by(const std::string& pid) const {
    EXPECT_EQ(value("SELECT string_agg(pid::text, ',') FROM log"), pid);
    EXPECT_EQ(value("SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"), "2");
    EXPECT_EQ(value("SELECT count(*) FROM _migronaut_locks"), "0");
  }

  TempDir dir_{"migronaut-pg-dead-run"};
  std::string schema_;
  std::string uri_;
  std::string run_uri_;  // where the killed run connects, when not uri_
};

// While its run lives and holds the lock, the `applying` mark is work in progress, not a
// crash's leftover: `status` says applying and `audit` only warns. Once the run is dead (killed,
// its lock past its TTL), the same mark is interrupted.
TEST_F(PgDeadRunTest, AMarkOfTheLiveHolderShowsAsApplyingAndOfADeadOneAsInterrupted) {
  Gate gate(uri_);
  auto holder = start_up(uri_);
  ASSERT_TRUE(eventually([&] { return !gate_waiters().empty(); })) << holder->err_so_far();
  const auto state = [&] {
    const ProcessResult status = run_migronaut(
        {"--no-env", "--json", "--uri", uri_, "--dir", dir_.path().string(), "status"});
    const nlohmann::json document = nlohmann::json::parse(status.out);
    for (const nlohmann::json& row : document.at("migrations")) {
      if (row.at("name") == kSlowName) return row.at("state").get<std::string>();
    }
    return "<absent from " + status.out + ">";
  };
  EXPECT_EQ(state(), "applying");
  const ProcessResult audit =
      run_migronaut({"--no-env", "--json", "--uri", uri_, "--dir", dir_.path().string(), "audit"});
  EXPECT_EQ(audit.exit_code, 0) << audit.out;
  EXPECT_NE(audit.out.find("being applied now"), std::string::npos) << audit.out;

  holder->signal(SIGKILL);
  EXPECT_EQ(holder->wait().signal, SIGKILL);
  value("UPDATE _migronaut_locks SET locked_at = locked_at - interval '1 day'");
  EXPECT_EQ(state(), "interrupted");
  gate.open();
}

// The same role: the next run terminates the dead statement before running its own.
TEST_F(PgDeadRunTest, TheNextRunEndsTheDeadRunsStatementBeforeRunningItAgain) {
  Gate gate(uri_);
  const std::string dead = kill_holder_at_the_gate();

  const auto [result, own] = rerun(uri_, dead, gate);
  EXPECT_NE(result.err.find("ended its sessions"), std::string::npos) << result.err;
  expect_applied_once_by(own);
}

// A role that may not end them waits, bounded: past its lock wait timeout it gives up with
// MIGRATION_BLOCKED (24), running nothing; given time, it re-runs once the dead one ended.
TEST_F(PgDeadRunTest, ARunThatMayNotEndTheDeadRunsStatementWaitsForIt) {
  Gate gate(uri_);
  const std::string dead = kill_holder_at_the_gate();
  const std::string peer = unprivileged_uri();

  auto impatient = start_up(peer, {{"MIGRONAUT_LOCK_WAIT_TIMEOUT_MS", "500"}});
  // Bounded well below the test's timeout: a run that did not wait would block at the gate.
  const std::optional<ProcessResult> gave_up = impatient->wait_for(std::chrono::seconds(30));
  ASSERT_TRUE(gave_up) << impatient->err_so_far();
  EXPECT_EQ(gave_up->exit_code, 24) << gave_up->err;
  EXPECT_NE(gave_up->err.find("not allowed to end them"), std::string::npos) << gave_up->err;
  EXPECT_EQ(gate_waiters(), dead);

  auto patient = start_up(peer);
  ASSERT_TRUE(eventually([&] {
    return patient->err_so_far().find("not allowed to end them") != std::string::npos;
  })) << patient->err_so_far();
  EXPECT_EQ(gate_waiters(), dead);  // the migration did not start again
  EXPECT_EQ(value("SELECT count(*) FROM log"), "0");

  gate.open();  // the dead statement finishes; its session, finding no client, ends
  const ProcessResult result = patient->wait();
  EXPECT_EQ(result.exit_code, 0) << result.err;
  expect_applied_once_by(dead);
}

// A down outside a transaction leaves a `reverting` mark, and a down that re-runs it after a
// killed one first ends the dead run's statement, as an up does after `applying`.
TEST_F(PgDeadRunTest, ADownRunAgainAfterAKilledOneEndsTheDeadRunsStatementFirst) {
  constexpr std::string_view kDropName = "20260101000003-drop.sql";
  dir_.write(std::string(kDropName),
             "-- migrate:up\nCREATE TABLE dropped (id int);\n\n"
             "-- migrate:down transaction:false\n"
             "INSERT INTO log (id, pid) SELECT 3, pg_backend_pid()"
             " FROM (SELECT pg_advisory_xact_lock(4242)) AS gate ON CONFLICT (id) DO NOTHING;\n"
             "DROP TABLE dropped;\n");
  ASSERT_EQ(start_up(uri_)->wait().exit_code, 0);
  Gate gate(uri_);
  const std::vector<std::string> down = {"down", std::string(kDropName)};
  auto killed = start(uri_, down);
  ASSERT_TRUE(eventually([&] { return !gate_waiters().empty(); })) << killed->err_so_far();
  const std::string dead = gate_waiters();
  killed->signal(SIGKILL);
  EXPECT_EQ(killed->wait().signal, SIGKILL);
  EXPECT_EQ(value("SELECT status FROM _migronaut_migrations WHERE name = '" +
                  std::string(kDropName) + "'"),
            "reverting");
  value("UPDATE _migronaut_locks SET locked_at = locked_at - interval '1 day'");

  auto again = start(uri_, down);
  ASSERT_TRUE(eventually([&] {
    const std::string waiters = gate_waiters();
    return !waiters.empty() && waiters != dead;
  })) << again->err_so_far();
  const std::string own = gate_waiters();
  EXPECT_FALSE(alive(dead));
  gate.open();
  const ProcessResult result = again->wait();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("ended its sessions"), std::string::npos) << result.err;
  EXPECT_EQ(value("SELECT string_agg(pid::text, ',') FROM log WHERE id = 3"), own);
  EXPECT_EQ(value("SELECT to_regclass('dropped') IS NULL"), "t");
  EXPECT_EQ(value("SELECT status FROM _migronaut_migrations WHERE name = '" +
                  std::string(kDropName) + "'"),
            "reverted");
  EXPECT_EQ(value("SELECT count(*) FROM _migronaut_locks"), "0");
}

// In transaction pooling the dead statement is a server backend of the pooler's, which carries
// the client's application_name: the next run finds it there and ends it.
TEST_F(PgDeadRunTest, ThroughPgBouncerTheNextRunEndsTheDeadRunsStatement) {
  if (!PgBouncer::binary()) GTEST_SKIP() << "pgbouncer is not installed (scripts/install-deps)";
  PgCluster& cluster = PgCluster::shared();
  cluster.drop_database("dead_run_bouncer");
  cluster.create_database("dead_run_bouncer");
  PgBouncer bouncer(cluster, "transaction");
  uri_ = cluster.uri("dead_run_bouncer");
  run_uri_ = bouncer.uri("dead_run_bouncer");
  Gate gate(uri_);
  const std::string dead = kill_holder_at_the_gate();

  const std::string own = rerun(run_uri_, dead, gate).second;
  expect_applied_once_by(own);
}

}  // namespace
}  // namespace migronaut::testing

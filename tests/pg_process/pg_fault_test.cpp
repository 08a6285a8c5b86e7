// Process-level fault tests: the real binary, a real server, and the database's final state
// checked after every fault (changelog rows, applied objects, no lock row left behind).
#include <arpa/inet.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "support/eventually.hpp"
#include "support/pg_cluster.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A migration held open by a gate: it loops while the `gate` table has a row, so the test
// decides when (and whether) its transaction may go on. The file never changes, so neither
// does its checksum, whichever run applies it.
constexpr std::string_view kGatedMigration =
    "-- migrate:up\n"
    "CREATE TABLE made_by_gated (id int);\n"
    "DO $$ BEGIN WHILE EXISTS (SELECT 1 FROM gate) LOOP PERFORM pg_sleep(0.05); END LOOP; "
    "END $$;\n"
    "INSERT INTO log (name) VALUES ('gated');\n";
constexpr std::string_view kGatedName = "20260101000002-gated.sql";

// A session of the test's own, for holding row locks across statements.
class PgSession {
 public:
  explicit PgSession(const std::string& uri) : conn_(PQconnectdb(uri.c_str()), &PQfinish) {
    if (PQstatus(conn_.get()) != CONNECTION_OK) {
      throw std::runtime_error(std::string("PgSession: ") + PQerrorMessage(conn_.get()));
    }
  }
  void exec(const std::string& sql) { run(sql); }
  // The first column of the first row ("" when there is none).
  std::string value(const std::string& sql) {
    const auto result = run(sql);
    return PQntuples(result.get()) > 0 ? PQgetvalue(result.get(), 0, 0) : "";
  }

 private:
  std::unique_ptr<PGresult, decltype(&PQclear)> run(const std::string& sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_.get(), sql.c_str()),
                                                         &PQclear);
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      throw std::runtime_error(sql + ": " + PQerrorMessage(conn_.get()));
    }
    return result;
  }

  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// The gated migration without a transaction: nothing fences it, only the heartbeat can.
constexpr std::string_view kGatedUnfenced =
    "-- migrate:up transaction:false\n"
    "DO $$ BEGIN WHILE EXISTS (SELECT 1 FROM gate) LOOP PERFORM pg_sleep(0.05); END LOOP; "
    "END $$;\n"
    "INSERT INTO log (name) VALUES ('gated');\n";

class PgFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string schema = test_schema("fault_");
    uri_ = PgCluster::shared().fresh_schema_uri("postgres", schema);
  }

  std::map<std::string, std::string> env(std::map<std::string, std::string> extra = {}) const {
    extra.emplace("MIGRONAUT_LOCK_POLL_INTERVAL_MS", "50");
    return extra;
  }
  std::vector<std::string> up_args(bool wait) const {
    std::vector<std::string> args{"--no-env", "--uri", uri_, "--dir", dir_.path().string(), "up"};
    args.emplace_back(wait ? "--wait" : "--no-wait");
    return args;
  }
  std::unique_ptr<Process> start_up(bool wait, std::map<std::string, std::string> extra = {}) {
    std::vector<std::string> argv{migronaut_binary()};
    for (std::string& arg : up_args(wait)) argv.push_back(std::move(arg));
    return std::make_unique<Process>(std::move(argv), env(std::move(extra)));
  }

  std::string value(const std::string& sql) const {
    return pg_query_value(uri_, sql).value_or("<null>");
  }
  int count(const std::string& sql) const { return std::stoi(value(sql)); }
  bool lock_row_exists() const { return count("SELECT count(*) FROM _migronaut_locks") > 0; }
  int applied(std::string_view name) const {
    return count(
        "SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied' AND name = '" +
        std::string(name) + "'");
  }
  bool table_exists(const std::string& table) const {
    return value("SELECT to_regclass('" + table + "') IS NOT NULL") == "t";
  }
  // The lock row's progress names `migration` (its holder is inside it).
  bool holder_is_in(std::string_view migration) const {
    return pg_query_value(uri_, "SELECT migration FROM _migronaut_locks") ==
           std::optional<std::string>(migration);
  }
  // The backend running the gated migration, by the query it is running.
  std::string gated_backend() const {
    return value(
        "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
        " AND query LIKE '%FROM gate%' AND query NOT LIKE '%pg_stat_activity%'");
  }
  bool gated_backend_gone() const { return gated_backend() == "<null>"; }

  // A log table, a gate that is closed, and the gated migration (`gated`, kGatedMigration's text
  // or kGatedUnfenced's) after the one creating them.
  void write_gated_set(std::string_view gated = kGatedMigration) {
    dir_.write("20260101000001-log.sql",
               "-- migrate:up\nCREATE TABLE log (name text NOT NULL);\n"
               "INSERT INTO log (name) VALUES ('log');\n");
    dir_.write(std::string(kGatedName), std::string(gated));
    pg_query_value(uri_, "CREATE TABLE gate (closed int); INSERT INTO gate VALUES (1)");
  }
  void open_gate() const { pg_query_value(uri_, "DELETE FROM gate"); }

  void expect_gated_set_applied_once() const {
    EXPECT_EQ(applied("20260101000001-log.sql"), 1);
    EXPECT_EQ(applied(kGatedName), 1);
    EXPECT_EQ(count("SELECT count(*) FROM log WHERE name = 'gated'"), 1);
    EXPECT_TRUE(table_exists("made_by_gated"));
    EXPECT_FALSE(lock_row_exists());
  }

  TempDir dir_{"migronaut-pg-fault"};
  std::string uri_;
};

// A refused password is no server still starting: `up --wait` reports it at once (exit 5) instead
// of logging in again and again for its whole budget, and never shows the password.
TEST(PgAuthTest, ARefusedPasswordIsReportedAtOnceInsteadOfWaitedOut) {
  PgCluster cluster;  // its own: its pg_hba.conf asks one role for a password
  PgSession(cluster.uri("postgres")).exec("CREATE ROLE app LOGIN PASSWORD 'right-one'");
  const std::filesystem::path hba = cluster.directory() / "data" / "pg_hba.conf";
  std::ifstream in(hba);
  const std::string rules((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(hba) << "host all app 127.0.0.1/32 scram-sha-256\n" << rules;
  PgSession(cluster.uri("postgres")).exec("SELECT pg_reload_conf()");
  TempDir dir("migronaut-refused-password");
  dir.write("20260101000001-t.sql", "-- migrate:up\nCREATE TABLE t (id int);\n");
  const std::string uri =
      "postgres://app:wrong-one@127.0.0.1:" + std::to_string(cluster.port()) + "/postgres";

  Process run({migronaut_binary(), "--no-env", "--json", "--uri", uri, "--dir", dir.path().string(),
               "up", "--wait", "--wait-timeout", "10m"});
  const std::optional<ProcessResult> result = run.wait_for(seconds(60));
  ASSERT_TRUE(result.has_value()) << "still waiting out a refused password";
  EXPECT_EQ(result->exit_code, 5) << result->err;
  EXPECT_NE(result->out.find("password authentication failed"), std::string::npos) << result->out;
  EXPECT_EQ(result->out.find("timedOut"), std::string::npos) << result->out;
  EXPECT_EQ((result->out + result->err).find("wrong-one"), std::string::npos);
  EXPECT_EQ(PgSession(cluster.uri("postgres"))
                .value("SELECT count(*) FROM pg_class WHERE relname LIKE '_migronaut%'"),
            "0");

  // A replica's `wait` gives up on it as at once.
  Process wait({migronaut_binary(), "--no-env", "--json", "--uri", uri, "--dir",
                dir.path().string(), "wait", "--timeout", "10m"});
  const std::optional<ProcessResult> waited = wait.wait_for(seconds(60));
  ASSERT_TRUE(waited.has_value()) << "wait is still waiting out a refused password";
  EXPECT_EQ(waited->exit_code, 5) << waited->err;
  EXPECT_NE(waited->out.find("password authentication failed"), std::string::npos) << waited->out;
}

// A "server" on 127.0.0.1 that completes TCP handshakes (the kernel does, into the backlog) but
// never accepts nor answers: libpq's connection to it hangs until the client gives up.
class SilentListener {
 public:
  SilentListener() : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(fd_, kBacklog) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("SilentListener: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(address.sin_port);
  }
  ~SilentListener() { close(fd_); }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;

  int port() const { return port_; }
  // How many connections came and wait in the backlog (accepted now, without blocking).
  int connections() const {
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
    int count = 0;
    for (int client; (client = accept(fd_, nullptr, nullptr)) >= 0; ++count) close(client);
    return count;
  }

 private:
  static constexpr int kBacklog = 64;
  int fd_;
  int port_ = 0;
};

// A database whose connections hang is waited for within the budget, connecting included:
// `up --wait --wait-timeout 3s` and `wait --timeout 3s` give up (exit 5, as for any database not
// reached in time) by the budget and a second of slack, not the 10 s libpq's connect timeout
// would add, and say the budget ran out while connecting.
TEST(PgConnectHangTest, TheWaitBudgetBoundsAConnectionThatHangs) {
  constexpr auto kBudget = milliseconds(3000);
  const std::vector<std::vector<std::string>> commands = {{"up", "--wait", "--wait-timeout", "3s"},
                                                          {"wait", "--timeout", "3s"}};
  for (const std::vector<std::string>& command : commands) {
    SCOPED_TRACE(command.front());
    SilentListener listener;
    TempDir dir("migronaut-connect-hang");
    dir.write("20260101000001-t.sql", "-- migrate:up\nCREATE TABLE t (id int);\n");
    std::vector<std::string> argv{
        migronaut_binary(),
        "--no-env",
        "--uri",
        "postgres://app@127.0.0.1:" + std::to_string(listener.port()) + "/app",
        "--dir",
        dir.path().string()};
    argv.insert(argv.end(), command.begin(), command.end());
    const auto started = std::chrono::steady_clock::now();
    Process run(argv);
    const std::optional<ProcessResult> result = run.wait_for(seconds(60));
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_TRUE(result.has_value()) << "still connecting after 60 s";
    EXPECT_EQ(result->exit_code, 5) << result->err;
    EXPECT_GE(took, kBudget);
    EXPECT_LT(took, kBudget + milliseconds(2500))
        << std::chrono::duration_cast<milliseconds>(took).count() << " ms\n"
        << result->err;
    EXPECT_NE(result->err.find("budget ran out while connecting"), std::string::npos)
        << result->err;
    EXPECT_GE(listener.connections(), 1);  // it did reach the listener, and hung there
  }
}

TEST_F(PgFaultTest, ThirtyConcurrentWaitingRunsApplyEachMigrationOnce) {
  dir_.write("20260101000001-log.sql",
             "-- migrate:up\nCREATE TABLE log (name text NOT NULL);\n"
             "INSERT INTO log (name) VALUES ('one');\n");
  dir_.write("20260101000002-two.sql", "-- migrate:up\nINSERT INTO log (name) VALUES ('two');\n");
  dir_.write("20260101000003-three.sql",
             "-- migrate:up\nINSERT INTO log (name) VALUES ('three');\n");

  std::vector<std::unique_ptr<Process>> runs;
  for (int i = 0; i < 30; ++i) runs.push_back(start_up(/*wait=*/true));
  for (auto& run : runs) {
    const ProcessResult result = run->wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }

  for (const char* name : {"one", "two", "three"}) {
    EXPECT_EQ(count(std::string("SELECT count(*) FROM log WHERE name = '") + name + "'"), 1)
        << name;
  }
  EXPECT_EQ(count("SELECT count(*) FROM log"), 3);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"), 3);
  EXPECT_EQ(count("SELECT count(DISTINCT run_id) FROM _migronaut_migrations"), 1);
  EXPECT_FALSE(lock_row_exists());
}

// A fleet waiting out one run must not cost the server two connections per instance: the
// waiter reads, checks and polls through its lock connection alone — no poll opens another —
// and still finishes the work.
TEST_F(PgFaultTest, AWaiterHoldsOneConnectionWhileItWaits) {
  // A database of its own: its session count sees this test's connections only.
  uri_ = PgCluster::shared().fresh_schema_uri("waiter_sessions", "one_connection");
  write_gated_set();
  auto holder = start_up(/*wait=*/false);
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();

  const std::string name = "waiter_one_connection";
  std::vector<std::string> argv{
      migronaut_binary(),   "--no-env", "--uri", uri_ + "&application_name=" + name, "--dir",
      dir_.path().string(), "up",       "--wait"};
  Process waiter(std::move(argv), env());
  ASSERT_TRUE(eventually([&] {
    return waiter.err_so_far().find("waiting for the lock") != std::string::npos;
  })) << waiter.err_so_far();
  const std::string of_waiter = "FROM pg_stat_activity WHERE application_name = '" + name + "'";
  EXPECT_TRUE(eventually([&] { return count("SELECT count(*) " + of_waiter) == 1; }))
      << count("SELECT count(*) " + of_waiter) << " connections";

  // Three polls later the database has seen no new session: the observer's own is counted
  // before the first look (a backend reports its session when it first goes idle).
  PgSession observer(uri_);
  observer.exec("SELECT 1");
  const std::string sessions =
      "SELECT sessions FROM pg_stat_database WHERE datname = current_database()";
  const std::string before = observer.value(sessions);
  std::string last_query = observer.value("SELECT query_start " + of_waiter);
  for (int poll = 0; poll < 3; ++poll) {
    ASSERT_TRUE(eventually([&] {
      const std::string query_start = observer.value("SELECT query_start " + of_waiter);
      return query_start != last_query && (last_query = query_start, true);
    })) << waiter.err_so_far();
  }
  EXPECT_EQ(observer.value(sessions), before) << "a poll opened a connection";
  EXPECT_TRUE(holder_is_in(kGatedName));  // still waiting, not done

  open_gate();
  const ProcessResult held = holder->wait();
  EXPECT_EQ(held.exit_code, 0) << held.err;
  const ProcessResult waited = waiter.wait();
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  expect_gated_set_applied_once();
}

// A waiter that takes the lock leaves the lock connection to its heartbeat: the run reads the
// changelog and runs its migrations on a main connection it opens again, never on the lock's
// from the main thread while the heartbeat may renew on it.
TEST_F(PgFaultTest, AWaiterThatTakesTheLockRunsOnItsOwnConnection) {
  uri_ = PgCluster::shared().fresh_schema_uri("waiter_hands_over", "hand_over");
  write_gated_set();
  auto holder = start_up(/*wait=*/false);
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  // Work only the waiter has (the holder loaded the folder before this file was written): a
  // migration behind a second gate.
  pg_query_value(uri_, "CREATE TABLE second_gate (closed int); INSERT INTO second_gate VALUES (1)");
  dir_.write("20260101000003-second.sql",
             "-- migrate:up\nDO $$ BEGIN WHILE EXISTS (SELECT 1 FROM second_gate) LOOP "
             "PERFORM pg_sleep(0.05); END LOOP; END $$;\n");
  const std::string name = "waiter_hand_over";
  Process waiter({migronaut_binary(), "--no-env", "--uri", uri_ + "&application_name=" + name,
                  "--dir", dir_.path().string(), "up", "--wait"},
                 env());
  ASSERT_TRUE(eventually([&] {
    return waiter.err_so_far().find("waiting for the lock") != std::string::npos;
  })) << waiter.err_so_far();
  open_gate();
  EXPECT_EQ(holder->wait().exit_code, 0);

  // Its main session, running a migration, carries the run's tag after the name.
  const std::string of_waiter =
      " FROM pg_stat_activity WHERE application_name LIKE '" + name + "%' AND ";
  ASSERT_TRUE(eventually([&] {
    return count("SELECT count(*)" + of_waiter + "query LIKE '%FROM second_gate%'") == 1;
  })) << waiter.err_so_far();
  // Its other connection, the lock's, last ran a lock statement, not the changelog read under
  // the lock (that read comes just before the migration, so it would still show).
  const std::string lock_query =
      value("SELECT query" + of_waiter + "query NOT LIKE '%second_gate%'");
  EXPECT_EQ(lock_query.find("_migronaut_migrations"), std::string::npos) << lock_query;
  EXPECT_NE(lock_query, "<null>");  // the lock connection is there, still held

  pg_query_value(uri_, "DELETE FROM second_gate");
  const ProcessResult waited = waiter.wait();
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_EQ(applied("20260101000003-second.sql"), 1);
  expect_gated_set_applied_once();
}

// A waiter reads the changelog through its lock connection, whose statements are bounded for
// the heartbeat (a quarter of the renewal interval: 250 ms with a 2 s TTL). A read the bound
// cuts short is read again on a main connection, which waits as long as it takes.
TEST_F(PgFaultTest, AWaiterReadsTheChangelogAgainWhenTheLockConnectionsBoundCutsItShort) {
  uri_ = PgCluster::shared().fresh_schema_uri("waiter_reads_again", "read_again");
  write_gated_set();
  const std::map<std::string, std::string> short_ttl{{"MIGRONAUT_LOCK_TTL", "2"}};
  auto holder = start_up(/*wait=*/false, short_ttl);
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  const std::string name = "waiter_read_again";
  Process waiter({migronaut_binary(), "--no-env", "--uri", uri_ + "&application_name=" + name,
                  "--dir", dir_.path().string(), "up", "--wait"},
                 env(short_ttl));
  ASSERT_TRUE(eventually([&] {
    return waiter.err_so_far().find("waiting for the lock") != std::string::npos;
  })) << waiter.err_so_far();

  // The changelog locked: the waiter's next read on its lock connection hits the bound, and a
  // second connection of its own then waits for the table.
  PgSession blocker(uri_);
  blocker.exec("BEGIN; LOCK TABLE _migronaut_migrations IN ACCESS EXCLUSIVE MODE");
  const std::string of_waiter = " FROM pg_stat_activity WHERE application_name = '" + name + "'";
  EXPECT_TRUE(eventually([&] {
    return count("SELECT count(*)" + of_waiter) == 2 &&
           count("SELECT count(*)" + of_waiter + " AND wait_event_type = 'Lock'") == 1;
  })) << waiter.err_so_far();
  blocker.exec("COMMIT");

  open_gate();
  EXPECT_EQ(holder->wait().exit_code, 0);
  const ProcessResult waited = waiter.wait();
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  expect_gated_set_applied_once();
}

TEST_F(PgFaultTest, KilledHolderRollsBackAndALaterRunReclaimsAfterTheTtl) {
  write_gated_set();
  auto holder = start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "2"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  ASSERT_TRUE(eventually([&] { return !gated_backend_gone(); }));
  holder->signal(SIGKILL);
  EXPECT_EQ(holder->wait().signal, SIGKILL);

  // The server notices the dead client and rolls its transaction back by itself; the gate
  // stays closed, so nothing but that rollback can end the backend.
  ASSERT_TRUE(eventually([&] { return gated_backend_gone(); }));
  EXPECT_FALSE(table_exists("made_by_gated"));
  EXPECT_EQ(applied(kGatedName), 0);
  EXPECT_TRUE(lock_row_exists());  // a dead holder cannot release; its TTL will

  open_gate();
  const ProcessResult rerun =
      run_migronaut(up_args(/*wait=*/true), env({{"MIGRONAUT_LOCK_TTL", "2"}}));
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  expect_gated_set_applied_once();
}

TEST_F(PgFaultTest, StoppedHolderPastItsTtlCommitsNothingAndReportsLockLost) {
  write_gated_set();
  auto first = start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "2"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << first->err_so_far();
  const std::string first_owner = value("SELECT owner FROM _migronaut_locks");
  first->signal(SIGSTOP);

  // The second run reclaims once the stopped holder's lease runs out; the gate holds both
  // transactions until then, so the first one's fencing check runs after the reclaim.
  auto second = start_up(/*wait=*/true, {{"MIGRONAUT_LOCK_TTL", "2"}});
  ASSERT_TRUE(eventually([&] {
    const std::string owner = value("SELECT owner FROM _migronaut_locks");
    return owner != first_owner && owner != "<null>";
  })) << second->err_so_far();
  const std::string second_owner = value("SELECT owner FROM _migronaut_locks");
  open_gate();
  const ProcessResult second_result = second->wait();
  EXPECT_EQ(second_result.exit_code, 0) << second_result.err;

  first->signal(SIGCONT);
  const ProcessResult first_result = first->wait();
  EXPECT_EQ(first_result.exit_code, 10) << first_result.err;

  expect_gated_set_applied_once();
  EXPECT_EQ(value("SELECT run_id FROM _migronaut_migrations WHERE name = '" +
                  std::string(kGatedName) + "'"),
            second_owner);
}

TEST_F(PgFaultTest, TerminatedBackendFailsTheRunAndARerunCompletes) {
  write_gated_set();
  auto run = start_up(/*wait=*/false);
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << run->err_so_far();
  ASSERT_TRUE(eventually([&] { return !gated_backend_gone(); }));
  EXPECT_EQ(value("SELECT pg_terminate_backend(" + gated_backend() + ")"), "t");

  const ProcessResult failed = run->wait();
  EXPECT_TRUE(failed.exit_code == 5 || failed.exit_code == 10) << failed.exit_code << failed.err;
  EXPECT_NE(failed.err.find("lost the connection"), std::string::npos) << failed.err;
  EXPECT_FALSE(table_exists("made_by_gated"));
  EXPECT_EQ(applied(kGatedName), 0);

  open_gate();
  const ProcessResult rerun = run_migronaut(up_args(/*wait=*/true), env());
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  expect_gated_set_applied_once();
}

TEST_F(PgFaultTest, ServerRestartFailsTheRunAndARerunAppliesEverything) {
  write_gated_set();
  auto run = start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "2"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << run->err_so_far();
  ASSERT_TRUE(eventually([&] { return !gated_backend_gone(); }));
  PgCluster::shared().restart();

  const ProcessResult failed = run->wait();
  EXPECT_EQ(failed.exit_code, 5) << failed.err;
  EXPECT_NE(failed.err.find("lost the connection"), std::string::npos) << failed.err;
  EXPECT_FALSE(table_exists("made_by_gated"));
  EXPECT_EQ(applied(kGatedName), 0);

  open_gate();
  const ProcessResult rerun =
      run_migronaut(up_args(/*wait=*/true), env({{"MIGRONAUT_LOCK_TTL", "2"}}));
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  expect_gated_set_applied_once();
}

// Issue 9: a session holding the lock row FOR UPDATE blocks every renewal. The renewal's
// lock_timeout makes each one a failure, the watchdog declares the lock lost within the TTL,
// and the holder — in a migration nothing fences — starts no further migration. A peer then
// applies the rest, exactly once.
TEST_F(PgFaultTest, RenewalsBlockedByARowLockLoseTheLockAndStartNoFurtherMigration) {
  dir_.write("20260101000001-log.sql",
             "-- migrate:up\nCREATE TABLE log (name text NOT NULL);\n"
             "INSERT INTO log (name) VALUES ('log');\n");
  dir_.write(std::string(kGatedName), kGatedUnfenced);
  dir_.write("20260101000003-after.sql",
             "-- migrate:up\nINSERT INTO log (name) VALUES ('after');\n");
  pg_query_value(uri_, "CREATE TABLE gate (closed int); INSERT INTO gate VALUES (1)");

  auto holder = start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "2"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  PgSession blocker(uri_);
  blocker.exec("BEGIN");
  blocker.exec("SELECT * FROM _migronaut_locks FOR UPDATE");
  ASSERT_TRUE(eventually(
      [&] { return holder->err_so_far().find("Lost the migration lock") != std::string::npos; },
      seconds(10)))
      << holder->err_so_far();
  blocker.exec("COMMIT");
  open_gate();
  const ProcessResult lost = holder->wait();
  EXPECT_EQ(lost.exit_code, 10) << lost.err;
  EXPECT_EQ(count("SELECT count(*) FROM log WHERE name = 'after'"), 0);

  const ProcessResult peer =
      run_migronaut(up_args(/*wait=*/true), env({{"MIGRONAUT_LOCK_TTL", "2"}}));
  EXPECT_EQ(peer.exit_code, 0) << peer.err;
  EXPECT_EQ(count("SELECT count(*) FROM log WHERE name = 'gated'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM log WHERE name = 'after'"), 1);
  EXPECT_EQ(applied("20260101000003-after.sql"), 1);
  EXPECT_FALSE(lock_row_exists());
}

// A lock connection whose server takes the renewal and never answers (its backend stopped, as a
// hung proxy or a black-holed path would leave it): the renewal gives up at its own bound, the
// lease is lost, and the run stops after the migration in flight instead of hanging for ever.
TEST_F(PgFaultTest, ALockConnectionThatNeverAnswersLosesTheLockInsteadOfHanging) {
  write_gated_set();
  dir_.write("20260101000003-after.sql",
             "-- migrate:up\nINSERT INTO log (name) VALUES ('after');\n");
  auto holder = start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "2"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  // The lock connection keeps the default name (the migration's carries the run's); stopped
  // between renewals, so that it holds no row lock the migration's fence would queue behind.
  pid_t backend = 0;
  ASSERT_TRUE(eventually([&] {
    backend =
        std::stoi(value("SELECT coalesce(min(pid), 0) FROM pg_stat_activity WHERE "
                        "application_name = 'migronaut' AND pid <> pg_backend_pid()"));
    if (backend == 0 || kill(backend, SIGSTOP) != 0) return false;
    if (value("SELECT state FROM pg_stat_activity WHERE pid = " + std::to_string(backend)) ==
        "idle") {
      return true;
    }
    kill(backend, SIGCONT);
    return false;
  }));
  struct Resume {
    pid_t pid;
    ~Resume() { kill(pid, SIGCONT); }
  } resume{backend};
  ASSERT_TRUE(eventually(
      [&] { return holder->err_so_far().find("Lost the migration lock") != std::string::npos; },
      seconds(20)))
      << holder->err_so_far();
  open_gate();
  const std::optional<ProcessResult> lost = holder->wait_for(seconds(30));
  ASSERT_TRUE(lost.has_value()) << "still waiting for the stopped backend: "
                                << holder->err_so_far();
  EXPECT_EQ(lost->exit_code, 10) << lost->err;
  EXPECT_EQ(count("SELECT count(*) FROM log WHERE name = 'after'"), 0);
  EXPECT_EQ(applied("20260101000003-after.sql"), 0);
}

// A run that takes over a stalled holder's lock ends the holder's statement outside a
// transaction: the holder, woken, reports the lost lock (exit 10), not a network failure.
TEST_F(PgFaultTest, AHolderWhoseStatementTheReclaimerEndedReportsTheLostLock) {
  write_gated_set(kGatedUnfenced);
  auto holder = start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "10"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  ASSERT_FALSE(gated_backend_gone());
  const std::string holder_owner = value("SELECT owner FROM _migronaut_locks");
  // The holder's lease aged on the server between its renewals (every 5 s), until the peer,
  // polling every 50 ms, takes it over.
  auto peer = start_up(/*wait=*/true, {{"MIGRONAUT_LOCK_TTL", "10"}});
  ASSERT_TRUE(eventually(
      [&] {
        pg_query_value(uri_,
                       "UPDATE _migronaut_locks SET locked_at = now() - interval '1 hour' "
                       "WHERE owner = '" +
                           holder_owner + "'");
        const std::string owner = value("SELECT owner FROM _migronaut_locks");
        return owner != holder_owner && owner != "<null>";
      },
      seconds(20)))
      << peer->err_so_far();
  const std::optional<ProcessResult> lost = holder->wait_for(seconds(30));
  ASSERT_TRUE(lost.has_value()) << holder->err_so_far();
  EXPECT_EQ(lost->exit_code, 10) << lost->err;
  open_gate();
  const ProcessResult done = peer->wait();
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_EQ(applied(kGatedName), 1);
  EXPECT_FALSE(lock_row_exists());
}

// Waiters survive a server restart: they reconnect with backoff inside their budget, reclaim
// the dead holder's lease after its TTL and finish — every one of them exits 0.
TEST_F(PgFaultTest, TenWaitersSurviveAServerRestartAndAllExitZero) {
  write_gated_set();
  auto holder = start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "2"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  std::vector<std::unique_ptr<Process>> waiters;
  for (int i = 0; i < 10; ++i) {
    waiters.push_back(start_up(/*wait=*/true, {{"MIGRONAUT_LOCK_TTL", "2"}}));
  }
  // Every waiter has met the held lock before the restart.
  for (auto& waiter : waiters) {
    ASSERT_TRUE(eventually([&] {
      return waiter->err_so_far().find("waiting") != std::string::npos;
    })) << waiter->err_so_far();
  }
  PgCluster::shared().restart();
  open_gate();

  EXPECT_EQ(holder->wait().exit_code, 5);
  for (auto& waiter : waiters) {
    const ProcessResult result = waiter->wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }
  expect_gated_set_applied_once();
}

// A transaction:false migration killed midway leaves `applying`, which status shows as
// interrupted once the dead run's lease has expired (aged here on the server).
TEST_F(PgFaultTest, AKilledNonTransactionalMigrationShowsAsInterrupted) {
  dir_.write("20260101000001-log.sql", "-- migrate:up\nCREATE TABLE log (name text NOT NULL);\n");
  dir_.write(std::string(kGatedName), kGatedUnfenced);
  pg_query_value(uri_, "CREATE TABLE gate (closed int); INSERT INTO gate VALUES (1)");
  auto holder = start_up(/*wait=*/false);
  ASSERT_TRUE(eventually([&] { return !gated_backend_gone(); })) << holder->err_so_far();
  holder->signal(SIGKILL);
  EXPECT_EQ(holder->wait().signal, SIGKILL);
  // Outside a transaction the server only notices the dead client once the statement ends.
  open_gate();
  ASSERT_TRUE(eventually([&] { return gated_backend_gone(); }));

  EXPECT_EQ(value("SELECT status FROM _migronaut_migrations WHERE name = '" +
                  std::string(kGatedName) + "'"),
            "applying");
  value("UPDATE _migronaut_locks SET locked_at = locked_at - interval '1 day'");
  const ProcessResult status = run_migronaut(
      {"--no-env", "--json", "--uri", uri_, "--dir", dir_.path().string(), "status"}, env());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("\"interrupted\""), std::string::npos) << status.out;
}

// timeoutMs cancels the running statement on the server and fails the migration with 14; the
// transaction rolls back and the failure is recorded.
TEST_F(PgFaultTest, AMigrationPastItsTimeoutIsCancelledAndFailsWith14) {
  write_gated_set();
  const ProcessResult result =
      run_migronaut(up_args(/*wait=*/false), env({{"MIGRONAUT_TIMEOUT_MS", "500"}}));
  EXPECT_EQ(result.exit_code, 14) << result.err;
  EXPECT_FALSE(table_exists("made_by_gated"));
  EXPECT_EQ(value("SELECT status FROM _migronaut_migrations WHERE name = '" +
                  std::string(kGatedName) + "'"),
            "failed");
  EXPECT_TRUE(gated_backend_gone());
  EXPECT_FALSE(lock_row_exists());
}

// Everything applied, but the release could not delete the lock row (a session holds it FOR
// KEY SHARE, which blocks a DELETE but neither the renewals nor the fence): LOCK_RELEASE_FAILED
// (21) once the release's lock_timeout passes, with what the run applied in its context; the
// row heals by its TTL.
TEST_F(PgFaultTest, AFailedReleaseReportsLockReleaseFailedWithTheAppliedResults) {
  write_gated_set();
  std::vector<std::string> args = up_args(/*wait=*/false);
  args.insert(args.begin(), "--json");
  std::vector<std::string> argv{migronaut_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto holder = std::make_unique<Process>(argv, env({{"MIGRONAUT_LOCK_TTL", "4"}}));
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  PgSession blocker(uri_);
  blocker.exec("BEGIN");
  blocker.exec("SELECT * FROM _migronaut_locks FOR KEY SHARE");
  open_gate();
  const ProcessResult result = holder->wait();
  blocker.exec("COMMIT");
  EXPECT_EQ(result.exit_code, 21) << result.err;
  EXPECT_NE(result.out.find("LOCK_RELEASE_FAILED"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(std::string(kGatedName)), std::string::npos) << result.out;
  EXPECT_EQ(applied(kGatedName), 1);
  EXPECT_TRUE(lock_row_exists());
}

// onLockLost: warn only reports the loss: the run goes on and applies everything.
TEST_F(PgFaultTest, OnLockLostWarnReportsTheLossAndCarriesOn) {
  dir_.write("20260101000001-log.sql", "-- migrate:up\nCREATE TABLE log (name text NOT NULL);\n");
  dir_.write(std::string(kGatedName), kGatedUnfenced);
  dir_.write("20260101000003-after.sql",
             "-- migrate:up\nINSERT INTO log (name) VALUES ('after');\n");
  pg_query_value(uri_, "CREATE TABLE gate (closed int); INSERT INTO gate VALUES (1)");
  auto holder =
      start_up(/*wait=*/false, {{"MIGRONAUT_LOCK_TTL", "2"}, {"MIGRONAUT_ON_LOCK_LOST", "warn"}});
  ASSERT_TRUE(eventually([&] { return holder_is_in(kGatedName); })) << holder->err_so_far();
  PgSession blocker(uri_);
  blocker.exec("BEGIN");
  blocker.exec("SELECT * FROM _migronaut_locks FOR UPDATE");
  ASSERT_TRUE(eventually(
      [&] { return holder->err_so_far().find("Lost the migration lock") != std::string::npos; },
      seconds(10)))
      << holder->err_so_far();
  blocker.exec("COMMIT");
  open_gate();
  const ProcessResult result = holder->wait();
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(count("SELECT count(*) FROM log WHERE name = 'after'"), 1);
  EXPECT_EQ(applied("20260101000003-after.sql"), 1);
}

}  // namespace
}  // namespace migronaut::testing

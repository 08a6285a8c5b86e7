// The real `migronaut` binary in separate processes against one SQLite file: concurrent boots,
// a holder killed mid-migration, graceful and hard stops by signal (of a run, a waiter and a
// prompt), lock contention, every command end to end and a failing migration. Each test checks
// the database it leaves.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "process/sqlite_project.hpp"
#include "support/table_collision.hpp"

namespace migronaut::testing {
namespace {

using std::chrono::milliseconds;
using Statuses = std::map<std::string, std::string>;

// Busy for a few seconds inside the up section (and so inside its transaction) before it
// records itself: long enough to signal or kill the process while it runs.
constexpr const char* kSlowFirst = R"(-- migrate:up
CREATE TABLE applied_log (name TEXT NOT NULL);
WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 10000000)
SELECT count(*) FROM counter;
INSERT INTO applied_log VALUES ('m1');
-- migrate:down
DROP TABLE applied_log;
)";
constexpr const char* kFastSecond = R"(-- migrate:up
INSERT INTO applied_log VALUES ('m2');
-- migrate:down
DELETE FROM applied_log WHERE name = 'm2';
)";

// A short TTL and poll interval keep reclaiming and waiting fast.
const Env kFastLock = {{"MIGRONAUT_LOCK_TTL", "2"}, {"MIGRONAUT_LOCK_POLL_INTERVAL_MS", "50"}};

nlohmann::json json_of(const ProcessResult& result) {
  try {
    return nlohmann::json::parse(result.out);
  } catch (const nlohmann::json::exception&) {
    ADD_FAILURE() << "not JSON on stdout: " << result.out << "\nstderr: " << result.err;
    return nlohmann::json::object();
  }
}

class SqliteProcessTest : public ::testing::Test {
 protected:
  // 0001-first.sql applied, 0002-second.sql pending, and the lock held by a live foreign run
  // (elsewhere pid 4242, renewed now) with a TTL of `ttl_ms`.
  void second_pending_under_a_foreign_lock(std::int64_t ttl_ms) {
    project.write_migration("0001-first.sql", "-- migrate:up\nCREATE TABLE first (id INTEGER);\n");
    ASSERT_EQ(project.run({"up"}).exit_code, 0);
    project.write_migration("0002-second.sql",
                            "-- migrate:up\nCREATE TABLE second (id INTEGER);\n");
    project.open().exec(
        std::string("INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host,"
                    " executed_by) VALUES ('migronaut_lock', ") +
        kSqliteNowMs + ", " + std::to_string(ttl_ms) +
        ", 'foreign-run', 'foreign-nonce', 4242, 'elsewhere', 'ops')");
  }

  // 0001-first.sql applied and 0002-second.sql pending, while a writer that is no migronaut run
  // (a sqlite3 shell's BEGIN IMMEDIATE) holds the file's write slot: its connection.
  std::unique_ptr<SqliteDb> second_pending_behind_a_foreign_writer() {
    project.write_migration("0001-first.sql", "-- migrate:up\nCREATE TABLE first (id INTEGER);\n");
    EXPECT_EQ(project.run({"up"}).exit_code, 0);
    project.write_migration("0002-second.sql",
                            "-- migrate:up\nCREATE TABLE second (id INTEGER);\n");
    auto shell = std::make_unique<SqliteDb>(project.db_path());
    shell->exec("BEGIN IMMEDIATE; CREATE TABLE shell_work (id INTEGER)");
    return shell;
  }

  // The applied_log rows, sorted: each migration that committed adds its name once.
  std::vector<std::string> applied_log() const {
    std::vector<std::string> names;
    if (!project.exists()) return names;
    SqliteDb db = project.open();
    if (!db.has_table("applied_log")) return names;
    for (const Row& row : db.rows("SELECT name FROM applied_log ORDER BY name")) {
      names.push_back(row[0]);
    }
    return names;
  }

  // Starts `args` and waits until the lock record says the run is on `migration`.
  std::unique_ptr<Process> start_and_wait_for(const std::vector<std::string>& args,
                                              const std::string& migration,
                                              const Env& env = kFastLock) {
    auto process = project.start(args, env);
    const bool on_it = eventually([&] {
      const auto lock = project.lock_row();
      return lock && (*lock)[1] == migration;
    });
    EXPECT_TRUE(on_it) << "the lock record never named " << migration << "\n"
                       << process->err_so_far();
    return process;
  }

  void write_slow_then_fast() {
    project.write_migration("0001-slow.sql", kSlowFirst);
    project.write_migration("0002-fast.sql", kFastSecond);
  }

  SqliteProject project;
};

TEST_F(SqliteProcessTest, TenConcurrentBootsApplyEachMigrationExactlyOnce) {
  project.write_migration("0001-log.sql",
                          "-- migrate:up\nCREATE TABLE applied_log (name TEXT NOT NULL);\n"
                          "INSERT INTO applied_log VALUES ('m1');\n");
  project.write_migration("0002-second.sql",
                          "-- migrate:up\nINSERT INTO applied_log VALUES ('m2');\n");
  project.write_migration("0003-third.sql",
                          "-- migrate:up\nINSERT INTO applied_log VALUES ('m3');\n");

  std::vector<std::unique_ptr<Process>> boots;
  for (int i = 0; i < 10; ++i) boots.push_back(project.start({"up", "--wait"}, kFastLock));
  for (auto& boot : boots) {
    const ProcessResult result = boot->wait();
    EXPECT_EQ(result.exit_code, 0) << describe(result);
  }

  EXPECT_EQ(applied_log(), (std::vector<std::string>{"m1", "m2", "m3"}));
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-log.sql", "applied"},
                                          {"0002-second.sql", "applied"},
                                          {"0003-third.sql", "applied"}}));
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

TEST_F(SqliteProcessTest, KilledHolderLeavesItsLockWhichThePeerReclaimsAfterTheTtl) {
  write_slow_then_fast();
  auto holder = start_and_wait_for({"up"}, "0001-slow.sql");
  holder->signal(SIGKILL);
  EXPECT_EQ(holder->wait().signal, SIGKILL);

  // A crash leaves the lock behind and rolls the migration's transaction back.
  EXPECT_NE(project.lock_row(), std::nullopt);
  EXPECT_EQ(project.statuses(), Statuses{});
  EXPECT_EQ(applied_log(), std::vector<std::string>{});

  const ProcessResult peer = project.run({"--json", "up", "--wait"}, kFastLock);
  ASSERT_EQ(peer.exit_code, 0) << describe(peer);
  EXPECT_EQ(json_of(peer)["results"].size(), 2u);
  EXPECT_EQ(applied_log(), (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-slow.sql", "applied"}, {"0002-fast.sql", "applied"}}));
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// A killed holder's lease stands until its TTL runs out, its migration shown as plain pending:
// `status` and `lock` say its process is gone from this host, and how to end the lease now.
TEST_F(SqliteProcessTest, StatusAndLockSayAKilledHolderOfThisHostIsNotRunning) {
  write_slow_then_fast();
  auto holder = start_and_wait_for({"up"}, "0001-slow.sql", {{"MIGRONAUT_LOCK_TTL", "600"}});
  holder->signal(SIGKILL);
  EXPECT_EQ(holder->wait().signal, SIGKILL);

  const std::string gone = "is not running on this host";
  const ProcessResult status = project.run({"status"});
  EXPECT_EQ(status.exit_code, 0) << describe(status);
  EXPECT_NE(status.err.find("Lock held by"), std::string::npos) << status.err;
  EXPECT_NE(status.err.find(gone), std::string::npos) << status.err;
  EXPECT_NE(status.err.find("`migronaut unlock --force`"), std::string::npos) << status.err;
  EXPECT_NE(project.run({"lock"}).err.find(gone), std::string::npos);

  ASSERT_EQ(project.run({"unlock", "--yes", "--force"}).exit_code, 0);
  const ProcessResult up = project.run({"up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_EQ(applied_log(), (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(project.run({"status"}).err.find("Lock held by"), std::string::npos);
}

class StopSignalTest : public SqliteProcessTest, public ::testing::WithParamInterface<int> {
 protected:
  // Starts `up` with `flags` on the slow migration (written first), and returns once it is sending
  // it: "sending" is logged once the stop was checked for the last time before the body, so a
  // signal from then on meets the migration in flight. (The lock record names the migration
  // earlier; a signal then stops the run before its body, at once.)
  std::unique_ptr<Process> start_sending_the_slow_one(std::vector<std::string> flags) {
    flags.insert(flags.end(), {"--verbose", "up"});
    auto run = project.start(flags, kFastLock);
    EXPECT_TRUE(eventually([&] {
      return run->err_so_far().find("sending 0001-slow.sql") != std::string::npos;
    })) << run->err_so_far();
    return run;
  }
};

TEST_P(StopSignalTest, FirstSignalFinishesTheMigrationInFlightAndExits11) {
  write_slow_then_fast();
  auto run = start_sending_the_slow_one({"--json"});
  run->signal(GetParam());
  const ProcessResult result = run->wait();

  EXPECT_EQ(result.exit_code, 11) << describe(result);
  EXPECT_EQ(json_of(result)["error"]["code"], "RUN_ABORTED");
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-slow.sql", "applied"}}));
  EXPECT_EQ(applied_log(), std::vector<std::string>{"m1"});
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

TEST_P(StopSignalTest, FirstSignalDuringTheLastMigrationExits0SayingNothingWasLeftToStop) {
  project.write_migration("0001-slow.sql", kSlowFirst);
  auto run = start_sending_the_slow_one({"--json"});
  run->signal(GetParam());
  const ProcessResult result = run->wait();

  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(json_of(result)["stopRequested"], true);
  EXPECT_EQ(json_of(result)["results"].size(), 1u);
  EXPECT_EQ(lines_containing(result.err, "nothing was left to stop: everything finished").size(),
            1u)
      << result.err;
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-slow.sql", "applied"}}));
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

TEST_P(StopSignalTest, SecondSignalExitsAtOnceLeavingTheLock) {
  write_slow_then_fast();
  auto run = start_sending_the_slow_one({"--json"});
  run->signal(GetParam());
  // Two signals sent back to back could merge into one: the second goes after the first
  // was handled.
  ASSERT_TRUE(eventually([&] { return run->err_so_far().find("Stopping") != std::string::npos; }))
      << run->err_so_far();
  run->signal(GetParam());
  const ProcessResult result = run->wait();

  EXPECT_EQ(result.exit_code, 128 + GetParam()) << describe(result);
  // It says what it leaves, and --json still gets its one document.
  EXPECT_NE(result.err.find("Stopped at once by a second signal"), std::string::npos) << result.err;
  EXPECT_EQ(json_of(result)["error"]["code"], "SIGNAL");
  EXPECT_NE(project.lock_row(), std::nullopt);
  EXPECT_EQ(project.statuses(), Statuses{});
  EXPECT_EQ(applied_log(), std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(Signals, StopSignalTest, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGINT ? "Sigint" : "Sigterm");
                         });

TEST_F(SqliteProcessTest, AWaiterStoppedBySignalExits11AtOnceNamingNoMigrationInFlight) {
  second_pending_under_a_foreign_lock(600'000);
  const std::string held = project.dump();
  auto waiter = project.start({"--json", "up", "--wait"}, kFastLock);
  ASSERT_TRUE(eventually([&] {
    return waiter->err_so_far().find("waiting for the lock") != std::string::npos;
  })) << waiter->err_so_far();
  waiter->signal(SIGTERM);
  const std::optional<ProcessResult> result = waiter->wait_for(std::chrono::seconds(10));

  ASSERT_TRUE(result.has_value()) << "still waiting: " << waiter->err_so_far();
  EXPECT_EQ(result->exit_code, 11) << describe(*result);
  EXPECT_EQ(json_of(*result)["error"]["code"], "RUN_ABORTED");
  EXPECT_EQ(result->err.find("Stopping after"), std::string::npos) << result->err;
  EXPECT_EQ(project.dump(), held);
}

// A command set up so that it asks before it changes anything.
struct Prompt {
  std::string command;
  std::function<void(SqliteProject&)> set_up;
};

// A test's name shows the command, not the struct's bytes.
void PrintTo(const Prompt& prompt, std::ostream* out) { *out << prompt.command; }

// A lock left by a dead run: renewed 120 s ago, past its TTL of 60 s.
void leave_a_dead_lock(SqliteProject& project) {
  project.open().exec(
      std::string("INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host, "
                  "executed_by) VALUES ('migronaut_lock', ") +
      kSqliteNowMs + " - 120000, 60000, 'dead-run', 'dead-nonce', 4242, 'elsewhere', 'ops')");
}

// Prompts on a stdin that stays open (a FIFO the test holds, as a Job's stdin may be): no line and
// no end of input ever comes, so only the signal can end them.
class PromptSignalTest : public SqliteProcessTest, public ::testing::WithParamInterface<Prompt> {};

TEST_P(PromptSignalTest, FirstSignalCancelsThePromptAtOnceChangingNothing) {
  project.write_migration("0001-first.sql", "-- migrate:up\nCREATE TABLE first (id INTEGER);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  GetParam().set_up(project);
  const std::string before = project.dump();
  const std::filesystem::path stdin_fifo = project.dir().file("stdin");
  ASSERT_EQ(mkfifo(stdin_fifo.c_str(), 0600), 0);
  // Open for writing all along, never written: the prompt sees neither a line nor an end.
  const int writer = open(stdin_fifo.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(writer, 0);
  auto run = project.start({GetParam().command}, kFastLock, stdin_fifo);
  ASSERT_TRUE(eventually([&] { return run->err_so_far().find("[y/N]") != std::string::npos; }))
      << run->err_so_far();
  run->signal(SIGTERM);
  const std::optional<ProcessResult> result = run->wait_for(std::chrono::seconds(10));
  close(writer);

  ASSERT_TRUE(result.has_value()) << "still at its prompt: " << run->err_so_far();
  EXPECT_EQ(result->exit_code, 11) << describe(*result);
  EXPECT_NE(result->err.find(GetParam().command + " cancelled"), std::string::npos) << result->err;
  EXPECT_EQ(result->err.find("Stopping after"), std::string::npos) << result->err;
  EXPECT_EQ(project.dump(), before);
}

INSTANTIATE_TEST_SUITE_P(
    EveryPrompt, PromptSignalTest,
    ::testing::Values(Prompt{"baseline",
                             [](SqliteProject& project) {
                               project.write_migration(
                                   "0002-second.sql",
                                   "-- migrate:up\nCREATE TABLE second (id INTEGER);\n");
                             }},
                      Prompt{"repair",
                             [](SqliteProject& project) {
                               project.write_migration(
                                   "0001-first.sql",
                                   "-- migrate:up\nCREATE TABLE first (id INTEGER); -- ok\n");
                             }},
                      Prompt{"unlock", leave_a_dead_lock}),
    [](const ::testing::TestParamInfo<Prompt>& info) { return info.param.command; });

// The holder `unlock` showed as dead renews the lock while the user is asked: it is alive, and
// the yes answers a question about a lock that is no longer there. Nothing is released.
TEST_F(SqliteProcessTest, UnlockReleasesNothingWhenTheHolderRenewedWhileAsked) {
  project.write_migration("0001-first.sql", "-- migrate:up\nCREATE TABLE first (id INTEGER);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  leave_a_dead_lock(project);
  const std::filesystem::path stdin_fifo = project.dir().file("stdin");
  ASSERT_EQ(mkfifo(stdin_fifo.c_str(), 0600), 0);
  const int writer = open(stdin_fifo.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(writer, 0);
  auto run = project.start({"unlock"}, {}, stdin_fifo);
  ASSERT_TRUE(eventually([&] { return run->err_so_far().find("[y/N]") != std::string::npos; }))
      << run->err_so_far();
  project.open().exec(std::string("UPDATE _migronaut_locks SET locked_at = ") + kSqliteNowMs);
  const std::string renewed = project.dump();
  ASSERT_EQ(write(writer, "y\n", 2), 2);
  const std::optional<ProcessResult> result = run->wait_for(std::chrono::seconds(10));
  close(writer);

  ASSERT_TRUE(result.has_value()) << "still at its prompt: " << run->err_so_far();
  EXPECT_EQ(result->exit_code, 3) << describe(*result);
  EXPECT_NE(result->err.find("its holder renewed the lock since it was shown"), std::string::npos)
      << result->err;
  // Not the waiting commands' advice: unlock is the command that releases.
  EXPECT_EQ(result->err.find("To wait for it"), std::string::npos) << result->err;
  EXPECT_EQ(project.dump(), renewed);
}

// A stamp written by hand (text, a real number, nonsense) is matched as it was read and shown:
// `unlock` still clears such a row.
TEST_F(SqliteProcessTest, UnlockClearsARowWhoseStampWasWrittenByHand) {
  project.write_migration("0001-first.sql", "-- migrate:up\nCREATE TABLE first (id INTEGER);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  for (const char* stamp : {"'2026-01-01 00:00:00'", "1700000000000.5", "'garbage'"}) {
    leave_a_dead_lock(project);
    project.open().exec(std::string("UPDATE _migronaut_locks SET locked_at = ") + stamp);
    const ProcessResult unlocked = project.run({"unlock", "--yes"});
    EXPECT_EQ(unlocked.exit_code, 0) << stamp << ": " << describe(unlocked);
    EXPECT_EQ(project.lock_row(), std::nullopt) << stamp;
    project.open().exec("DELETE FROM _migronaut_locks");
  }
}

TEST_F(SqliteProcessTest, HeldLockRefusesWithNoWaitOrTimesOutAndOnlyUnlockForceRemovesIt) {
  second_pending_under_a_foreign_lock(60'000);
  const std::string held = project.dump();

  const ProcessResult refused = project.run({"--json", "up", "--no-wait"}, kFastLock);
  EXPECT_EQ(refused.exit_code, 3) << describe(refused);
  EXPECT_EQ(json_of(refused)["error"]["code"], "LOCK_ALREADY_HELD");

  const ProcessResult timed_out =
      project.run({"--json", "up", "--wait", "--wait-timeout", "300"}, kFastLock);
  EXPECT_EQ(timed_out.exit_code, 3) << describe(timed_out);
  const nlohmann::json error = json_of(timed_out)["error"];
  EXPECT_EQ(error["code"], "LOCK_ALREADY_HELD");
  EXPECT_EQ(error["context"]["timedOut"], true);
  // Nothing applied, and the foreign lock is exactly as it was.
  EXPECT_EQ(project.dump(), held);

  const ProcessResult shown = project.run({"--json", "lock"});
  ASSERT_EQ(shown.exit_code, 0) << describe(shown);
  const nlohmann::json lock = json_of(shown);
  EXPECT_EQ(lock["held"], true);
  EXPECT_EQ(lock["holder"]["runId"], "foreign-run");
  EXPECT_EQ(lock["holder"]["host"], "elsewhere");
  EXPECT_EQ(lock["stale"], false);
  EXPECT_EQ(lock.value("untrusted", nlohmann::json()), false);
  EXPECT_EQ(shown.out.find("foreign-nonce"), std::string::npos) << "the nonce is never shown";

  const ProcessResult unconfirmed = project.run({"--json", "unlock", "--force"});
  EXPECT_EQ(unconfirmed.exit_code, 6) << describe(unconfirmed);
  EXPECT_EQ(json_of(unconfirmed)["error"]["code"], "CONFIG_INVALID");
  EXPECT_EQ(project.dump(), held);
  // No terminal, no --yes (stdin is /dev/null): nothing to answer the prompt, said as that.
  const ProcessResult unanswered = project.run({"unlock", "--force"});
  EXPECT_EQ(unanswered.exit_code, 6) << describe(unanswered);
  EXPECT_NE(unanswered.err.find("confirm with --yes"), std::string::npos) << unanswered.err;
  EXPECT_EQ(project.dump(), held);

  // Renewed within its TTL: unlock refuses without --force, naming the holder.
  const ProcessResult alive = project.run({"--json", "unlock", "--yes"});
  EXPECT_EQ(alive.exit_code, 3) << describe(alive);
  EXPECT_EQ(json_of(alive)["error"]["context"]["holder"]["host"], "elsewhere");
  EXPECT_NE(alive.err.find("elsewhere pid 4242"), std::string::npos) << alive.err;
  EXPECT_NE(alive.err.find("--force"), std::string::npos) << alive.err;
  EXPECT_EQ(project.dump(), held);

  // Not renewed for longer than its TTL: `lock` says it is stale.
  project.open().exec("UPDATE _migronaut_locks SET locked_at = locked_at - 120000");
  const ProcessResult aged = project.run({"--json", "lock"});
  EXPECT_EQ(json_of(aged)["stale"], true) << describe(aged);
  EXPECT_EQ(json_of(aged)["untrusted"], false) << describe(aged);
  EXPECT_NE(aged.err.find("Stale"), std::string::npos) << aged.err;

  const ProcessResult unlocked = project.run({"--json", "unlock", "--yes", "--force"});
  ASSERT_EQ(unlocked.exit_code, 0) << describe(unlocked);
  EXPECT_EQ(json_of(unlocked)["released"], true);
  EXPECT_EQ(json_of(unlocked)["holder"]["runId"], "foreign-run");
  EXPECT_EQ(project.lock_row(), std::nullopt);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-first.sql", "applied"}}));

  // A free lock has nothing to confirm: no --yes needed, even without a terminal.
  const ProcessResult free = project.run({"--json", "unlock"});
  ASSERT_EQ(free.exit_code, 0) << describe(free);
  EXPECT_EQ(json_of(free)["released"], false);
}

// A dbmate project: DATABASE_URL names the database and the files are in db/migrations. A "uri"
// in the config would outrank DATABASE_URL and send every later run to a new SQLite file.
TEST_F(SqliteProcessTest, InitLeavesTheDatabaseToDatabaseUrlAndFindsDbMigrations) {
  const std::filesystem::path dbmate_dir = project.cwd() / "db" / "migrations";
  std::filesystem::create_directories(dbmate_dir);
  const Env env = {{"DATABASE_URL", "sqlite:" + project.db_path().string()}};
  const ProcessResult init =
      Process({migronaut_binary(), "--no-env", "--json", "init"}, env, project.cwd()).wait();
  ASSERT_EQ(init.exit_code, 0) << describe(init);
  EXPECT_EQ(json_of(init)["uriVariable"], "DATABASE_URL") << init.out;
  const std::filesystem::path config_path = project.cwd() / "migronaut.config.json";
  const nlohmann::json config = nlohmann::json::parse(project.dir().read(config_path));
  EXPECT_FALSE(config.contains("uri")) << config.dump();
  EXPECT_EQ(config["migrationsDir"], "db/migrations");
  EXPECT_FALSE(std::filesystem::exists(project.cwd() / "migrations"));

  project.dir().write(
      dbmate_dir / "20260101000000_users.sql",
      "-- migrate:up\nCREATE TABLE users (id INTEGER);\n-- migrate:down\nDROP TABLE "
      "users;\n");
  const ProcessResult up =
      Process({migronaut_binary(), "--no-env", "up"}, env, project.cwd()).wait();
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_EQ(project.statuses(), (Statuses{{"20260101000000_users.sql", "applied"}}));
  EXPECT_FALSE(std::filesystem::exists(project.cwd() / "migronaut.db"));
}

TEST_F(SqliteProcessTest, EveryCommandEndToEnd) {
  // init writes no password into the file meant to be committed.
  const ProcessResult with_password =
      Process({migronaut_binary(), "--no-env", "--uri", "postgres://app:S3cretPw@db/app", "init"},
              {}, project.cwd())
          .wait();
  EXPECT_EQ(with_password.exit_code, 6) << describe(with_password);
  EXPECT_EQ(with_password.err.find("S3cretPw"), std::string::npos) << with_password.err;
  EXPECT_FALSE(std::filesystem::exists(project.cwd() / "migronaut.config.json"));

  // init scaffolds a project in the working directory, once.
  const std::vector<std::string> bare_init = {migronaut_binary(), "--no-env", "init"};
  const ProcessResult init = Process(bare_init, {}, project.cwd()).wait();
  ASSERT_EQ(init.exit_code, 0) << describe(init);
  EXPECT_TRUE(std::filesystem::exists(project.cwd() / "migronaut.config.json"));
  EXPECT_TRUE(std::filesystem::is_directory(project.cwd() / "migrations"));
  const ProcessResult again = Process(bare_init, {}, project.cwd()).wait();
  EXPECT_EQ(again.exit_code, 16) << describe(again);

  project.write_migration("0001-users.sql",
                          "-- migrate:up\nCREATE TABLE users (id INTEGER PRIMARY KEY);\n"
                          "-- migrate:down\nDROP TABLE users;\n");
  project.write_migration("0002-posts.sql",
                          "-- migrate:up\nCREATE TABLE posts (id INTEGER PRIMARY KEY);\n"
                          "-- migrate:down\nDROP TABLE posts;\n");
  const ProcessResult created = project.run({"--json", "create", "add-tags"});
  ASSERT_EQ(created.exit_code, 0) << describe(created);
  const std::filesystem::path tags = json_of(created)["path"].get<std::string>();
  ASSERT_TRUE(std::filesystem::exists(tags)) << tags;
  EXPECT_EQ(tags.parent_path(), project.migrations());
  const std::string tags_name = tags.filename().string();
  project.write_migration(tags_name,
                          "-- migrate:up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n"
                          "-- migrate:down\nDROP TABLE tags;\n");

  // Three pending.
  EXPECT_EQ(project.run({"status", "--check"}).exit_code, 2);
  EXPECT_EQ(json_of(project.run({"--json", "status"}))["pending"], 3);
  EXPECT_EQ(json_of(project.run({"--json", "list", "--pending"}))["migrations"].size(), 3u);
  EXPECT_EQ(project.run({"wait", "--timeout", "200"}, kFastLock).exit_code, 2);
  const std::string before_dry_run = project.dump();
  const ProcessResult dry_up = project.run({"--json", "dry-run", "up"});
  ASSERT_EQ(dry_up.exit_code, 0) << describe(dry_up);
  EXPECT_EQ(json_of(dry_up)["migrations"].size(), 3u);
  EXPECT_EQ(project.dump(), before_dry_run);

  // Batch 1: the first; batch 2: the other two.
  ASSERT_EQ(project.run({"up", "--to", "0001-users.sql"}).exit_code, 0);
  const ProcessResult up = project.run({"--json", "up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  const nlohmann::json applied = json_of(up)["results"];
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(applied[0]["name"], "0002-posts.sql");
  EXPECT_EQ(applied[1]["name"], tags_name);
  EXPECT_EQ(applied[1]["batch"], 2);
  EXPECT_EQ(project.run({"status", "--check"}).exit_code, 0);
  EXPECT_EQ(project.run({"wait"}).exit_code, 0);
  EXPECT_EQ(project.run({"--json", "list", "--pending"}).out.find(".sql"), std::string::npos);

  const std::string all_applied = project.dump();
  const ProcessResult dry_down = project.run({"--json", "dry-run", "down"});
  ASSERT_EQ(dry_down.exit_code, 0) << describe(dry_down);
  EXPECT_EQ(json_of(dry_down)["migrations"].size(), 2u);
  EXPECT_EQ(project.dump(), all_applied);

  // down reverts the last batch only.
  ASSERT_EQ(project.run({"down"}).exit_code, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-users.sql", "applied"},
                                          {"0002-posts.sql", "reverted"},
                                          {tags_name, "reverted"}}));
  EXPECT_FALSE(project.open().has_table("posts"));

  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  ASSERT_EQ(project.run({"down", "--steps", "1"}).exit_code, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-users.sql", "applied"},
                                          {"0002-posts.sql", "applied"},
                                          {tags_name, "reverted"}}));
  EXPECT_FALSE(project.open().has_table("tags"));
  EXPECT_TRUE(project.open().has_table("posts"));

  // redo reverts and re-applies the newest applied migration: its table comes back empty.
  project.open().exec("INSERT INTO posts VALUES (1)");
  ASSERT_EQ(project.run({"redo"}).exit_code, 0);
  EXPECT_EQ(project.open().value("SELECT count(*) FROM posts"), "0");
  EXPECT_EQ(project.statuses()["0002-posts.sql"], "applied");

  // baseline records without running (this up would fail), forward-only.
  project.write_migration("0003-legacy.sql",
                          "-- migrate:up\nSELECT * FROM no_such_table;\n"
                          "-- migrate:down\nSELECT 1;\n");
  const ProcessResult baseline =
      project.run({"--json", "baseline", "--yes", "--to", "0003-legacy.sql"});
  ASSERT_EQ(baseline.exit_code, 0) << describe(baseline);
  EXPECT_EQ(project.open().value("SELECT status || ' ' || origin FROM _migronaut_migrations"
                                 " WHERE name = '0003-legacy.sql'"),
            "applied baseline");
  const std::string baselined = project.dump();
  const ProcessResult down_baseline = project.run({"--json", "down"});
  EXPECT_EQ(down_baseline.exit_code, 13) << describe(down_baseline);
  EXPECT_EQ(json_of(down_baseline)["error"]["code"], "MIGRATION_IRREVERSIBLE");
  EXPECT_EQ(project.dump(), baselined);
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// A file renamed and edited after it was applied is that migration by its version: `up` must not
// run it again. It shows as drift, refused until `repair` re-stamps it under its new name.
TEST_F(SqliteProcessTest, ARenamedAndEditedMigrationIsNeverRunAgain) {
  project.write_migration("0001-acct.sql",
                          "-- migrate:up\nCREATE TABLE acct (bal INTEGER);\n"
                          "INSERT INTO acct VALUES (100);\n");
  project.write_migration("0002-double.sql", "-- migrate:up\nUPDATE acct SET bal = bal * 2;\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  std::filesystem::remove(project.migrations() / "0002-double.sql");
  project.write_migration("0002-double-balances.sql",
                          "-- migrate:up\nUPDATE acct SET bal = bal * 2;  -- reviewed\n");

  // Renamed and edited, or a new migration reusing an applied version? Refused until `repair`
  // says which, with or without strict.
  const ProcessResult up = project.run({"up"});
  EXPECT_EQ(up.exit_code, 4) << describe(up);
  EXPECT_NE(up.err.find("0002-double-balances.sql has the version of the applied 0002-double.sql"),
            std::string::npos)
      << up.err;
  EXPECT_EQ(project.open().value("SELECT bal FROM acct"), "200");
  const nlohmann::json row = json_of(project.run({"--json", "status"}))["migrations"][1];
  EXPECT_EQ(row["state"], "applied");
  EXPECT_EQ(row["checksumOk"], false);
  EXPECT_EQ(row["renamedFrom"], "0002-double.sql");
  EXPECT_EQ(project.run({"status", "--check"}).exit_code, 4);  // as `up` says
  EXPECT_EQ(project.run({"audit"}).exit_code, 22);             // drift fails the audit

  ASSERT_EQ(project.run({"repair", "--yes"}).exit_code, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-acct.sql", "applied"},
                                          {"0002-double.sql", "reverted"},
                                          {"0002-double-balances.sql", "applied"}}));
  EXPECT_EQ(project.run({"audit"}).exit_code, 0);
  EXPECT_EQ(project.run({"up"}).exit_code, 0);
  EXPECT_EQ(project.open().value("SELECT bal FROM acct"), "200");
}

// `status --check` exits as `up` would, for every refusal `up` makes before its lock: a late
// arrival with onOutOfOrder error, then an up section with no statement. `status` says why, its
// JSON carries the error, `wait` gives up at once with it (no run holds the lock to change it),
// and nothing is written.
TEST_F(SqliteProcessTest, StatusCheckExitsWithWhatUpWouldRefuse) {
  const Env strict_order = {{"MIGRONAUT_ON_OUT_OF_ORDER", "error"}};
  project.write_migration("0002-later.sql", "-- migrate:up\nCREATE TABLE later (id INTEGER);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  project.write_migration("0001-late.sql", "-- migrate:up\nCREATE TABLE late (id INTEGER);\n");
  const std::string before = project.dump();

  EXPECT_EQ(project.run({"up"}, strict_order).exit_code, 23);
  const ProcessResult late = project.run({"--json", "status", "--check"}, strict_order);
  EXPECT_EQ(late.exit_code, 23) << describe(late);
  EXPECT_EQ(json_of(late)["upRefusal"]["code"], "MIGRATION_OUT_OF_ORDER");
  EXPECT_NE(late.err.find("`up` would refuse: Pending migrations sort before"), std::string::npos)
      << late.err;
  const ProcessResult wait = project.run({"wait", "--timeout", "1m"}, strict_order);
  EXPECT_EQ(wait.exit_code, 23) << describe(wait);
  EXPECT_EQ(project.run({"status", "--check"}).exit_code, 2);  // warned of, not refused
  EXPECT_EQ(json_of(project.run({"--json", "status"}))["upRefusal"], nullptr);

  project.write_migration("0003-todo.sql", "-- migrate:up\n-- to be written\n");
  EXPECT_EQ(project.run({"up"}).exit_code, 20);
  const ProcessResult empty = project.run({"--json", "status", "--check"});
  EXPECT_EQ(empty.exit_code, 20) << describe(empty);
  EXPECT_EQ(json_of(empty)["upRefusal"]["context"]["file"], "0003-todo.sql");
  EXPECT_EQ(project.run({"dry-run", "up"}).exit_code, 20);
  EXPECT_EQ(project.run({"wait", "--timeout", "1m"}).exit_code, 20);
  const ProcessResult audit = project.run({"--json", "audit"});
  EXPECT_EQ(audit.exit_code, 22) << describe(audit);
  const nlohmann::json report = json_of(audit);
  bool up_check_failed = false;
  for (const nlohmann::json& check : report["checks"]) {
    up_check_failed = up_check_failed || (check["name"] == "up" && check["status"] == "fail");
  }
  EXPECT_TRUE(up_check_failed) << audit.out;
  EXPECT_EQ(project.dump(), before);
}

TEST_F(SqliteProcessTest, FailingMigrationIsRecordedAndRolledBackAfterItsPeersApplied) {
  project.write_migration("0001-a.sql", "-- migrate:up\nCREATE TABLE a (id INTEGER);\n");
  project.write_migration("0002-b.sql", "-- migrate:up\nCREATE TABLE b (id INTEGER);\n");
  project.write_migration("0003-broken.sql",
                          "-- migrate:up\nCREATE TABLE c (id INTEGER);\nINSERT INTO c VALUES (1);\n"
                          "SELECT * FROM missing_table;\n");
  project.write_migration("0004-after.sql", "-- migrate:up\nCREATE TABLE d (id INTEGER);\n");

  const ProcessResult result = project.run({"--json", "up"});
  EXPECT_EQ(result.exit_code, 7) << describe(result);
  const nlohmann::json error = json_of(result)["error"];
  EXPECT_EQ(error["code"], "MIGRATION_EXECUTION_FAILED");
  EXPECT_NE(error["message"].get<std::string>().find("0003-broken.sql"), std::string::npos);

  EXPECT_EQ(project.statuses(), (Statuses{{"0001-a.sql", "applied"},
                                          {"0002-b.sql", "applied"},
                                          {"0003-broken.sql", "failed"}}));
  SqliteDb db = project.open();
  EXPECT_NE(db.value("SELECT error FROM _migronaut_migrations WHERE name = '0003-broken.sql'")
                .value_or("")
                .find("missing_table"),
            std::string::npos);
  EXPECT_TRUE(db.has_table("a"));
  EXPECT_TRUE(db.has_table("b"));
  EXPECT_FALSE(db.has_table("c"));
  EXPECT_FALSE(db.has_table("d"));
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// A migration's first apply stamps firstAppliedAt even when an earlier write created its record
// (a failure, the `applying` mark of an untransacted one); a re-apply after down keeps it.
TEST_F(SqliteProcessTest, FirstAppliedAtIsStampedByTheFirstApplyAndKeptByLaterOnes) {
  project.write_migration("0001-fixed.sql",
                          "-- migrate:up\nSELECT * FROM missing_table;\n-- migrate:down\n");
  project.write_migration("0002-untransacted.sql",
                          "-- migrate:up transaction:false\nCREATE TABLE b (id INTEGER);\n"
                          "-- migrate:down transaction:false\nDROP TABLE b;\n");
  EXPECT_EQ(project.run({"up"}).exit_code, 7);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-fixed.sql", "failed"}}));
  project.write_migration("0001-fixed.sql",
                          "-- migrate:up\nCREATE TABLE a (id INTEGER);\n"
                          "-- migrate:down\nDROP TABLE a;\n");
  const ProcessResult fixed = project.run({"up"});
  ASSERT_EQ(fixed.exit_code, 0) << describe(fixed);
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-fixed.sql", "applied"}, {"0002-untransacted.sql", "applied"}}));
  const auto first_applied = [&] {
    return project.open().rows(
        "SELECT name, first_applied_at FROM _migronaut_migrations ORDER BY name");
  };
  const std::vector<Row> stamped = first_applied();
  ASSERT_EQ(stamped.size(), 2u);
  for (const Row& row : stamped) EXPECT_NE(row[1], "NULL") << row[0];

  // Moved back a day, so that a re-apply which stamped it again could not go unseen.
  project.open().exec(
      "UPDATE _migronaut_migrations SET first_applied_at = first_applied_at - 86400000");
  const std::vector<Row> moved = first_applied();
  ASSERT_EQ(project.run({"down", "--steps", "2"}).exit_code, 0);
  const ProcessResult again = project.run({"up"});
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-fixed.sql", "applied"}, {"0002-untransacted.sql", "applied"}}));
  EXPECT_EQ(first_applied(), moved);
}

// A configured table name that an application's own table holds is refused before anything is
// created (SCHEMA_INVALID, naming it), for either table and by a command that only reads too.
// Without the check a read failed on a column (exit 1), after `up` had created the other table.
TEST_F(SqliteProcessTest, AConfiguredTableNameThatAnotherTableHoldsIsRefusedNamingIt) {
  project.write_migration("0001-a.sql", "-- migrate:up\nCREATE TABLE a (id INTEGER);\n");
  { std::ofstream create(project.db_path()); }  // an empty file is an empty database
  project.open().exec(
      "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT);"
      "INSERT INTO users VALUES (1, 'a');");
  const std::string before = project.dump();
  for (const auto& [variable, command] : kTableCollisionCases) {
    const ProcessResult refused = project.run({"--json", command}, {{variable, "users"}});
    EXPECT_EQ(refused.exit_code, 38) << variable << " " << command << "\n" << describe(refused);
    const nlohmann::json error = json_of(refused)["error"];
    EXPECT_EQ(error["code"], "SCHEMA_INVALID");
    EXPECT_NE(error["message"].get<std::string>().find("users is a table of another shape"),
              std::string::npos)
        << error["message"];
    EXPECT_EQ(project.dump(), before);
  }
}

// A runtime failure deep in a big file names its line and statement; the transaction rolls the
// statements before it back, while outside a transaction they stay.
TEST_F(SqliteProcessTest, AFailingStatementIsNamedByItsLineInABigFile) {
  std::string big = "-- migrate:up\nCREATE TABLE t (id INTEGER);\n";
  for (int i = 0; i < 20000; ++i) big += "INSERT INTO t VALUES (" + std::to_string(i) + ");\n";
  big += "SELECT * FROM nosuch;\nCREATE TABLE after (id INTEGER);\n";
  project.write_migration("0001-big.sql", big);

  const ProcessResult result = project.run({"--json", "up"});
  EXPECT_EQ(result.exit_code, 7) << describe(result);
  const nlohmann::json error = json_of(result)["error"];
  EXPECT_EQ(error["message"],
            "Migration 0001-big.sql failed: line 20003, column 1 in `SELECT * FROM nosuch`: no "
            "such table: nosuch");
  EXPECT_EQ(error["context"]["line"], 20003);
  EXPECT_EQ(error["context"]["statement"], "SELECT * FROM nosuch");
  SqliteDb db = project.open();
  EXPECT_FALSE(db.has_table("t"));
  EXPECT_FALSE(db.has_table("after"));
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-big.sql", "failed"}}));

  project.write_migration("0001-big.sql",
                          "-- migrate:up transaction:false\nCREATE TABLE kept (id INTEGER);\n\n"
                          "  CREATE TABEL lost (id INTEGER);\n");
  const ProcessResult alone = project.run({"--json", "up"});
  EXPECT_EQ(alone.exit_code, 7) << describe(alone);
  EXPECT_EQ(json_of(alone)["error"]["message"],
            "Migration 0001-big.sql failed: line 4, column 10 in `CREATE TABEL lost (id "
            "INTEGER)`: near \"TABEL\": syntax error\nThe 1 statement before it ran and stays "
            "applied: outside a transaction nothing is rolled back.");
  EXPECT_EQ(json_of(alone)["error"]["context"]["statementsApplied"], 1);
  EXPECT_TRUE(project.open().has_table("kept"));
}

// SQL that keeps SQLite's only writer busy for `seconds` by SQLite's clock, whatever the
// machine's speed (a fixed count can end within 1.5 TTLs on a fast one). SQL has no sleep and
// julianday('now') holds still within a statement, so the work is many short counts, each
// counting only while the deadline the first statement set lies ahead. 1000 counts of 500,000
// rows outlast the deadline even at ten times today's speed.
std::string sql_busy_for(std::int64_t seconds) {
  std::string sql = "CREATE TEMP TABLE busy_until AS SELECT julianday('now') + " +
                    std::to_string(seconds) + ".0 / 86400 AS t;\n";
  for (int i = 0; i < 1000; ++i) {
    sql +=
        "WITH RECURSIVE counter(n) AS (SELECT 1 WHERE julianday('now') < (SELECT t FROM "
        "busy_until) UNION ALL SELECT n + 1 FROM counter WHERE n < 500000) "
        "SELECT count(*) FROM counter;\n";
  }
  return sql;
}

// Statements that run until the test puts a row into table `gate`: each is bounded and reads a
// fresh snapshot, so the migration sees the gate open at its next statement.
std::string sql_until_gate_opens() {
  std::string sql;
  for (int i = 0; i < 1000; ++i) {
    sql +=
        "WITH RECURSIVE counter(n) AS (SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM gate) UNION ALL "
        "SELECT n + 1 FROM counter WHERE n < 200000) SELECT count(*) FROM counter;\n";
  }
  return sql;
}

// A fleet's waiters do not each run again the migration their holder failed while they waited:
// a transaction:false one's side effects would repeat once per instance. They fail as it did
// (exit 7), naming the run; the side effect happened once.
TEST_F(SqliteProcessTest, WaitersDoNotRetryAMigrationTheHolderFailedWhileTheyWaited) {
  project.write_migration("0001-log.sql",
                          "-- migrate:up\nCREATE TABLE applied_log (name TEXT NOT NULL);\n"
                          "CREATE TABLE gate (open INTEGER);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  project.write_migration("0002-broken.sql",
                          "-- migrate:up transaction:false\n"
                          "INSERT INTO applied_log VALUES ('m2');\n" +
                              sql_until_gate_opens() + "SELECT * FROM no_such_table;\n");
  auto holder = project.start({"up"}, kFastLock);
  ASSERT_TRUE(eventually([&] {
    return holder->err_so_far().find("applying 0002-broken.sql") != std::string::npos;
  })) << holder->err_so_far();
  std::vector<std::unique_ptr<Process>> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.push_back(project.start({"--json", "up", "--wait"}, kFastLock));
  }
  for (auto& waiter : waiters) {
    ASSERT_TRUE(eventually([&] {
      return waiter->err_so_far().find("waiting for the lock") != std::string::npos;
    })) << waiter->err_so_far();
  }
  project.open().exec("INSERT INTO gate VALUES (1)");

  EXPECT_EQ(holder->wait().exit_code, 7);
  for (auto& waiter : waiters) {
    const ProcessResult result = waiter->wait();
    EXPECT_EQ(result.exit_code, 7) << describe(result);
    const nlohmann::json error = json_of(result)["error"];
    EXPECT_EQ(error["context"]["migration"], "0002-broken.sql") << error;
    EXPECT_NE(error["message"].get<std::string>().find("while this run waited for the lock"),
              std::string::npos)
        << error;
  }
  EXPECT_EQ(applied_log(), std::vector<std::string>{"m2"});
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-log.sql", "applied"}, {"0002-broken.sql", "failed"}}));
  EXPECT_EQ(project.lock_row(), std::nullopt);

  // Run again, by hand, the failure on record is retried (and fails again here).
  EXPECT_EQ(project.run({"up"}).exit_code, 7);
  EXPECT_EQ(applied_log(), (std::vector<std::string>{"m2", "m2"}));
}

// Issue 9, case 3: a transactional migration several TTLs long holds the only write slot the
// whole time, so the heartbeat cannot renew and the waiters cannot even read a fresh lease.
// That is a live holder, not a lost one: the holder exits 0, the waiters wait it out and exit
// 0, and the migration is applied once, by the holder. (SQL cannot wait on a gate inside
// SQLite's single writer, so the migration runs for 2 TTLs by the clock; the test checks that
// it really outlasted the TTL by the duration the holder recorded.)
TEST_F(SqliteProcessTest, ATransactionalMigrationLongerThanTheTtlKeepsItsLockAndItsWaiters) {
  // A 4 s TTL rather than kFastLock's 2 s: while the migration writes, each renewal waits out
  // its statement bound (TTL/8) and must land within TTL/8 more, which a starved 2-core machine
  // can miss at 2 s (SQLite's busy wait alone overran its 250 ms by up to 155 ms). The point
  // here is the migration's length, not scheduling jitter.
  Env lock = kFastLock;
  lock["MIGRONAUT_LOCK_TTL"] = "4";
  const std::int64_t ttl_ms = 4000;
  // The database and its tables exist before the boots, so none of them writes before it
  // holds the lock: each waiter meets the long migration at the lock, where it polls.
  project.write_migration("0001-log.sql",
                          "-- migrate:up\nCREATE TABLE applied_log (name TEXT NOT NULL);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  project.write_migration("0002-long.sql", "-- migrate:up\n" + sql_busy_for(2 * ttl_ms / 1000) +
                                               "INSERT INTO applied_log VALUES ('m1');\n");
  project.write_migration("0003-fast.sql", kFastSecond);

  std::vector<std::unique_ptr<Process>> boots;
  for (int i = 0; i < 10; ++i) {
    boots.push_back(project.start({"--json", "up", "--wait"}, lock));
  }
  int holders = 0;
  for (auto& boot : boots) {
    const ProcessResult result = boot->wait();
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.err.find("Lost the migration lock"), std::string::npos) << result.err;
    const nlohmann::json document = json_of(result);
    std::vector<std::string> applied;
    for (const nlohmann::json& entry : document.value("results", nlohmann::json::array())) {
      applied.push_back(entry.value("name", ""));
    }
    if (!applied.empty()) {
      // The holder kept its lock through both migrations: one run applied them.
      ++holders;
      EXPECT_EQ(applied, (std::vector<std::string>{"0002-long.sql", "0003-fast.sql"}));
      continue;
    }
    // A waiter: all ten started together, so each met the holder's 2-TTL migration busy in the
    // write slot, waited it out and found nothing left to do.
    EXPECT_TRUE(document.value("waited", false)) << describe(result);
    EXPECT_NE(result.err.find("busy with another run's migration"), std::string::npos)
        << describe(result);
    EXPECT_TRUE(document.value("upToDate", false)) << describe(result);
  }
  EXPECT_EQ(holders, 1);

  // Evidence that the migration outlasted the TTL: the time its work held the transaction (and
  // so the write slot), as the holder recorded it.
  const std::optional<std::string> duration = project.open().value(
      "SELECT duration FROM _migronaut_migrations WHERE name = '0002-long.sql'");
  ASSERT_TRUE(duration.has_value());
  EXPECT_GT(std::stoll(*duration), ttl_ms * 3 / 2)
      << "the migration took " << *duration << " ms, no more than 1.5 TTLs";
  EXPECT_EQ(applied_log(), (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-log.sql", "applied"},
                                          {"0002-long.sql", "applied"},
                                          {"0003-fast.sql", "applied"}}));
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// A transaction:false migration killed midway leaves its `applying` record, which status shows
// as interrupted (and a later run refuses to guess about).
TEST_F(SqliteProcessTest, AKilledNonTransactionalMigrationShowsAsInterrupted) {
  project.write_migration("0001-slow.sql", R"(-- migrate:up transaction:false
CREATE TABLE applied_log (name TEXT NOT NULL);
WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 40000000)
SELECT count(*) FROM counter;
INSERT INTO applied_log VALUES ('m1');
)");
  // A TTL far longer than the test: the lease expires only when the test ages it.
  auto run = start_and_wait_for({"up"}, "0001-slow.sql", {{"MIGRONAUT_LOCK_TTL", "600"}});
  ASSERT_TRUE(eventually([&] { return project.statuses().count("0001-slow.sql") == 1; }));
  run->signal(SIGKILL);
  EXPECT_EQ(run->wait().signal, SIGKILL);

  EXPECT_EQ(project.statuses(), (Statuses{{"0001-slow.sql", "applying"}}));
  // Until its lease expires, the dead run cannot be told from a live one: the mark shows as
  // being applied. Aged past its TTL, it shows as interrupted.
  const auto state = [&] {
    const ProcessResult status = project.run({"--json", "status"});
    EXPECT_EQ(status.exit_code, 0) << describe(status);
    return json_of(status)["migrations"].at(0)["state"].get<std::string>();
  };
  EXPECT_EQ(state(), "applying");
  project.open().exec("UPDATE _migronaut_locks SET locked_at = locked_at - 86400000");
  EXPECT_EQ(state(), "interrupted");
}

// A transaction:false down killed midway leaves a `reverting` mark: the migration shows
// half-reverted, `up`, `wait` and `audit` refuse to call it applied or pending work of theirs,
// and a down (or a redo) runs it again to the end.
TEST_F(SqliteProcessTest, AKilledNonTransactionalDownLeavesItHalfRevertedForADownToFinish) {
  // The down's loop runs as many rounds as the knob says: endless until the test turns it down.
  project.write_migration("0001-knob.sql", R"(-- migrate:up
CREATE TABLE knob (rounds INTEGER NOT NULL);
INSERT INTO knob VALUES (4000000000);
CREATE TABLE down_log (step TEXT NOT NULL);

-- migrate:down transaction:false
INSERT INTO down_log VALUES ('started');
WITH RECURSIVE counter(n) AS
  (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < (SELECT rounds FROM knob))
SELECT count(*) FROM counter;
DROP TABLE knob;
DROP TABLE down_log;
)");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  auto down = project.start({"down"}, {{"MIGRONAUT_LOCK_TTL", "600"}});
  ASSERT_TRUE(eventually([&] {
    return project.open().value("SELECT count(*) FROM down_log") == std::optional<std::string>("1");
  })) << down->err_so_far();
  // A boot meanwhile waits for the run making the down (here: does not, and says the lock is
  // held), instead of refusing a migration that run is still on.
  const ProcessResult boot = project.run({"up", "--no-wait"}, kFastLock);
  EXPECT_EQ(boot.exit_code, 3) << describe(boot);
  down->signal(SIGKILL);
  EXPECT_EQ(down->wait().signal, SIGKILL);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-knob.sql", "reverting"}}));
  const auto state = [&] {
    const ProcessResult status = project.run({"--json", "status"});
    EXPECT_EQ(status.exit_code, 0) << describe(status);
    return json_of(status)["migrations"].at(0)["state"].get<std::string>();
  };
  EXPECT_EQ(state(), "reverting");  // its lease still looks alive
  project.open().exec("UPDATE _migronaut_locks SET locked_at = locked_at - 86400000");
  EXPECT_EQ(state(), "half-reverted");

  const ProcessResult up = project.run({"--json", "up"}, kFastLock);
  EXPECT_EQ(up.exit_code, 24) << describe(up);
  EXPECT_NE(up.err.find("migronaut down 0001-knob.sql"), std::string::npos) << up.err;
  // The dead run's lock row is left (up refused before claiming it): wait gives it its time.
  const ProcessResult wait = project.run({"wait", "--timeout", "1s"}, kFastLock);
  EXPECT_EQ(wait.exit_code, 24) << describe(wait);
  EXPECT_EQ(project.run({"status", "--check"}).exit_code, 24);
  EXPECT_EQ(project.run({"baseline", "--yes"}, kFastLock).exit_code, 24);
  EXPECT_EQ(project.run({"audit"}).exit_code, 22);
  // Nothing ran again: the down's first statement's row, the table the down did not reach.
  EXPECT_EQ(project.open().value("SELECT count(*) FROM down_log"), "1");
  EXPECT_TRUE(project.open().has_table("knob"));
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-knob.sql", "reverting"}}));

  project.open().exec("UPDATE knob SET rounds = 1");
  const ProcessResult again = project.run({"down"}, kFastLock);
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_NE(again.err.find("re-running the down of 0001-knob.sql"), std::string::npos) << again.err;
  EXPECT_FALSE(project.open().has_table("knob"));
  EXPECT_FALSE(project.open().has_table("down_log"));
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-knob.sql", "reverted"}}));
  ASSERT_EQ(project.run({"up"}, kFastLock).exit_code, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-knob.sql", "applied"}}));

  // A down that fails midway leaves the same mark, with its error.
  project.open().exec("DROP TABLE down_log");
  EXPECT_EQ(project.run({"down"}, kFastLock).exit_code, 7);
  const ProcessResult status = project.run({"--json", "status"});
  const nlohmann::json row = json_of(status)["migrations"].at(0);
  EXPECT_EQ(row["state"], "half-reverted") << status.out;
  EXPECT_NE(row["record"].value("error", "").find("down_log"), std::string::npos) << status.out;

  // redo finishes it as well: the down from the top, then the up.
  project.open().exec("CREATE TABLE down_log (step TEXT NOT NULL); UPDATE knob SET rounds = 1");
  const ProcessResult redo = project.run({"redo"}, kFastLock);
  ASSERT_EQ(redo.exit_code, 0) << describe(redo);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-knob.sql", "applied"}}));
  EXPECT_EQ(project.open().value("SELECT rounds FROM knob"), "4000000000");
  EXPECT_EQ(project.open().value("SELECT count(*) FROM down_log"), "0");
}

// timeoutMs stops a running statement (sqlite3_interrupt) and fails the migration with its own
// code; the transaction is rolled back and the failure recorded.
TEST_F(SqliteProcessTest, AMigrationPastItsTimeoutIsInterruptedAndFailsWith14) {
  project.write_migration("0001-endless.sql", R"(-- migrate:up
CREATE TABLE applied_log (name TEXT NOT NULL);
WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter)
SELECT count(*) FROM counter;
)");
  Env env = kFastLock;
  env["MIGRONAUT_TIMEOUT_MS"] = "300";
  const ProcessResult result = project.run({"--json", "up"}, env);
  EXPECT_EQ(result.exit_code, 14) << describe(result);
  EXPECT_EQ(json_of(result)["error"]["code"], "MIGRATION_TIMEOUT");
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-endless.sql", "failed"}}));
  EXPECT_FALSE(project.open().has_table("applied_log"));
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// --no-lock runs without the lock: it applies while another run holds it, and leaves that
// run's lock record exactly as it was.
TEST_F(SqliteProcessTest, NoLockAppliesWithoutTouchingAHeldLock) {
  second_pending_under_a_foreign_lock(60'000);
  const auto before = project.open().rows("SELECT * FROM _migronaut_locks");

  const ProcessResult result = project.run({"up", "--no-lock"});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_NE(result.err.find("WITHOUT the migration lock"), std::string::npos) << result.err;
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-first.sql", "applied"}, {"0002-second.sql", "applied"}}));
  EXPECT_EQ(project.open().rows("SELECT * FROM _migronaut_locks"), before);
}

// Whether another connection holds the database's single write slot: a claim of it that does not
// wait is refused busy.
bool write_slot_taken(const std::filesystem::path& db_path) {
  SqliteDb probe(db_path);
  probe.exec("PRAGMA busy_timeout = 0");
  try {
    probe.exec("BEGIN IMMEDIATE");
  } catch (const std::runtime_error&) {
    return true;
  }
  probe.exec("ROLLBACK");
  return false;
}

// The state letter /proc gives `pid` ('T' once a SIGSTOP took hold), or '?'.
char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t end = line.rfind(')');
  return end == std::string::npos || end + 2 >= line.size() ? '?' : line[end + 2];
}

// A writer that is no migronaut run (a sqlite3 shell's BEGIN IMMEDIATE) holds the file's write
// slot, and no lock record accounts for it: a waiter says so, naming the file, and gives up
// within its budget with exit 3 instead of waiting for "another run's migration" forever. It
// leaves the database as it was.
TEST_F(SqliteProcessTest, AForeignWriterHoldingTheFileIsAStallTheWaiterGivesUpOn) {
  const std::unique_ptr<SqliteDb> shell = second_pending_behind_a_foreign_writer();
  const std::string before = project.dump();  // the shell's work is not committed

  auto waiter = project.start({"--json", "up", "--wait", "--wait-timeout", "2000"}, kFastLock);
  const std::string busy =
      "the database file '" + project.db_path().string() + "' is locked by another writer";
  EXPECT_TRUE(eventually([&] { return waiter->err_so_far().find(busy) != std::string::npos; }))
      << waiter->err_so_far();
  const std::optional<ProcessResult> result = waiter->wait_for(milliseconds(60'000));
  ASSERT_TRUE(result.has_value()) << "still waiting after 60 s:\n" << waiter->err_so_far();
  EXPECT_EQ(result->exit_code, 3) << describe(*result);
  const nlohmann::json error = json_of(*result)["error"];
  EXPECT_EQ(error["code"], "LOCK_ALREADY_HELD");
  EXPECT_NE(error["message"].get<std::string>().find(busy), std::string::npos) << error;
  EXPECT_EQ(error["context"]["timedOut"], true);
  EXPECT_NE(error["context"]["hint"].get<std::string>().find("`migronaut unlock` cannot free it"),
            std::string::npos)
      << error;
  EXPECT_EQ(result->err.find("another run's migration"), std::string::npos) << result->err;

  // A run that does not wait is refused alike once SQLite's busy timeout is spent, not reported
  // as an unreachable database (exit 5).
  const ProcessResult refused = project.run({"--json", "up", "--no-wait"}, kFastLock);
  EXPECT_EQ(refused.exit_code, 3) << describe(refused);
  EXPECT_NE(json_of(refused)["error"]["message"].get<std::string>().find(busy), std::string::npos)
      << describe(refused);

  shell->exec("ROLLBACK");
  EXPECT_EQ(project.dump(), before);
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// SIGTERM while the waiter's claim sits in SQLite's busy wait behind a foreign writer (the lock
// connection waits up to 5 s for the write slot at the default TTL; the next claim follows the
// line within a millisecond, so the signal lands in one): the stop interrupts the claim and the
// waiter exits 11, stopped, instead of finishing the wait and reporting its budget (1 s) spent as a
// lock timeout.
TEST_F(SqliteProcessTest, AWaiterStoppedWhileItsClaimWaitsForAForeignWriterExits11) {
  const std::unique_ptr<SqliteDb> shell = second_pending_behind_a_foreign_writer();
  const std::string before = project.dump();  // the shell's work is not committed

  auto waiter = project.start({"--json", "up", "--wait", "--wait-timeout", "1000"},
                              {{"MIGRONAUT_LOCK_POLL_INTERVAL_MS", "1"}});
  const std::string busy =
      "the database file '" + project.db_path().string() + "' is locked by another writer";
  ASSERT_TRUE(eventually([&] { return waiter->err_so_far().find(busy) != std::string::npos; }))
      << waiter->err_so_far();
  waiter->signal(SIGTERM);
  const std::optional<ProcessResult> result = waiter->wait_for(milliseconds(60'000));
  shell->exec("ROLLBACK");

  ASSERT_TRUE(result.has_value()) << "still waiting after 60 s:\n" << waiter->err_so_far();
  EXPECT_EQ(result->exit_code, 11) << describe(*result);
  EXPECT_EQ(json_of(*result)["error"]["code"], "RUN_ABORTED");
  EXPECT_EQ(project.dump(), before);
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// A holder stopped (SIGSTOP) inside its transactional migration: its lease expires in the
// database's clock, but its transaction still holds the file's write slot, so no peer can
// reclaim the lock. A busy slot is no progress: the waiter gives up within its budget with
// exit 3, naming the holder and the file. Killed, the holder's migration never commits.
TEST_F(SqliteProcessTest, AStoppedHolderHoldingTheWriteSlotIsAStallTheWaiterGivesUpOn) {
  project.write_migration("0001-log.sql",
                          "-- migrate:up\nCREATE TABLE applied_log (name TEXT NOT NULL);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  project.write_migration("0002-long.sql", "-- migrate:up\nCREATE TABLE long_work (id INTEGER);\n" +
                                               sql_busy_for(60) +
                                               "INSERT INTO applied_log VALUES ('m1');\n");
  auto holder = project.start({"up"}, kFastLock);
  ASSERT_TRUE(eventually([&] {
    return holder->err_so_far().find("applying 0002-long.sql") != std::string::npos;
  })) << holder->err_so_far();
  // Stopped while its migration holds the write slot (not between two of its writes).
  ASSERT_TRUE(eventually([&] {
    holder->signal(SIGSTOP);
    if (!eventually([&] { return process_state(holder->pid()) == 'T'; }, milliseconds(5'000))) {
      return false;
    }
    if (write_slot_taken(project.db_path())) return true;
    holder->signal(SIGCONT);
    return false;
  })) << holder->err_so_far();
  const std::optional<Row> lock = project.lock_row();
  ASSERT_TRUE(lock.has_value());

  auto waiter = project.start({"--json", "up", "--wait", "--wait-timeout", "3000"}, kFastLock);
  const std::optional<ProcessResult> result = waiter->wait_for(milliseconds(60'000));
  ASSERT_TRUE(result.has_value()) << "still waiting after 60 s:\n" << waiter->err_so_far();
  EXPECT_EQ(result->exit_code, 3) << describe(*result);
  const nlohmann::json error = json_of(*result)["error"];
  EXPECT_EQ(error["code"], "LOCK_ALREADY_HELD");
  EXPECT_EQ(error["context"]["timedOut"], true);
  EXPECT_EQ(error["context"]["holder"]["runId"], (*lock)[0]);
  const std::string message = error["message"].get<std::string>();
  EXPECT_NE(message.find("pid " + std::to_string(holder->pid())), std::string::npos) << message;
  EXPECT_NE(message.find("the database file '" + project.db_path().string() +
                         "' is locked by another writer"),
            std::string::npos)
      << message;
  // Not "wait for the lease to expire, or unlock": that lease expired long ago.
  EXPECT_FALSE(error["context"].contains("expiresAt")) << error;
  EXPECT_NE(error["context"]["hint"].get<std::string>().find("kill -CONT"), std::string::npos)
      << error;

  holder->signal(SIGKILL);
  EXPECT_EQ(holder->wait().signal, SIGKILL);
  EXPECT_FALSE(project.open().has_table("long_work"));
  EXPECT_EQ(applied_log(), std::vector<std::string>{});
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-log.sql", "applied"}}));
  EXPECT_EQ(project.lock_row(), lock);  // the waiter took nothing
}

// A holder on another host keeps the write slot past the waiter's budget: from here its process
// cannot be seen, so it may be a live migration. The waiter gives up (exit 3) and says so, naming
// the holder; it does not call it a stopped run or another program.
TEST_F(SqliteProcessTest, AWaiterGivingUpOnAHolderElsewhereNamesItInsteadOfAStall) {
  second_pending_under_a_foreign_lock(2000);
  const std::string before = project.dump();
  SqliteDb holder(project.db_path());
  holder.exec("BEGIN IMMEDIATE; CREATE TABLE holder_work (id INTEGER)");

  const ProcessResult result =
      project.run({"--json", "up", "--wait", "--wait-timeout", "1000"}, kFastLock);
  EXPECT_EQ(result.exit_code, 3) << describe(result);
  const nlohmann::json error = json_of(result)["error"];
  EXPECT_EQ(error["context"]["timedOut"], true) << error;
  const std::string hint = error["context"]["hint"].get<std::string>();
  EXPECT_NE(hint.find("the holder (pid 4242 on host elsewhere)"), std::string::npos) << hint;
  EXPECT_NE(hint.find("raise --wait-timeout"), std::string::npos) << hint;
  EXPECT_EQ(hint.find("sqlite3 shell"), std::string::npos) << hint;

  holder.exec("ROLLBACK");
  EXPECT_EQ(project.dump(), before);
}

// The project's command line for `args` on the database `db`, run by a user who may not write a
// folder 0555: root may write anything, so root runs it as nobody (setpriv).
std::vector<std::string> as_unprivileged(const SqliteProject& project,
                                         const std::filesystem::path& db,
                                         const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (geteuid() == 0) {
    argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  }
  for (const std::string& arg : project.argv(args)) argv.push_back(arg);
  argv[argv.size() - args.size() - 3] = "sqlite:" + db.string();  // before --dir <migrations>
  return argv;
}

// A database file that cannot be created because its folder is not writable by this user: no
// wait mends that, so `up` and `up --wait` alike fail at once with PERMISSION_DENIED (39),
// naming the folder, and create nothing.
TEST_F(SqliteProcessTest, ADatabaseItsFolderForbidsCreatingFailsAtOnceWith39EvenWhenWaiting) {
  if (geteuid() == 0 && !std::filesystem::exists("/usr/bin/setpriv")) {
    GTEST_SKIP() << "root needs setpriv to run migronaut as a user a folder can refuse";
  }
  project.write_migration("0001-first.sql", "-- migrate:up\nCREATE TABLE first (id INTEGER);\n");
  const std::filesystem::path folder = project.dir().file("read-only");
  std::filesystem::create_directories(folder);
  namespace fs = std::filesystem;
  // Nobody may enter the project (its temp dir is private) and read the migrations; not write
  // `folder`.
  fs::permissions(project.dir().path(),
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  const fs::path db = folder / "app.db";

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--json", "up"},
        std::vector<std::string>{"--json", "up", "--wait", "--wait-timeout", "60000"}}) {
    Process run(as_unprivileged(project, db, args), {}, project.cwd());
    const std::optional<ProcessResult> result = run.wait_for(milliseconds(20'000));
    ASSERT_TRUE(result.has_value()) << args.back() << ": still running after 20 s\n"
                                    << run.err_so_far();
    EXPECT_EQ(result->exit_code, 39) << describe(*result);
    const nlohmann::json error = json_of(*result)["error"];
    EXPECT_EQ(error["code"], "PERMISSION_DENIED");
    EXPECT_NE(error["message"].get<std::string>().find("its folder " + folder.string() +
                                                       " is not writable by this user"),
              std::string::npos)
        << error;
    EXPECT_FALSE(fs::exists(db));
  }
}

}  // namespace
}  // namespace migronaut::testing

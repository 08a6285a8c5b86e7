// What an operator sees from the real `migronaut` binary: which channel each line takes, the
// progress lines of a run and of a waiter, the way out of a held lock, --verbose, help and typo
// suggestions, durations with units, a freshly created migration, and a file up skips though named
// like a migration. Each test also checks the database the command leaves.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process/sqlite_project.hpp"

namespace migronaut::testing {
namespace {

using Statuses = std::map<std::string, std::string>;

const Env kFastLock = {{"MIGRONAUT_LOCK_TTL", "2"}, {"MIGRONAUT_LOCK_POLL_INTERVAL_MS", "50"}};

constexpr const char* kUsers =
    "-- migrate:up\nCREATE TABLE users (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE "
    "users;\n";
constexpr const char* kOrders =
    "-- migrate:up\nCREATE TABLE orders (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE "
    "orders;\n";
constexpr const char* kItems =
    "-- migrate:up\nCREATE TABLE items (id INTEGER PRIMARY KEY);\n-- migrate:down\nDROP TABLE "
    "items;\n";
// Busy for seconds inside its transaction: a run is still on it when its line shows.
constexpr const char* kSlow = R"(-- migrate:up
CREATE TABLE slow_done (id INTEGER);
WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 20000000)
SELECT count(*) FROM counter;
)";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class CliTest : public ::testing::Test {
 protected:
  // A lock record of another run, renewed `age_ms` ago by the database's clock.
  void hold_foreign_lock(std::int64_t age_ms, std::int64_t ttl_ms = 60'000) {
    project.open().exec(
        "INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host,"
        " executed_by, migration, step, total) VALUES ('migronaut_lock', " +
        std::string(kSqliteNowMs) + " - " + std::to_string(age_ms) + ", " + std::to_string(ttl_ms) +
        ", 'foreign-run', 'foreign-nonce', 4242, 'elsewhere', 'ops', '0009-big.sql', 2, 5)");
  }
  // Applies kUsers so the tables exist, then adds kOrders as pending.
  void one_applied_one_pending() {
    project.write_migration("0001-users.sql", kUsers);
    ASSERT_EQ(project.run({"up"}).exit_code, 0);
    project.write_migration("0002-orders.sql", kOrders);
  }

  // 0001-users.sql applied in batch 1, 0002-orders.sql and 0003-items.sql in batch 2.
  void three_applied_in_two_batches() {
    one_applied_one_pending();
    project.write_migration("0003-items.sql", kItems);
    ASSERT_EQ(project.run({"up"}).exit_code, 0);
    ASSERT_EQ(project.open().rows("SELECT name, batch FROM _migronaut_migrations ORDER BY name"),
              (std::vector<Row>{
                  {"0001-users.sql", "1"}, {"0002-orders.sql", "2"}, {"0003-items.sql", "2"}}));
  }
  // The tables the migrations made, without migronaut's own.
  std::vector<Row> app_tables() {
    return project.open().rows(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT GLOB '_migronaut_*' "
        "AND name NOT GLOB 'sqlite_*' ORDER BY name");
  }

  SqliteProject project;
};

// --- output channels ---------------------------------------------------------------------------

TEST_F(CliTest, ReportsGoToStdoutAndProgressToStderr) {
  one_applied_one_pending();
  const ProcessResult status = project.run({"status"});
  ASSERT_EQ(status.exit_code, 0) << describe(status);
  EXPECT_TRUE(contains(status.out, "0002-orders.sql  pending")) << status.out;
  EXPECT_TRUE(contains(status.out, "1 applied, 1 pending")) << status.out;
  EXPECT_FALSE(contains(status.err, "0002-orders.sql")) << status.err;

  // Piped, `list` prints one line per migration and no header, so `wc -l` counts them.
  const ProcessResult pending = project.run({"list", "--pending"});
  ASSERT_EQ(pending.exit_code, 0) << describe(pending);
  EXPECT_EQ(line_count(pending.out), 1u) << pending.out;
  EXPECT_TRUE(contains(pending.out, "0002-orders.sql")) << pending.out;

  const ProcessResult lock = project.run({"lock"});
  EXPECT_TRUE(contains(lock.out, "The lock is free")) << describe(lock);
  const ProcessResult dry = project.run({"dry-run", "up"});
  EXPECT_TRUE(contains(dry.out, "0002-orders.sql")) << describe(dry);
  // --output writes a new file or replaces a dry-run's own, never the database or a migration.
  const std::string review = (project.cwd() / "review.sql").string();
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(project.run({"dry-run", "up", "--sql", "--output", review}).exit_code, 0);
  }
  const auto bytes_of = [](const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string database_bytes = bytes_of(project.db_path());
  for (const std::filesystem::path& precious :
       {project.db_path(), project.migrations() / "0001-users.sql",
        project.migrations() / "0009-plan.sql"}) {
    const ProcessResult refused =
        project.run({"dry-run", "up", "--sql", "--output", precious.string()});
    EXPECT_EQ(refused.exit_code, 6) << describe(refused);
  }
  EXPECT_EQ(bytes_of(project.db_path()), database_bytes);
  EXPECT_EQ(bytes_of(project.migrations() / "0001-users.sql"), std::string(kUsers));
  EXPECT_FALSE(std::filesystem::exists(project.migrations() / "0009-plan.sql"));
  const ProcessResult version = project.run({"--version"});
  EXPECT_FALSE(version.out.empty()) << describe(version);

  // --quiet silences progress, not the report asked for.
  EXPECT_TRUE(contains(project.run({"--quiet", "status"}).out, "0002-orders.sql"));

  // A run's progress is on stderr; stdout stays empty without --json.
  const ProcessResult up = project.run({"up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_EQ(up.out, "");
  EXPECT_TRUE(contains(up.err, "applying 0002-orders.sql (1/1)")) << up.err;

  // --json: exactly one document on stdout, the human lines on stderr.
  const ProcessResult json = project.run({"--json", "status"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["pending"], 0) << json.out;
  EXPECT_TRUE(contains(json.err, "2 applied, 0 pending")) << json.err;
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-users.sql", "applied"}, {"0002-orders.sql", "applied"}}));
}

// A row written by hand without a batch may be the newest: a bare `down` cannot tell the last
// batch, and reverting batch 1 in its place would undo what it depends on.
TEST_F(CliTest, DownRefusesOverARecordWithoutABatchAndChangesNothing) {
  one_applied_one_pending();
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  project.open().exec(
      "UPDATE _migronaut_migrations SET batch = NULL WHERE name = '0002-orders.sql'");
  const std::string before = project.dump();
  const ProcessResult down = project.run({"down"});
  EXPECT_EQ(down.exit_code, 37) << describe(down);
  EXPECT_TRUE(contains(down.err, "0002-orders.sql")) << down.err;
  EXPECT_EQ(project.dump(), before);
  EXPECT_EQ(project.run({"down", "--steps", "1"}).exit_code, 0);
  EXPECT_TRUE(contains(project.run({"status"}).out, "0002-orders.sql  reverted"));
}

// The summary says which of its counts `up` treats unlike a new or an applied migration.
TEST_F(CliTest, StatusSummaryNamesTheStatesBeyondAppliedAndPending) {
  one_applied_one_pending();
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  std::filesystem::remove(project.migrations() / "0002-orders.sql");
  project.write_migration("0003-broken.sql", "-- migrate:up\nSELECT * FROM nosuch;\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 7);
  project.write_migration("0004-later.sql", "-- migrate:up\nSELECT 1;\n");
  const ProcessResult status = project.run({"status"});
  ASSERT_EQ(status.exit_code, 0) << describe(status);
  EXPECT_TRUE(contains(status.out, "2 applied (1 missing), 2 pending (1 failed)")) << status.out;
}

// An applied migration whose file is gone (a checkout that lost it, a wrong folder) is said by
// the boot check, which would otherwise say up to date; status still shows when it was applied.
TEST_F(CliTest, UpSaysWhichAppliedMigrationsHaveNoFile) {
  one_applied_one_pending();
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  std::filesystem::remove(project.migrations() / "0001-users.sql");
  const ProcessResult up = project.run({"up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_TRUE(contains(up.err, "Applied, but no file in " + project.migrations().string() +
                                   ": 0001-users.sql (restore it"))
      << up.err;
  const ProcessResult status = project.run({"status"});
  EXPECT_TRUE(contains(status.out, "0001-users.sql   missing          1  20")) << status.out;
}

// A reader that went away before the run wrote a line (`migronaut up --json | jq` with jq gone,
// progress into a pipe nobody reads) ends nothing: the writes fail and are dropped, every
// migration is applied and recorded, and the exit status is the run's own.
TEST_F(CliTest, AReaderThatWentAwayNeitherStopsNorFailsTheRun) {
  const auto run_into = [this](Sinks sinks, const std::vector<std::string>& args) {
    return Process(project.argv(args), {}, project.cwd(), "/dev/null", sinks).wait();
  };
  project.write_migration("0001-users.sql", kUsers);
  // Outside a transaction, and --verbose writes a line before each of its statements: a run
  // killed by a write between them would leave it half-applied.
  project.write_migration("0002-tags.sql",
                          "-- migrate:up transaction:false\nCREATE TABLE tags (id INTEGER);\n"
                          "INSERT INTO tags VALUES (1);\n");
  const ProcessResult progress = run_into({.err = Sink::kReaderGone}, {"--verbose", "up"});
  EXPECT_EQ(progress.signal, 0) << describe(progress);
  EXPECT_EQ(progress.exit_code, 0) << describe(progress);
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-users.sql", "applied"}, {"0002-tags.sql", "applied"}}));
  EXPECT_EQ(project.open().rows("SELECT id FROM tags"), (std::vector<Row>{{"1"}}));
  EXPECT_FALSE(project.lock_row().has_value());

  project.write_migration("0003-orders.sql", kOrders);
  const ProcessResult document = run_into({.out = Sink::kReaderGone}, {"--json", "up"});
  EXPECT_EQ(document.signal, 0) << describe(document);
  EXPECT_EQ(document.exit_code, 0) << describe(document);
  EXPECT_EQ(project.statuses()["0003-orders.sql"], "applied");

  const Sinks none_read = {.out = Sink::kReaderGone, .err = Sink::kReaderGone};
  const ProcessResult status = run_into(none_read, {"status"});
  EXPECT_EQ(status.signal, 0) << describe(status);
  EXPECT_EQ(status.exit_code, 0) << describe(status);
  project.write_migration("0004-broken.sql", "-- migrate:up\nSELECT * FROM nosuch;\n");
  const ProcessResult failed = run_into(none_read, {"up"});
  EXPECT_EQ(failed.signal, 0) << describe(failed);
  EXPECT_EQ(failed.exit_code, 7) << describe(failed);
  EXPECT_EQ(project.statuses()["0004-broken.sql"], "failed");
  EXPECT_FALSE(project.lock_row().has_value());
}

// --- progress lines ----------------------------------------------------------------------------

TEST_F(CliTest, EachMigrationIsAnnouncedBeforeItRunsAndTimedAfter) {
  project.write_migration("0001-users.sql", kUsers);
  project.write_migration("0002-orders.sql", kOrders);
  const ProcessResult up = project.run({"up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  const auto applying_1 = up.err.find("applying 0001-users.sql (1/2)…");
  const auto applied_1 = up.err.find("applied 0001-users.sql in ");
  const auto applying_2 = up.err.find("applying 0002-orders.sql (2/2)…");
  const auto applied_2 = up.err.find("applied 0002-orders.sql in ");
  ASSERT_NE(applying_1, std::string::npos) << up.err;
  ASSERT_NE(applied_2, std::string::npos) << up.err;
  EXPECT_LT(applying_1, applied_1);
  EXPECT_LT(applied_1, applying_2);
  EXPECT_LT(applying_2, applied_2);
  EXPECT_TRUE(contains(up.err.substr(applied_1), " ms")) << up.err;
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-users.sql", "applied"}, {"0002-orders.sql", "applied"}}));
}

TEST_F(CliTest, TheApplyingLineReachesAPipedLogWhileTheMigrationRuns) {
  project.write_migration("0001-slow.sql", kSlow);
  auto run = project.start({"up"});
  ASSERT_TRUE(eventually([&] { return contains(run->err_so_far(), "applying 0001-slow.sql"); }))
      << run->err_so_far();
  // The line came out while the migration was still in its transaction: nothing committed.
  const bool still_running = !run->wait_for(std::chrono::milliseconds(0)).has_value();
  const Statuses seen = project.statuses();
  const ProcessResult done = run->wait();
  ASSERT_EQ(done.exit_code, 0) << describe(done);
  if (still_running) {
    EXPECT_EQ(seen.count("0001-slow.sql"), 0u);
  }
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-slow.sql", "applied"}}));
}

TEST_F(CliTest, ReRunningAnInterruptedMigrationSaysSo) {
  one_applied_one_pending();
  // What a crash in a non-transactional migration leaves: an `applying` mark.
  project.open().exec(
      "INSERT INTO _migronaut_migrations (name, batch, status, checksum) VALUES "
      "('0002-orders.sql', 2, 'applying', '')");
  const ProcessResult up = project.run({"up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_TRUE(contains(up.err, "re-running 0002-orders.sql: a previous run was interrupted"))
      << up.err;
  EXPECT_EQ(project.statuses()["0002-orders.sql"], "applied");
}

// Values written by hand into the database cannot forge a line of a report: a changelog name
// and a lock row's fields with newlines show them as \n, on their own line.
TEST_F(CliTest, HandMadeValuesWithNewlinesCannotForgeReportLines) {
  one_applied_one_pending();
  project.open().exec(
      "INSERT INTO _migronaut_migrations (name, batch, status, checksum) VALUES "
      "('0001-x' || char(10) || 'FAKE applied.sql', 1, 'applied', '')");
  project.open().exec(
      std::string("INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host,"
                  " executed_by) VALUES ('migronaut_lock', ") +
      kSqliteNowMs + ", 600000, 'foreign-run', 'n', 4242, 'h' || char(10) || 'FAKE host', 'ops')");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"status"}, {"list"}, {"lock"}}) {
    const ProcessResult shown = project.run(command);
    EXPECT_FALSE(contains(shown.out + shown.err, "\nFAKE")) << describe(shown);
  }
  EXPECT_TRUE(contains(project.run({"status"}).out, "0001-x\\nFAKE applied.sql"));
  EXPECT_TRUE(contains(project.run({"lock"}).out + project.run({"lock"}).err, "h\\nFAKE host"));
}

TEST_F(CliTest, ReclaimingAStaleLockNamesTheDeadHolder) {
  one_applied_one_pending();
  hold_foreign_lock(/*age_ms=*/120'000, /*ttl_ms=*/2'000);
  const ProcessResult up = project.run({"up"}, kFastLock);
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_TRUE(contains(up.err, "reclaimed the lock from elsewhere pid 4242 (run foreign-)"))
      << up.err;
  EXPECT_TRUE(contains(up.err, "on 0009-big.sql (2/5)")) << up.err;
  EXPECT_TRUE(contains(up.err, "last renewed it 12")) << up.err;  // 120 s, give or take
  EXPECT_EQ(project.statuses()["0002-orders.sql"], "applied");
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// --- waiting is the default ----------------------------------------------------------------------

TEST_F(CliTest, UpWaitsByDefaultAndAPipedWaiterPrintsWhoItWaitsFor) {
  one_applied_one_pending();
  hold_foreign_lock(/*age_ms=*/0);
  auto waiter = project.start({"up"}, kFastLock);
  ASSERT_TRUE(eventually([&] { return contains(waiter->err_so_far(), "waiting for the lock"); }))
      << waiter->err_so_far();
  const std::string status_line = waiter->err_so_far();
  EXPECT_TRUE(contains(status_line, "held by elsewhere pid 4242 (run foreign-, user ops)"))
      << status_line;
  EXPECT_TRUE(contains(status_line, "on 0009-big.sql (2/5)")) << status_line;
  EXPECT_TRUE(contains(status_line, " s ago")) << status_line;
  EXPECT_TRUE(contains(status_line, "waited ")) << status_line;
  EXPECT_EQ(project.statuses()["0002-orders.sql"], "") << "nothing ran while the lock was held";

  project.open().exec("DELETE FROM _migronaut_locks");  // the holder finishes
  const ProcessResult done = waiter->wait();
  ASSERT_EQ(done.exit_code, 0) << describe(done);
  EXPECT_EQ(project.statuses()["0002-orders.sql"], "applied");
}

// `up --wait` waits for a database it cannot open yet, and says that is what it waits for; a
// plain `up` (which waits only for a held lock) fails at once.
TEST_F(CliTest, AWaiterForAnUnreachableDatabaseSaysSo) {
  project.write_migration("0001-users.sql", kUsers);
  const std::string missing = (project.dir().path() / "no-such-dir" / "app.db").string();
  const std::vector<std::string> base = {
      "--no-env", "--json", "--uri", "sqlite:" + missing, "--dir", project.migrations().string(),
      "up"};
  std::vector<std::string> waiting = base;
  waiting.insert(waiting.end(), {"--wait", "--wait-timeout", "1s"});
  const ProcessResult result = run_migronaut(waiting, kFastLock, project.cwd());
  EXPECT_EQ(result.exit_code, 5) << describe(result);
  EXPECT_TRUE(nlohmann::json::parse(result.out)["error"]["context"].value("timedOut", false))
      << result.out;
  EXPECT_TRUE(contains(result.err, "waiting for the database — waited ")) << result.err;
  EXPECT_FALSE(contains(result.err, "waiting for the lock")) << result.err;

  const ProcessResult plain = run_migronaut(base, kFastLock, project.cwd());
  EXPECT_EQ(plain.exit_code, 5) << describe(plain);
  EXPECT_FALSE(nlohmann::json::parse(plain.out)["error"]["context"].value("timedOut", false))
      << plain.out;
  EXPECT_FALSE(contains(plain.err, "waiting for the database")) << plain.err;

  // The read-only commands say what `up` says (a missing file alone they read as nothing
  // applied yet, which `up` creates), and `wait` waits for it as `up --wait` does.
  for (const char* command : {"status", "wait"}) {
    std::vector<std::string> args(base.begin(), base.end() - 1);
    args.push_back(command);
    if (std::string(command) == "wait") args.insert(args.end(), {"--timeout", "300ms"});
    const auto started = std::chrono::steady_clock::now();
    const ProcessResult read = run_migronaut(args, kFastLock, project.cwd());
    const auto took = std::chrono::steady_clock::now() - started;
    EXPECT_EQ(read.exit_code, 5) << describe(read);
    EXPECT_TRUE(contains(read.err, "no-such-dir does not exist")) << read.err;
    // `wait` gave up at its timeout, not at once: it waited for the folder to appear.
    if (std::string(command) == "wait") {
      EXPECT_GE(took, std::chrono::milliseconds(300));
    }
  }
}

TEST_F(CliTest, NoWaitFailsFastAndShowsTheWayOut) {
  one_applied_one_pending();
  hold_foreign_lock(/*age_ms=*/0);
  const std::string held = project.dump();
  const ProcessResult refused = project.run({"up", "--no-wait"}, kFastLock);
  EXPECT_EQ(refused.exit_code, 3) << describe(refused);
  EXPECT_TRUE(contains(refused.err, "elsewhere pid 4242")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "The lease expires at ")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "`migronaut up`")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "`migronaut lock`")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "`migronaut unlock`")) << refused.err;

  const ProcessResult json = project.run({"--json", "up", "--no-wait"}, kFastLock);
  const nlohmann::json context = nlohmann::json::parse(json.out)["error"]["context"];
  EXPECT_TRUE(context["expiresAt"].get<std::string>().ends_with("Z")) << context;
  EXPECT_TRUE(contains(context["hint"].get<std::string>(), "migronaut unlock")) << context;
  EXPECT_EQ(project.dump(), held);

  // onLockHeld: throw in the config does the same as --no-wait.
  project.dir().write(project.cwd() / "migronaut.config.json", R"({"onLockHeld": "throw"})");
  EXPECT_EQ(project.run({"up"}, kFastLock).exit_code, 3);
  EXPECT_EQ(project.dump(), held);
}

TEST_F(CliTest, ALockHeldErrorOfACommandThatCannotWaitSuggestsRetryingItself) {
  one_applied_one_pending();
  hold_foreign_lock(/*age_ms=*/0);
  const std::string held = project.dump();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"down"}, {"redo"}, {"baseline", "--yes"}}) {
    const std::string& command = args.front();
    const ProcessResult refused = project.run(args, kFastLock);
    EXPECT_EQ(refused.exit_code, 3) << command << ": " << describe(refused);
    EXPECT_TRUE(contains(refused.err, "To wait for it: retry `migronaut " + command +
                                          "` once `migronaut lock` shows the lock free"))
        << refused.err;
    // Neither the command that applies migrations nor flags the command does not have.
    EXPECT_FALSE(contains(refused.err, "`migronaut up`")) << refused.err;
    EXPECT_FALSE(contains(refused.err, "--wait-timeout")) << refused.err;

    std::vector<std::string> json_args = {"--json"};
    json_args.insert(json_args.end(), args.begin(), args.end());
    const ProcessResult json = project.run(json_args, kFastLock);
    const std::string hint = nlohmann::json::parse(json.out)["error"]["context"]["hint"];
    EXPECT_TRUE(contains(hint, "retry `migronaut " + command + "`")) << hint;
    EXPECT_FALSE(contains(hint, "migronaut up")) << hint;
  }
  EXPECT_EQ(project.dump(), held);
}

// A migration `create` made and nobody filled in yet is no migration to record as applied: once
// written, it would show as drift, never run.
TEST_F(CliTest, BaselineRefusesAMigrationWithAnEmptyUpSection) {
  one_applied_one_pending();
  project.write_migration("0003-todo.sql", "-- migrate:up\n-- to do\n-- migrate:down\n");
  const std::string before = project.dump();
  const ProcessResult refused = project.run({"--json", "baseline", "--yes"});
  EXPECT_EQ(refused.exit_code, 20) << describe(refused);
  EXPECT_EQ(nlohmann::json::parse(refused.out)["error"]["context"]["file"], "0003-todo.sql");
  EXPECT_EQ(project.dump(), before);
  const ProcessResult up_to = project.run({"baseline", "--yes", "--to", "0002-orders.sql"});
  EXPECT_EQ(up_to.exit_code, 0) << describe(up_to);
  EXPECT_EQ(project.statuses()["0002-orders.sql"], "applied");
}

// What baseline would mark is named before it asks; once marked, status says they never ran.
TEST_F(CliTest, BaselineListsWhatItWouldMarkBeforeItAsks) {
  one_applied_one_pending();
  const std::string before = project.dump();
  const ProcessResult unanswered = project.run({"baseline"});  // stdin is /dev/null
  EXPECT_EQ(unanswered.exit_code, 6) << describe(unanswered);
  const auto listed = unanswered.err.find("  0002-orders.sql");
  ASSERT_NE(listed, std::string::npos) << unanswered.err;
  EXPECT_LT(listed, unanswered.err.find("Mark these 1 migration(s) applied WITHOUT running them?"))
      << unanswered.err;
  EXPECT_FALSE(contains(unanswered.err, "0001-users.sql")) << unanswered.err;
  EXPECT_EQ(project.dump(), before);

  ASSERT_EQ(project.run({"baseline", "--yes"}).exit_code, 0);
  const ProcessResult status = project.run({"status"});
  EXPECT_TRUE(contains(status.out, "baselined: never run here, no down")) << status.out;
}

TEST_F(CliTest, BaselineWithNothingPendingTakesNoLockAndCreatesNothing) {
  // No migration files: nothing to mark, and no database file appears.
  const ProcessResult empty = project.run({"--json", "baseline", "--yes"});
  ASSERT_EQ(empty.exit_code, 0) << describe(empty);
  EXPECT_EQ(nlohmann::json::parse(empty.out)["baselined"], nlohmann::json::array());
  EXPECT_FALSE(project.exists());

  // Everything applied: as `up`'s boot check, a held lock is no reason to fail or wait.
  project.write_migration("0001-users.sql", kUsers);
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  hold_foreign_lock(/*age_ms=*/0);
  const std::string held = project.dump();
  const ProcessResult applied = project.run({"--json", "baseline", "--yes"}, kFastLock);
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  EXPECT_EQ(nlohmann::json::parse(applied.out)["skipped"],
            nlohmann::json::array({"0001-users.sql"}));
  EXPECT_EQ(project.dump(), held);
}

TEST_F(CliTest, UnlockReleasesAStaleLockWithoutForce) {
  one_applied_one_pending();
  hold_foreign_lock(/*age_ms=*/120'000);
  const ProcessResult unlocked = project.run({"unlock", "--yes"});
  ASSERT_EQ(unlocked.exit_code, 0) << describe(unlocked);
  EXPECT_TRUE(contains(unlocked.err, "elsewhere pid 4242")) << unlocked.err;
  EXPECT_TRUE(contains(unlocked.err, "renewed 120 s ago")) << unlocked.err;
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

// A migration recorded failed is retried only by a run: `wait` waits while one holds the lock
// (renewed within its TTL), and gives up at once (exit 7) when none does, a stale lease's holder
// (killed) counting as none.
TEST_F(CliTest, WaitGivesUpOnAFailedMigrationWhenNoLiveRunHoldsTheLock) {
  project.write_migration("0001-users.sql", "-- migrate:up\nSELECT * FROM nosuch;\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 7);
  hold_foreign_lock(/*age_ms=*/0);
  const ProcessResult held = project.run({"wait", "--timeout", "300ms"}, kFastLock);
  EXPECT_EQ(held.exit_code, 2) << describe(held);
  // No terminal here, as in an init container's log: the wait says it is alive, once.
  EXPECT_EQ(count_of(held.err, "1 migration(s) pending — waited"), 1u) << held.err;
  project.open().exec("UPDATE _migronaut_locks SET locked_at = locked_at - 120000");
  const ProcessResult stale = project.run({"wait", "--timeout", "1m"}, kFastLock);
  EXPECT_EQ(stale.exit_code, 7) << describe(stale);
  EXPECT_TRUE(contains(stale.err, "no run is retrying it")) << stale.err;
}

// --- durations ---------------------------------------------------------------------------------

TEST_F(CliTest, DurationsTakeUnitsAndErrorsNameTheFlagTyped) {
  one_applied_one_pending();
  hold_foreign_lock(/*age_ms=*/0);
  const std::string held = project.dump();
  // A held lock whose holder never advances: the wait gives up after its budget.
  const ProcessResult timed_out = project.run({"up", "--wait-timeout", "300ms"}, kFastLock);
  EXPECT_EQ(timed_out.exit_code, 3) << describe(timed_out);
  // The way on is a longer wait, said as that: --no-wait was never given.
  EXPECT_TRUE(contains(timed_out.err,
                       "To wait for it: raise --wait-timeout (`migronaut up` gave up when its "
                       "holder showed no progress for that long)."))
      << timed_out.err;
  EXPECT_FALSE(contains(timed_out.err, "--no-wait")) << timed_out.err;
  const ProcessResult wait = project.run({"--json", "wait", "--timeout", "1s"}, kFastLock);
  EXPECT_EQ(wait.exit_code, 2) << describe(wait);
  EXPECT_GE(nlohmann::json::parse(wait.out)["error"]["context"]["waitedMs"].get<int>(), 0);

  const ProcessResult bad = project.run({"--json", "up", "--wait-timeout", "2x"});
  EXPECT_EQ(bad.exit_code, 6) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "--wait-timeout")) << bad.err;
  EXPECT_FALSE(contains(bad.err, "lockWaitTimeoutMs")) << bad.err;
  EXPECT_EQ(nlohmann::json::parse(bad.out)["error"]["context"]["option"], "--wait-timeout");
  EXPECT_EQ(project.dump(), held);
}

// --- --verbose ---------------------------------------------------------------------------------

TEST_F(CliTest, VerboseShowsTargetLockTimingsAndStatements) {
  project.write_migration("0001-users.sql", kUsers);
  const ProcessResult up = project.run({"--verbose", "up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_TRUE(contains(up.err, "connecting to sqlite:" + project.db_path().string())) << up.err;
  EXPECT_TRUE(contains(up.err, "lock acquired in ")) << up.err;
  EXPECT_TRUE(contains(up.err, "lock renewed in ")) << up.err;
  EXPECT_TRUE(contains(up.err, "lock released in ")) << up.err;
  EXPECT_TRUE(contains(up.err, "sending 0001-users.sql: CREATE TABLE users")) << up.err;
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-users.sql", "applied"}}));

  // Without --verbose none of it.
  project.write_migration("0002-orders.sql", kOrders);
  const ProcessResult quiet = project.run({"up"});
  EXPECT_FALSE(contains(quiet.err, "lock acquired in")) << quiet.err;
  EXPECT_FALSE(contains(quiet.err, "sending ")) << quiet.err;
}

// Split as SQLite splits it: the `;` in the string and the comment split nothing.
TEST_F(CliTest, VerboseLogsEachStatementSentOnItsOwnLineInOrder) {
  project.write_migration("0001-notes.sql",
                          "-- migrate:up\n"
                          "CREATE TABLE notes (\n  id INTEGER PRIMARY KEY,\n  body TEXT\n);\n"
                          "-- one note; the first\n"
                          "INSERT INTO notes (body) VALUES ('a;b');\n"
                          "-- migrate:down\nDROP TABLE notes;\n");
  const ProcessResult up = project.run({"--verbose", "up"});
  ASSERT_EQ(up.exit_code, 0) << describe(up);
  const std::vector<std::string> sent = lines_containing(up.err, "sending 0001-notes.sql: ");
  ASSERT_EQ(sent.size(), 2u) << up.err;
  EXPECT_TRUE(contains(sent[0],
                       "sending 0001-notes.sql: CREATE TABLE notes ( id INTEGER PRIMARY "
                       "KEY, body TEXT )"))
      << sent[0];
  EXPECT_TRUE(contains(sent[1], "sending 0001-notes.sql: INSERT INTO notes (body) VALUES ('a;b')"))
      << sent[1];
  EXPECT_TRUE(contains(project.dump(), "| a;b")) << project.dump();
}

TEST_F(CliTest, VerboseRedactsTheConnectionTarget) {
  const ProcessResult failed =
      run_migronaut({"--no-env", "--verbose", "--uri", "postgres://app:s3cr3t@127.0.0.1:1/db",
                     "--dir", project.migrations().string(), "status"});
  EXPECT_EQ(failed.exit_code, 5) << describe(failed);
  EXPECT_TRUE(contains(failed.err, "connecting to postgres://app:")) << failed.err;
  EXPECT_FALSE(contains(failed.out + failed.err, "s3cr3t")) << failed.err;
  // A password with a quote or a space in it (unencoded, as libpq takes it) ends the URI's text
  // early for a scan of a message: masked all the same.
  for (const std::string password : {"s3c\"r3t", "s3c r3t", "s3c'r3t"}) {
    const ProcessResult odd = run_migronaut({"--no-env", "--verbose", "--uri",
                                             "postgres://app:" + password + "@127.0.0.1:1/db",
                                             "--dir", project.migrations().string(), "status"});
    EXPECT_EQ(odd.exit_code, 5) << describe(odd);
    EXPECT_TRUE(contains(odd.err, "connecting to postgres://app:")) << odd.err;
    EXPECT_FALSE(contains(odd.out + odd.err, password)) << odd.err;
  }
}

// A MIGRONAUT_* variable nothing reads is a typo until shown otherwise: the run goes on (its
// setting keeps its default), and says so, naming the variable it most resembles.
TEST_F(CliTest, AnUnknownMigronautVariableIsNamedWithTheNearestKnownOne) {
  one_applied_one_pending();
  const ProcessResult typo = project.run({"status"}, {{"MIGRONAUT_LOCK_WAIT_TIMEOUT", "600000"},
                                                      {"MIGRONAUT_NO_COLOR", "1"},
                                                      {"MIGRONAUT_USER", "ops"}});
  EXPECT_EQ(typo.exit_code, 0) << describe(typo);
  EXPECT_TRUE(contains(typo.err,
                       "MIGRONAUT_LOCK_WAIT_TIMEOUT is not a migronaut variable: it is ignored "
                       "(did you mean `MIGRONAUT_LOCK_WAIT_TIMEOUT_MS`?)"))
      << typo.err;
  EXPECT_EQ(line_count(typo.err), 1u) << "only the unknown variable is named: " << typo.err;

  const ProcessResult known = project.run({"status"}, {{"MIGRONAUT_NO_COLOR", "1"}});
  EXPECT_EQ(known.err, "") << describe(known);
}

// --- files up skips ------------------------------------------------------------------------------

// A file meant as a migration whose name up does not read would never run, and pass in silence.
// Each command that lists the folder names it on stderr, once, and goes on: the files named right
// apply. An editor's backup beside its migration is not named. audit warns; lint fails.
TEST_F(CliTest, AFileNamedLikeAMigrationThatUpSkipsIsNamedOnceAndLintFails) {
  project.write_migration("0001-users.sql", kUsers);
  project.write_migration("0001-users.sql~", kUsers);
  project.write_migration("0002-tags.sql.txt", "-- migrate:up\nCREATE TABLE tags (id INTEGER);\n");
  project.write_migration("0003-orders.sql", kOrders);
  project.write_migration("0004-labels.psql", "-- migrate:up\nCREATE TABLE labels (id INT);\n");
  const std::string named =
      "Ignored 2 files named like migrations (0002-tags.sql.txt, "
      "0004-labels.psql): a migration's file name ends in .sql";

  const ProcessResult up = project.run({"up"});
  EXPECT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_EQ(count_of(up.err, named), 1u) << up.err;
  EXPECT_FALSE(contains(up.err, "0001-users.sql~")) << up.err;
  EXPECT_FALSE(contains(up.out, "Ignored")) << "a warning is no report: " << up.out;
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-users.sql", "applied"}, {"0003-orders.sql", "applied"}}));
  SqliteDb db = project.open();
  EXPECT_TRUE(db.has_table("orders"));
  EXPECT_FALSE(db.has_table("tags"));

  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"status"}, {"list"}, {"dry-run", "up"}, {"up"}}) {
    const ProcessResult listed = project.run(command);
    EXPECT_EQ(listed.exit_code, 0) << describe(listed);
    EXPECT_EQ(count_of(listed.err, named), 1u) << command.front() << ": " << listed.err;
  }
  const ProcessResult audit = project.run({"--json", "audit"});
  EXPECT_EQ(audit.exit_code, 0) << describe(audit);
  const nlohmann::json checks = nlohmann::json::parse(audit.out)["checks"];
  const auto ignored = std::find_if(checks.begin(), checks.end(),
                                    [](const nlohmann::json& c) { return c["name"] == "ignored"; });
  ASSERT_NE(ignored, checks.end()) << checks.dump();
  EXPECT_EQ((*ignored)["status"], "warn");
  EXPECT_TRUE(contains((*ignored)["detail"].get<std::string>(), named)) << ignored->dump();
  // Under --json the table is on stderr too: the check's line, and no warning besides.
  EXPECT_EQ(count_of(audit.err, named), 1u) << audit.err;

  // lint reads no database: no URI.
  const auto lint = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--no-env", "--dir", project.migrations().string(), "lint"};
    all.insert(all.end(), args.begin(), args.end());
    return run_migronaut(all, {}, project.cwd());
  };
  const ProcessResult linted = lint({});
  EXPECT_EQ(linted.exit_code, 45) << describe(linted);
  for (const char* name : {"0002-tags.sql.txt", "0004-labels.psql"}) {
    EXPECT_TRUE(contains(
        linted.err, (project.migrations() / name).string() + ": error [ignored-migration-file]"))
        << linted.err;
  }
  EXPECT_FALSE(contains(linted.err, "0001-users.sql~")) << linted.err;
  std::vector<std::string> paths;
  const nlohmann::json document = nlohmann::json::parse(lint({"--json"}).out);
  for (const nlohmann::json& finding : document["findings"]) {
    if (finding["rule"] != "ignored-migration-file") continue;
    EXPECT_EQ(finding["severity"], "error");
    EXPECT_EQ(finding["line"], 0) << "a finding about the name has no line";
    paths.push_back(finding["path"]);
  }
  EXPECT_EQ(paths,
            (std::vector<std::string>{(project.migrations() / "0002-tags.sql.txt").string(),
                                      (project.migrations() / "0004-labels.psql").string()}));
}

// --- help and typos -----------------------------------------------------------------------------

TEST_F(CliTest, NoArgumentsAndHelpPrintUsageOnStdout) {
  const ProcessResult bare = run_migronaut({});
  EXPECT_EQ(bare.exit_code, 0) << describe(bare);
  EXPECT_TRUE(contains(bare.out, "Usage: migronaut")) << bare.out;
  EXPECT_TRUE(contains(bare.out, "status")) << bare.out;
  EXPECT_EQ(run_migronaut({"help"}).out, bare.out);

  const ProcessResult up = run_migronaut({"help", "up"});
  EXPECT_EQ(up.exit_code, 0) << describe(up);
  EXPECT_TRUE(contains(up.out, "Usage: migronaut up")) << up.out;
  EXPECT_FALSE(contains(up.out, migronaut_binary())) << "the absolute path leaks: " << up.out;
  EXPECT_TRUE(contains(up.out, "--wait-timeout DURATION")) << up.out;
  EXPECT_TRUE(contains(up.out, "Example:")) << up.out;
  EXPECT_TRUE(contains(up.out, "Exit codes:")) << up.out;
  EXPECT_TRUE(contains(up.out, "--uri URI")) << "the global flags: " << up.out;
  EXPECT_EQ(run_migronaut({"up", "--help"}).out, up.out);
}

// A named command is built alone (the others' flags cost start-up time): each command the root
// help lists still answers to its own name, with the same help as `help <command>`, and global
// flags before it — their values too — still parse.
TEST_F(CliTest, EveryCommandAnswersToItsOwnName) {
  const std::string usage = run_migronaut({"help"}).out;
  std::istringstream lines(usage.substr(usage.find("Subcommands:")));
  std::vector<std::string> names;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("  ")) names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  ASSERT_GE(names.size(), 16u) << usage;
  for (const std::string& name : names) {
    if (name == "help") continue;
    const ProcessResult own = run_migronaut({"--dir", "up", "--no-env", name, "--help"});
    EXPECT_EQ(own.exit_code, 0) << name << ": " << describe(own);
    EXPECT_TRUE(contains(own.out, "Usage: migronaut " + name)) << own.out;
    EXPECT_EQ(own.out, run_migronaut({"help", name}).out) << name;
  }
}

TEST_F(CliTest, TyposGetADidYouMean) {
  const ProcessResult command = project.run({"--json", "stauts"});
  EXPECT_EQ(command.exit_code, 6) << describe(command);
  EXPECT_TRUE(contains(command.err, "unknown command `stauts` (did you mean `status`?)"))
      << command.err;
  EXPECT_EQ(nlohmann::json::parse(command.out)["error"]["code"], "CONFIG_INVALID");

  const ProcessResult flag = project.run({"status", "--chek"});
  EXPECT_EQ(flag.exit_code, 6) << describe(flag);
  EXPECT_TRUE(contains(flag.err, "unknown flag `--chek` (did you mean `--check`?)")) << flag.err;
  const ProcessResult early = project.run({"--no-wait", "up"});
  EXPECT_EQ(early.exit_code, 6) << describe(early);
  EXPECT_TRUE(contains(early.err, "`--no-wait` is a flag of `up`: put it after the command"))
      << early.err;
  const ProcessResult global = project.run({"status", "--verbos"});
  EXPECT_TRUE(contains(global.err, "did you mean `--verbose`?")) << global.err;
  const ProcessResult help = run_migronaut({"help", "stat"});
  EXPECT_EQ(help.exit_code, 6) << describe(help);
  EXPECT_TRUE(contains(help.err, "did you mean `status`?")) << help.err;
  EXPECT_FALSE(project.exists()) << "a typo touches no database";
}

// A failed migration's error that spans lines (SQLite quotes a CHECK as written) is still one
// line of the table.
TEST_F(CliTest, AMultiLineErrorKeepsListToALinePerMigration) {
  project.write_migration("0001-check.sql",
                          "-- migrate:up\nCREATE TABLE t (x INTEGER CHECK (x\n> 0));\n"
                          "INSERT INTO t VALUES (-1);\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 7);
  const ProcessResult listed = project.run({"list", "--pending"});
  ASSERT_EQ(listed.exit_code, 0) << describe(listed);
  EXPECT_EQ(line_count(listed.out), 1u) << listed.out;
  EXPECT_TRUE(contains(listed.out, "CHECK constraint failed: x > 0")) << listed.out;
}

// A flag without its value is refused before any flag is set, --json included: the error is
// still the one JSON document on stdout.
TEST_F(CliTest, AFlagWithoutItsValueIsStillAnsweredInJson) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--json", "--uri"}, {"--json", "up", "--steps"}, {"--json", "up", "--wait-timeout"}}) {
    const ProcessResult result = project.run(args);
    EXPECT_EQ(result.exit_code, 6) << describe(result);
    ASSERT_FALSE(result.out.empty()) << describe(result);
    EXPECT_EQ(nlohmann::json::parse(result.out)["error"]["code"], "CONFIG_INVALID") << result.out;
  }
  EXPECT_FALSE(project.exists());
}

// Without a URI anywhere, the CLI names its own flag first (the library names the Config field).
TEST_F(CliTest, NoUriAnywhereNamesTheFlagThatSetsIt) {
  const ProcessResult result =
      Process({migronaut_binary(), "--no-env", "--json", "status"}, {}, project.cwd()).wait();
  EXPECT_EQ(result.exit_code, 6) << describe(result);
  EXPECT_TRUE(contains(nlohmann::json::parse(result.out)["error"]["message"].get<std::string>(),
                       "no database URI (set --uri, MIGRONAUT_URI, \"uri\" in the config file or "
                       "DATABASE_URL)"))
      << describe(result);
}

// --- a freshly created migration ----------------------------------------------------------------

TEST_F(CliTest, CreateThenStatusWorksAndOnlyUpRefusesTheEmptyFile) {
  one_applied_one_pending();
  const ProcessResult created = project.run({"--json", "create", "add-tags"});
  ASSERT_EQ(created.exit_code, 0) << describe(created);
  const std::string name =
      std::filesystem::path(nlohmann::json::parse(created.out)["path"].get<std::string>())
          .filename()
          .string();

  const ProcessResult status = project.run({"status"});
  ASSERT_EQ(status.exit_code, 0) << describe(status);
  EXPECT_TRUE(contains(status.out, "empty — fill it in")) << status.out;
  const nlohmann::json rows =
      nlohmann::json::parse(project.run({"--json", "status"}).out)["migrations"];
  EXPECT_EQ(rows.back()["name"], name);
  EXPECT_EQ(rows.back()["upEmpty"], true);
  EXPECT_EQ(project.run({"list"}).exit_code, 0);
  EXPECT_EQ(project.run({"down"}).exit_code, 0) << "down of another migration still works";

  const std::string before = project.dump();
  const ProcessResult up = project.run({"--json", "up"});
  EXPECT_EQ(up.exit_code, 20) << describe(up);
  const nlohmann::json error = nlohmann::json::parse(up.out)["error"];
  EXPECT_EQ(error["context"]["file"], name);
  EXPECT_TRUE(contains(up.err, name)) << up.err;
  EXPECT_EQ(project.dump(), before);

  ASSERT_EQ(project.run({"up", "--to", "0002-orders.sql"}).exit_code, 0)
      << "up short of the empty file works";
  EXPECT_EQ(project.statuses(),
            (Statuses{{"0001-users.sql", "applied"}, {"0002-orders.sql", "applied"}}));
}

// --- down --------------------------------------------------------------------------------------

// `down --all` reverts every batch, newest first; with another selector it is refused before
// anything runs, and with nothing applied it has nothing to do.
TEST_F(CliTest, DownAllRevertsEveryAppliedMigrationAcrossBatches) {
  three_applied_in_two_batches();
  const std::string before = project.dump();
  const ProcessResult both = project.run({"down", "--all", "--steps", "1"});
  EXPECT_EQ(both.exit_code, 6) << describe(both);
  EXPECT_TRUE(contains(both.err, "down takes one of a file, --steps, --batch, --to or --all"))
      << both.err;
  EXPECT_EQ(project.dump(), before);
  const ProcessResult preview = project.run({"dry-run", "down", "--all"});
  EXPECT_TRUE(contains(preview.out, "down would run 3 migration(s)")) << describe(preview);
  EXPECT_EQ(project.dump(), before);

  const ProcessResult all = project.run({"down", "--all"});
  ASSERT_EQ(all.exit_code, 0) << describe(all);
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-users.sql", "reverted"},
                                          {"0002-orders.sql", "reverted"},
                                          {"0003-items.sql", "reverted"}}));
  EXPECT_EQ(app_tables(), std::vector<Row>{});
  const auto items = all.err.find("reverted 0003-items.sql");
  const auto orders = all.err.find("reverted 0002-orders.sql");
  const auto users = all.err.find("reverted 0001-users.sql");
  ASSERT_NE(users, std::string::npos) << all.err;
  EXPECT_LT(items, orders) << all.err;
  EXPECT_LT(orders, users) << all.err;

  const std::string after = project.dump();
  const ProcessResult again = project.run({"down", "--all"});
  EXPECT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_EQ(project.dump(), after);
}

// `down --all` over repeatables alone reverts nothing, and says why rather than only that.
TEST_F(CliTest, DownAllNamesTheRepeatablesItKeeps) {
  project.write_migration("R-view.sql", "-- migrate:up\nCREATE VIEW v AS SELECT 1 AS x;\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  const ProcessResult all = project.run({"down", "--all"});
  ASSERT_EQ(all.exit_code, 0) << describe(all);
  const std::string note = "R-view.sql stays applied: repeatable, with no down section";
  EXPECT_TRUE(contains(all.err, note)) << all.err;
  EXPECT_EQ(all.err.find(note), all.err.rfind(note)) << "said once: " << all.err;
  EXPECT_EQ(project.statuses(), (Statuses{{"R-view.sql", "applied"}}));
}

// Reverting a migration by name under newer applied ones is allowed, and told before the lock is
// taken, naming them; naming the newest applied one is no cause for the warning.
TEST_F(CliTest, DownOfAFileUnderNewerAppliedOnesWarnsNamingThem) {
  three_applied_in_two_batches();
  const std::string warning =
      "Reverting 0001-users.sql while 2 newer applied migrations stay applied: 0002-orders.sql, "
      "0003-items.sql";
  const ProcessResult older = project.run({"down", "0001-users.sql"});
  ASSERT_EQ(older.exit_code, 0) << describe(older);
  EXPECT_TRUE(contains(older.err, warning)) << older.err;
  EXPECT_LT(older.err.find(warning), older.err.find("reverting 0001-users.sql")) << older.err;
  EXPECT_EQ(project.statuses(), (Statuses{{"0001-users.sql", "reverted"},
                                          {"0002-orders.sql", "applied"},
                                          {"0003-items.sql", "applied"}}));
  EXPECT_EQ(app_tables(), (std::vector<Row>{{"items"}, {"orders"}}));

  const ProcessResult newest = project.run({"down", "0003-items.sql"});
  ASSERT_EQ(newest.exit_code, 0) << describe(newest);
  EXPECT_FALSE(contains(newest.err, "newer applied")) << newest.err;
  EXPECT_EQ(project.statuses()["0003-items.sql"], "reverted");
  EXPECT_EQ(app_tables(), std::vector<Row>{{"orders"}});
}

// `redo <file>` of an older migration reverts what newer ones were built on: told first, as
// `down <file>` tells it. Redone, it is the most recently applied, and a `down` of it still names
// the later versions.
TEST_F(CliTest, RedoOfAFileUnderNewerAppliedOnesWarnsNamingThem) {
  three_applied_in_two_batches();
  const std::string warning =
      "Reverting 0001-users.sql while 2 newer applied migrations stay applied: 0002-orders.sql, "
      "0003-items.sql";
  const ProcessResult redone = project.run({"redo", "0001-users.sql"});
  ASSERT_EQ(redone.exit_code, 0) << describe(redone);
  EXPECT_TRUE(contains(redone.err, warning)) << redone.err;
  EXPECT_LT(redone.err.find(warning), redone.err.find("reverting 0001-users.sql")) << redone.err;
  EXPECT_EQ(project.statuses()["0001-users.sql"], "applied");

  const ProcessResult later = project.run({"down", "0001-users.sql"});
  ASSERT_EQ(later.exit_code, 0) << describe(later);
  EXPECT_TRUE(contains(later.err, "while 2 newer applied migrations stay applied")) << later.err;
}

}  // namespace
}  // namespace migronaut::testing

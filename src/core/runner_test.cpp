#include "core/runner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>

#include "store/registry.hpp"
#include "support/fake_clock.hpp"
#include "support/fault_store.hpp"
#include "support/sqlite_db.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;
using ::testing::Contains;
using testing::FakeClock;
using testing::FaultStore;
using ::testing::HasSubstr;

constexpr milliseconds kTtl{1000};  // renewals every 500 ms, the deadline at 750 ms

// Keeps the lines it is given; debug lines only when asked to, as --verbose does.
class RecordingLogger : public Logger {
 public:
  void log(Level, std::string_view message) override { lines.emplace_back(message); }
  bool enabled(Level level) const override { return level != Level::kDebug || debug; }

  bool debug = false;
  std::vector<std::string> lines;
};

// The runner on a real SQLite database: migrations on one connection, the lease on another
// (wrapped in a FaultStore), time on a FakeClock.
class RunnerTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  Config config = config_from_json({{"uri", "sqlite:" + dir.file("app.db").string()}});
  std::unique_ptr<FaultStore> store = std::make_unique<FaultStore>(open_store(config));
  FaultStore lock_store{open_store(config, {.statement_bound = milliseconds(50)})};
  FakeClock clock;
  RunStop stop;
  RecordingLogger logger;
  Hooks hooks;
  std::unique_ptr<Lease> lease;
  std::mutex events_mutex;
  std::vector<std::string> lease_events;  // the lease's events by name, as emitted

  RunnerTest() {
    store->ensure_schema();
    LeaseOptions options;
    options.run_id = "run-1";
    options.ttl = kTtl;
    options.clock = &clock;
    options.emit = [this](const Event& event) {
      std::lock_guard lock(events_mutex);
      lease_events.push_back(event.name);
    };
    lease = Lease::acquire(lock_store, stop, options);
  }
  ~RunnerTest() override {
    if (lease) lease->release();
  }

  static Migration code_migration(std::string name, MigrationBody body) {
    Migration migration;
    migration.name = std::move(name);
    migration.checksum = "c";
    migration.up = std::move(body);
    migration.options.transactional = true;
    return migration;
  }

  std::vector<RunResult> run(const std::vector<Migration>& migrations, ScriptChecks checks = {}) {
    std::vector<PlanEntry> entries;
    for (const Migration& migration : migrations) {
      PlanEntry& entry = entries.emplace_back();
      entry.name = migration.name;
      entry.migration = &migration;
    }
    std::vector<const PlanEntry*> targets;
    for (const PlanEntry& entry : entries) targets.push_back(&entry);
    RecordStamp stamp;
    stamp.run_id = "run-1";
    Runner runner({.store = *store,
                   .config = config,
                   .stop = stop,
                   .lease = lease.get(),
                   .stamp = stamp,
                   .logger = logger,
                   .hooks = hooks,
                   .emit = [](const Event&) {},
                   .clock = &clock,
                   .checks = std::move(checks)});
    std::vector<RunResult> results;
    runner.run(Direction::kUp, targets, 1, results);
    return results;
  }

  RecordStatus status_of(const std::string& name) {
    for (const ChangelogRecord& record : store->read_changelog()) {
      if (record.name == name) return record.status;
    }
    ADD_FAILURE() << name << " has no record";
    return RecordStatus::kFailed;
  }

  void expect_each_migration_named_while_it_runs(int renewals) {
    constexpr int kCount = 5;
    std::vector<Migration> migrations;
    std::vector<LockProgress> shown;
    for (int i = 1; i <= kCount; ++i) {
      migrations.push_back(code_migration("000" + std::to_string(i) + "-m", [&](MigrationContext&) {
        const auto holder = store->read_lock();
        ASSERT_TRUE(holder);
        shown.push_back({holder->migration, holder->step, holder->total});
      }));
    }
    EXPECT_EQ(run(migrations).size(), static_cast<std::size_t>(kCount));
    EXPECT_EQ(lock_store.renewals(), renewals);
    ASSERT_EQ(shown.size(), static_cast<std::size_t>(kCount));
    // The first is named by a renewal (SQLite) or, past a second, by the heartbeat (the others).
    for (int i = renewals > 0 ? 0 : 1; i < kCount; ++i) {
      EXPECT_EQ(shown[i].migration, migrations[i].name);
      EXPECT_EQ(shown[i].step, i + 1);
      EXPECT_EQ(shown[i].total, kCount);
    }
    const auto holder = store->read_lock();  // after the last commit: the last, named
    ASSERT_TRUE(holder);
    EXPECT_EQ(holder->migration, migrations.back().name);
  }
};

// Issue 9, case 3: a transactional SQLite migration holds the database's only write slot, so
// the heartbeat cannot renew while it runs. That is no loss — nobody else can write either,
// and the migration's commit renews the lease — so a migration far longer than the TTL keeps
// the lock and the run goes on.
TEST_F(RunnerTest, ATransactionalSqliteMigrationLongerThanTheTtlKeepsTheLock) {
  const std::vector<Migration> migrations = {
      code_migration("0001-long",
                     [&](MigrationContext& context) {
                       ASSERT_EQ(
                           sqlite3_exec(context.handle.sqlite, "CREATE TABLE users (id INTEGER)",
                                        nullptr, nullptr, nullptr),
                           SQLITE_OK);
                       // Three TTLs pass while the body holds the write slot; each renewal
                       // meanwhile is refused as busy.
                       for (int renewal = 1; renewal <= 6; ++renewal) {
                         clock.wait_for_sleepers(2);
                         clock.advance(kTtl / 2);
                         ASSERT_TRUE(lock_store.wait_for_renewals(renewal + 1));
                       }
                       EXPECT_FALSE(context.stop.stop_requested());
                     }),
      code_migration("0002-next", [&](MigrationContext& context) {
        ASSERT_EQ(sqlite3_exec(context.handle.sqlite, "CREATE TABLE orders (id INTEGER)", nullptr,
                               nullptr, nullptr),
                  SQLITE_OK);
        // The renewals during the first may have written over its commit's announcement of this
        // one, so it was announced again, by a renewal of its own.
        const auto holder = store->read_lock();
        ASSERT_TRUE(holder);
        EXPECT_EQ(holder->migration, "0002-next");
      })};
  const std::vector<RunResult> results = run(migrations);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(stop.requested());
  EXPECT_EQ(status_of("0001-long"), RecordStatus::kApplied);
  EXPECT_EQ(status_of("0002-next"), RecordStatus::kApplied);
  const auto holder = store->read_lock();
  ASSERT_TRUE(holder);
  EXPECT_EQ(holder->run_id, "run-1");
}

// Issue 11: a transactional migration's fenced commit writes the next migration's progress to
// the lock record, so the record names each migration while it runs and moving on costs no
// renewal (no round trip, and on SQLite no write of its own). Where the store cannot fold the
// progress into the commit (SQLite), only the first migration of the run is announced by a
// renewal.
TEST_F(RunnerTest, EachCommitAnnouncesTheNextMigrationWithoutARenewal) {
  store->claim_fence_records_progress(true);  // as PostgreSQL and MongoDB do
  expect_each_migration_named_while_it_runs(0);
}

TEST_F(RunnerTest, OnSqliteOnlyTheFirstMigrationOfARunIsAnnouncedByARenewal) {
  expect_each_migration_named_while_it_runs(1);
}

// --verbose's "sending" lines need each script split into statements, a parse on PostgreSQL:
// the split happens only when debug lines are kept.
Migration script_migration(std::string name, std::string text) {
  Migration migration;
  migration.name = std::move(name);
  migration.checksum = "c";
  migration.up = Script{std::move(text)};
  migration.down = Script{"SELECT 1;"};
  return migration;
}

TEST_F(RunnerTest, ScriptsAreSplitIntoStatementsOnlyWhenDebugLinesAreKept) {
  run({script_migration("0001-quiet", "CREATE TABLE quiet (id INTEGER);")});
  EXPECT_EQ(store->scripts_split(), 0);
  logger.debug = true;
  run({script_migration("0002-verbose", "CREATE TABLE verbose (id INTEGER);")});
  EXPECT_EQ(store->scripts_split(), 1);
  EXPECT_THAT(logger.lines,
              Contains(HasSubstr("sending 0002-verbose: CREATE TABLE verbose (id INTEGER)")));
  EXPECT_EQ(status_of("0001-quiet"), RecordStatus::kApplied);
}

// Each script is checked once per direction in a run: those checked before the lock are not
// parsed again under it, while a target that was not among them still is.
TEST_F(RunnerTest, AScriptCheckedBeforeTheLockIsNotCheckedAgainUnderIt) {
  const std::vector<Migration> migrations = {
      script_migration("0001-a", "CREATE TABLE a (id INTEGER);"),
      script_migration("0002-b", "CREATE TABLE b (id INTEGER);")};
  std::vector<PlanEntry> entries(2);
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i].migration = &migrations[i];
  ScriptChecks checks;
  checks.check(*store, config, Direction::kUp, {&entries[0]});
  checks.check(*store, config, Direction::kUp, {&entries[0]});
  EXPECT_EQ(store->scripts_checked(), 1);
  checks.check(*store, config, Direction::kDown, {&entries[0]});
  EXPECT_EQ(store->scripts_checked(), 2);  // the down script is another one

  run(migrations, std::move(checks));  // 0001-a's up script was checked already, 0002-b's was not
  EXPECT_EQ(store->scripts_checked(), 3);
  EXPECT_EQ(status_of("0002-b"), RecordStatus::kApplied);
  run({script_migration("0003-c", "CREATE TABLE c (id INTEGER);")});  // nothing checked before
  EXPECT_EQ(store->scripts_checked(), 4);
}

// The timeouts are SET LOCAL in a migration's transaction: a section the config runs without one
// would drop them silently, so the check refuses it before anything runs, naming the file and
// the section; one whose marker asks for a transaction keeps them.
TEST_F(RunnerTest, TimeoutsOfASectionTheConfigRunsWithoutATransactionAreRefused) {
  config.use_transaction = false;
  Migration timed = script_migration("0001-timed", "CREATE TABLE timed (id INTEGER);");
  timed.down_options.emplace().statement_timeout = milliseconds(1500);
  PlanEntry entry;
  entry.migration = &timed;
  ScriptChecks checks;
  EXPECT_NO_THROW(checks.check(*store, config, Direction::kUp, {&entry}));
  try {
    checks.check(*store, config, Direction::kDown, {&entry});
    ADD_FAILURE() << "the down section's statement_timeout was not refused";
  } catch (const MigrationInvalidFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("0001-timed, down section: 'statement_timeout:1500ms' cannot "
                                    "apply when useTransaction is false in the config"));
  }
  EXPECT_EQ(store->scripts_checked(), 1);  // the up script alone

  timed.down_options->transactional = true;
  EXPECT_NO_THROW(ScriptChecks().check(*store, config, Direction::kDown, {&entry}));
}

// A non-transactional migration has no fenced commit to carry its progress (and SQLite's single
// writer would keep a renewal from showing a long one): the lease is renewed before it runs, so
// waiters see it by name while it runs.
TEST_F(RunnerTest, ANonTransactionalMigrationRenewsTheLeaseWithItsProgressBeforeItRuns) {
  Migration outside = code_migration("0001-outside", [&](MigrationContext&) {
    EXPECT_EQ(lock_store.renewals(), 1);
    const auto holder = store->read_lock();
    ASSERT_TRUE(holder);
    EXPECT_EQ(holder->migration, "0001-outside");
    EXPECT_EQ(holder->step, 1);
  });
  outside.options.transactional = false;
  EXPECT_EQ(run({outside}).size(), 1u);
}

// Issue 9, case 4: a C++ body that honours ctx.stop and throws (as docs/API.md recommends)
// ends the run with the stop's own reason, LOCK_LOST — not MIGRATION_EXECUTION_FAILED — and,
// the lock having been taken over, no failure record is written after the loss.
TEST_F(RunnerTest, ABodyStoppedByALostLockEndsTheRunWithLockLost) {
  lock_store.set_fault([](std::string_view statement) {
    if (statement == "renew") throw ConnectionFailedError("injected: down");
  });
  // Outside a transaction, so the lock can really go while the body runs.
  Migration honours_stop = code_migration("0001-honours-stop", [&](MigrationContext& context) {
    store->force_release({});  // a peer may take the lock from here on
    clock.advance(kTtl);       // past the deadline: the watchdog stops the run
    std::mutex mutex;
    std::condition_variable_any stopped;
    std::unique_lock lock(mutex);
    stopped.wait(lock, context.stop, [] { return false; });
    throw std::runtime_error("stopped as asked");
  });
  honours_stop.options.transactional = false;
  try {
    run({honours_stop});
    FAIL() << "expected LOCK_LOST";
  } catch (const LockLostError& error) {
    EXPECT_EQ(error.context()["results"], nlohmann::json::array());
  }
  // The `applying` record from before the body; no `failed` one after the loss.
  EXPECT_EQ(status_of("0001-honours-stop"), RecordStatus::kApplying);
  lease.reset();  // its record is gone: nothing to release
}

// Issue 9, case 5: the stop is checked just before the body, after beforeEach and the
// migration's announcement, so a stop that arrives in between still keeps the body from running.
TEST_F(RunnerTest, AStopDuringBeforeEachKeepsTheBodyFromStarting) {
  bool ran = false;
  hooks.before_each = [&](const std::string&, const HookInfo&) {
    stop.request(RunAbortedError("stop requested"));
  };
  EXPECT_THROW(run({code_migration("0001-a", [&](MigrationContext&) { ran = true; })}),
               RunAbortedError);
  EXPECT_FALSE(ran);
  EXPECT_TRUE(store->read_changelog().empty());
}

// A lock lost during the last migration: when everything the run applied committed in a fenced
// transaction, the run succeeds and says so; had anything run unfenced, it fails with LOCK_LOST.
TEST_F(RunnerTest, ALockLostDuringTheLastMigrationFailsTheRunOnlyIfSomethingRanUnfenced) {
  lock_store.set_fault([](std::string_view statement) {
    if (statement == "renew") throw ConnectionFailedError("injected: down");
  });
  auto losing = [&](MigrationContext&) {
    clock.advance(kTtl);
    EXPECT_FALSE(lease->held());
  };
  EXPECT_EQ(run({code_migration("0001-fenced", losing)}).size(), 1u);
  EXPECT_EQ(status_of("0001-fenced"), RecordStatus::kApplied);

  Migration unfenced = code_migration("0002-unfenced", [](MigrationContext&) {});
  unfenced.options.transactional = false;
  EXPECT_THROW(run({unfenced}), LockLostError);
}

// A fence that finds another run's lock refuses the commit and ends the run; the loss is
// reported as the heartbeat reports its own: one lock:lost event.
TEST_F(RunnerTest, AFenceThatFindsTheLockTakenReportsTheLossOnce) {
  const std::string take_lock = "UPDATE " + config.lock_table + " SET owner = 'run-2'";
  auto taken = [&](MigrationContext& context) {
    // In the migration's own transaction: the fence, later in it, finds run-2's lock.
    ASSERT_EQ(sqlite3_exec(context.handle.sqlite, take_lock.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK);
  };
  EXPECT_THROW(run({code_migration("0001-taken", taken), code_migration("0002-never", taken)}),
               LockLostError);
  EXPECT_TRUE(store->read_changelog().empty());  // both rolled back or never run
  EXPECT_FALSE(lease->held());
  std::lock_guard lock(events_mutex);
  EXPECT_EQ(std::count(lease_events.begin(), lease_events.end(), "lock:lost"), 1);
}

// A non-transactional migration's fenced "applying" mark is its fence: finding another run's
// lock there keeps the body from starting and reports the loss the same way.
TEST_F(RunnerTest, AnApplyingMarkThatFindsTheLockTakenReportsTheLossAndRunsNothing) {
  bool ran = false;
  Migration outside = code_migration("0001-outside", [&](MigrationContext&) { ran = true; });
  outside.options.transactional = false;
  hooks.before_each = [&](const std::string&, const HookInfo&) {
    testing::SqliteDb(dir.file("app.db"))
        .exec("UPDATE " + config.lock_table + " SET owner = 'run-2'");
  };
  EXPECT_THROW(run({outside}), LockLostError);
  EXPECT_FALSE(ran);
  EXPECT_TRUE(store->read_changelog().empty());
  std::lock_guard lock(events_mutex);
  EXPECT_EQ(std::count(lease_events.begin(), lease_events.end(), "lock:lost"), 1);
}

// Blocks until `stop` is requested, then returns: a body that sees the stop and goes on anyway.
void wait_for(const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any stopped;
  std::unique_lock lock(mutex);
  stopped.wait(lock, stop, [] { return false; });
}

void create_table(MigrationContext& context, const std::string& table) {
  ASSERT_EQ(sqlite3_exec(context.handle.sqlite, ("CREATE TABLE " + table + " (id INTEGER)").c_str(),
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
}

// A body that ignores its timeout in a transaction must not commit: the run reports the timeout,
// so the migration is rolled back and recorded failed, as a statement the watchdog interrupts is.
TEST_F(RunnerTest, ABodyThatOutlivesItsTimeoutInATransactionRollsBackAndIsRecordedFailed) {
  Migration slow = code_migration("0001-slow", [&](MigrationContext& context) {
    create_table(context, "backfilled");
    clock.wait_for_sleepers(3);        // the lease's two threads and the watchdog
    clock.advance(milliseconds(200));  // past the timeout: the watchdog stops the body
    wait_for(context.stop);
  });
  slow.timeout = milliseconds(100);
  EXPECT_THROW(run({slow}), MigrationTimeoutError);
  EXPECT_EQ(status_of("0001-slow"), RecordStatus::kFailed);
  EXPECT_FALSE(testing::SqliteDb(dir.file("app.db")).has_table("backfilled"));
}

// A graceful stop reaches the body; one that heeds it in a transaction rolls back whole, so the
// run is aborted and the migration stays pending, not failed.
TEST_F(RunnerTest, ABodyThatHeedsAGracefulStopInATransactionLeavesItsMigrationPending) {
  Migration heeds = code_migration("0001-heeds", [&](MigrationContext& context) {
    create_table(context, "half_done");
    stop.request(RunAbortedError("stop requested"));
    wait_for(context.stop);
    throw std::runtime_error("stopped as asked");
  });
  EXPECT_THROW(run({heeds}), RunAbortedError);
  EXPECT_TRUE(store->read_changelog().empty());
  EXPECT_FALSE(testing::SqliteDb(dir.file("app.db")).has_table("half_done"));
}

// A stop between migrations says what the run did and what it left for the next one.
TEST_F(RunnerTest, AStopBetweenMigrationsSaysHowManyItLeftNotRun) {
  const auto asks_to_stop = [&](MigrationContext&) { stop.request(RunAbortedError("stopped")); };
  try {
    run({code_migration("0001-a", asks_to_stop), code_migration("0002-b", [](auto&) {}),
         code_migration("0003-c", [](auto&) {})});
    ADD_FAILURE() << "expected the run to stop";
  } catch (const RunAbortedError& error) {
    EXPECT_STREQ(error.what(), "stopped (1 done, 2 not run)");
    EXPECT_EQ(error.context()["notRun"], 2);
    EXPECT_EQ(error.context()["results"].size(), 1u);
  }
  EXPECT_EQ(status_of("0001-a"), RecordStatus::kApplied);
}

// User code that throws something other than a std::exception fails as a typed error too.
TEST_F(RunnerTest, WhatUserCodeThrowsThatIsNotAStdExceptionIsATypedFailure) {
  EXPECT_THROW(run({code_migration("0001-int", [](MigrationContext&) { throw 42; })}),
               MigrationExecutionFailedError);
  EXPECT_EQ(status_of("0001-int"), RecordStatus::kFailed);
  hooks.before_each = [](const std::string&, const HookInfo&) { throw 42; };
  EXPECT_THROW(run({code_migration("0002-hooked", [](MigrationContext&) {})}), HookFailedError);
}

// A script of another tool's plain file that can run only outside a transaction runs outside
// one wherever its settings would run it in one; nothing else changes.
TEST(RunsInTransactionTest, APlainFileTheStoreCanRunOnlyOutsideOneRunsOutside) {
  const auto outside = [](const Script&) { return true; };
  const auto inside = [](const Script&) { return false; };
  Migration plain;
  plain.up = Script{.text = "CREATE INDEX CONCURRENTLY i ON t (a);", .plain_file = true};
  EXPECT_FALSE(runs_in_transaction(plain, Direction::kUp, true, outside));
  EXPECT_TRUE(runs_in_transaction(plain, Direction::kUp, true, inside));
  EXPECT_FALSE(runs_in_transaction(plain, Direction::kUp, false, inside));
  EXPECT_TRUE(runs_in_transaction(plain, Direction::kDown, true, outside));  // no down

  Migration marked;  // migronaut's and dbmate's files say it with their marker
  marked.up = Script{.text = "CREATE INDEX CONCURRENTLY i ON t (a);"};
  EXPECT_TRUE(runs_in_transaction(marked, Direction::kUp, true, outside));
  marked.options.transactional = false;
  EXPECT_FALSE(runs_in_transaction(marked, Direction::kUp, true, inside));
  plain.options.transactional = true;  // a file's own setting (none can, today) would win
  EXPECT_TRUE(runs_in_transaction(plain, Direction::kUp, true, outside));
}

}  // namespace
}  // namespace migronaut

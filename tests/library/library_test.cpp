// The library API as an embedding application uses it: run_migrations at boot,
// pending_migrations as a readiness probe, C++ migrations registered in code, events, hooks and
// typed errors, all against real SQLite files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "migronaut/migrator.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

// Keeps the lines a run logs, so the tests stay quiet and can look at what bodies logged.
class RecordingLogger : public Logger {
 public:
  void log(Level level, std::string_view message) override {
    std::lock_guard lock(mutex_);
    lines_.emplace_back(message);
    levels_.push_back(level);
  }
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }
  // The lines logged at `level`.
  std::vector<std::string> lines_at(Level level) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (levels_[i] == level) kept.push_back(lines_[i]);
    }
    return kept;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
  std::vector<Level> levels_;  // of each line
};

// A connection of the test's own to the database file, to look at (or tamper with) its state.
class Database {
 public:
  explicit Database(const std::filesystem::path& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    sqlite3_busy_timeout(db_, 10'000);
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(const std::string& sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
    const std::string message = error != nullptr ? error : "";
    sqlite3_free(error);
    ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << message;
  }
  std::int64_t count(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
    std::int64_t value = -1;
    if (sqlite3_step(statement) == SQLITE_ROW) value = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    return value;
  }
  std::string text(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
    std::string value;
    if (sqlite3_step(statement) == SQLITE_ROW) {
      value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
    sqlite3_finalize(statement);
    return value;
  }
  bool has_table(const std::string& name) {
    return count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + name +
                 "'") == 1;
  }
  // A live lock held by another run, written as that run would have written it.
  void hold_lock() {
    exec(
        "INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host) VALUES "
        "('migronaut_lock', CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),"
        " 60000, 'peer-run', 'peer-nonce', 4242, 'peer-host')");
  }
  void drop_lock() { exec("DELETE FROM _migronaut_locks"); }

 private:
  sqlite3* db_ = nullptr;
};

void exec_on(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  if (rc != SQLITE_OK) throw std::runtime_error(message);
}

std::string create_table_sql(const std::string& table) {
  return "-- migrate:up\nCREATE TABLE " + table + " (id INTEGER);\n-- migrate:down\nDROP TABLE " +
         table + ";\n";
}

std::vector<std::string> names_of(const std::vector<RunResult>& results) {
  std::vector<std::string> names;
  for (const RunResult& result : results) names.push_back(result.name);
  return names;
}

CodeMigration code_migration(std::string name, MigrationBody up, MigrationBody down = {}) {
  CodeMigration migration;
  migration.name = std::move(name);
  migration.up = std::move(up);
  migration.down = std::move(down);
  return migration;
}

RunMigrationsOptions run_options(MigratorOptions migrator) {
  RunMigrationsOptions options;
  options.migrator = std::move(migrator);
  return options;
}

class LibraryTest : public ::testing::Test {
 protected:
  LibraryTest() {
    config_.uri = "sqlite:" + dir_.file("app.db").string();
    config_.migrations_dir = dir_.path() / "migrations";
    std::filesystem::create_directories(config_.migrations_dir);
  }

  void add_file(const std::string& name, const std::string& table) {
    dir_.write(std::filesystem::path("migrations") / name, create_table_sql(table));
  }
  // 0001-users.sql applied, 0002-orders.sql pending.
  void one_applied_one_pending() {
    add_file("0001-users.sql", "users");
    run_migrations(config_, quiet_run());
    add_file("0002-orders.sql", "orders");
  }
  MigratorOptions quiet() const {
    MigratorOptions options;
    options.logger = logger_;
    return options;
  }
  RunMigrationsOptions quiet_run() const { return run_options(quiet()); }
  std::optional<StatusRow> status_of(const std::string& name, MigratorOptions options) {
    Migrator migrator(config_, std::move(options));
    for (StatusRow& row : migrator.status()) {
      if (row.name == name) return row;
    }
    return std::nullopt;
  }
  Database database() const { return Database(dir_.file("app.db")); }
  // Fills the database file with bytes SQLite cannot read as a database, and returns them.
  std::string write_a_database_that_is_not_one() const {
    const std::string not_a_database(8192, 'x');
    dir_.write("app.db", not_a_database);
    return not_a_database;
  }

  TempDir dir_{"migronaut-library"};
  Config config_;
  std::shared_ptr<RecordingLogger> logger_ = std::make_shared<RecordingLogger>();
};

// --- run_migrations and pending_migrations -------------------------------------------------

TEST_F(LibraryTest, RunMigrationsAppliesThenIsUpToDateWithoutTakingTheLock) {
  add_file("0001-users.sql", "users");
  add_file("0002-orders.sql", "orders");

  const RunMigrationsResult first = run_migrations(config_, quiet_run());
  EXPECT_THAT(names_of(first.applied), ElementsAre("0001-users.sql", "0002-orders.sql"));
  EXPECT_FALSE(first.up_to_date);
  EXPECT_FALSE(first.waited);

  std::vector<std::string> events;
  RunMigrationsOptions again = quiet_run();
  again.migrator.listeners.push_back([&](const Event& event) { events.push_back(event.name); });
  const RunMigrationsResult second = run_migrations(config_, again);
  EXPECT_TRUE(second.up_to_date);
  EXPECT_TRUE(second.applied.empty());
  EXPECT_EQ(std::count(events.begin(), events.end(), "lock:acquired"), 0);
  Database db = database();
  EXPECT_EQ(db.count("SELECT count(*) FROM _migronaut_locks"), 0);
  EXPECT_TRUE(db.has_table("orders"));
}

// A first boot creates the database, so that it was missing is no news there; reading a
// database that does not exist says so.
TEST_F(LibraryTest, AFirstBootSaysNothingOfTheMissingDatabaseThatAReadReports) {
  add_file("0001-users.sql", "users");
  const auto mentions_missing = Contains(HasSubstr("does not exist"));
  Migrator(config_, quiet()).status();
  EXPECT_THAT(logger_->lines(), mentions_missing);

  const auto boot_logger = std::make_shared<RecordingLogger>();
  MigratorOptions boot;
  boot.logger = boot_logger;
  const RunMigrationsResult result = run_migrations(config_, run_options(boot));
  EXPECT_THAT(names_of(result.applied), ElementsAre("0001-users.sql"));
  EXPECT_THAT(boot_logger->lines(), Not(mentions_missing));
}

// The OS user is looked up only when a run writes, and then recorded; a configured user wins.
TEST_F(LibraryTest, RecordsNameTheOsUserUnlessAUserIsConfigured) {
  const passwd* user = getpwuid(geteuid());  // none for a bare uid, as in some containers
  const std::string os_user = user != nullptr ? user->pw_name : "unknown";
  add_file("0001-users.sql", "users");
  ASSERT_TRUE(config_.executed_by.empty());
  run_migrations(config_, quiet_run());
  add_file("0002-orders.sql", "orders");
  config_.executed_by = "deployer";
  run_migrations(config_, quiet_run());
  Database db = database();
  EXPECT_EQ(db.text("SELECT executed_by FROM _migronaut_migrations WHERE name = '0001-users.sql'"),
            os_user);
  EXPECT_EQ(db.text("SELECT executed_by FROM _migronaut_migrations WHERE name = '0002-orders.sql'"),
            "deployer");
}

TEST_F(LibraryTest, RunMigrationsWaitsForAPeerHoldingTheLock) {
  one_applied_one_pending();
  Database db = database();
  db.hold_lock();
  // The peer finishes a little later and releases its lock.
  std::jthread peer([this] {
    std::this_thread::sleep_for(milliseconds(300));
    database().drop_lock();
  });

  RunMigrationsOptions options = quiet_run();
  options.on_lock_held = OnLockHeld::kWait;
  options.lock_poll_interval = milliseconds(50);
  int reports = 0;
  options.on_wait = [&](const LockWaitReport& report) {
    ++reports;
    EXPECT_EQ(report.holder.value_or(LockInfo{}).run_id, "peer-run");
  };
  const RunMigrationsResult result = run_migrations(config_, options);
  EXPECT_TRUE(result.waited);
  EXPECT_GT(result.attempts, 1);
  EXPECT_GE(reports, 1);
  EXPECT_THAT(names_of(result.applied), ElementsAre("0002-orders.sql"));
  EXPECT_TRUE(db.has_table("orders"));
  EXPECT_EQ(db.count("SELECT count(*) FROM _migronaut_locks"), 0);
}

TEST_F(LibraryTest, RunMigrationsWaitsByDefault) {
  EXPECT_EQ(config_.on_lock_held, OnLockHeld::kWait);
  one_applied_one_pending();
  Database db = database();
  db.hold_lock();

  RunMigrationsOptions options = quiet_run();  // no on_lock_held: the config's default
  options.lock_poll_interval = milliseconds(50);
  // The peer finishes once we are seen waiting for it.
  options.on_wait = [&](const LockWaitReport&) { database().drop_lock(); };
  const RunMigrationsResult result = run_migrations(config_, options);
  EXPECT_TRUE(result.waited);
  EXPECT_THAT(names_of(result.applied), ElementsAre("0002-orders.sql"));
  EXPECT_TRUE(db.has_table("orders"));
}

TEST_F(LibraryTest, StopTokenAbortsTheWaitForTheLock) {
  one_applied_one_pending();
  Database db = database();
  db.hold_lock();

  std::stop_source sigterm;
  RunMigrationsOptions options = quiet_run();
  options.on_lock_held = OnLockHeld::kWait;
  options.lock_poll_interval = milliseconds(50);
  options.stop = sigterm.get_token();
  // The pod is told to stop while it waits.
  options.on_wait = [&](const LockWaitReport&) { sigterm.request_stop(); };
  EXPECT_THROW(run_migrations(config_, options), RunAbortedError);

  EXPECT_FALSE(db.has_table("orders"));
  EXPECT_EQ(db.count("SELECT count(*) FROM _migronaut_locks WHERE owner = 'peer-run'"), 1);
  EXPECT_THAT(pending_migrations(config_, quiet()), ElementsAre("0002-orders.sql"));
}

TEST_F(LibraryTest, PendingMigrationsListsNamesAndWritesNothing) {
  add_file("0001-users.sql", "users");
  add_file("0003-orders.sql", "orders");
  MigratorOptions options = quiet();
  options.migrations.push_back(code_migration("0002-seed", [](MigrationContext&) {}));

  EXPECT_THAT(pending_migrations(config_, options),
              ElementsAre("0001-users.sql", "0002-seed", "0003-orders.sql"));
  EXPECT_EQ(database().count("SELECT count(*) FROM sqlite_master"), 0);

  run_migrations(config_, run_options(options));
  EXPECT_TRUE(pending_migrations(config_, options).empty());
}

// A readiness probe is asked every few seconds: a missing database, which its answer (everything
// pending) already tells, is no warning each time, only a debug line.
TEST_F(LibraryTest, PendingMigrationsOfAMissingDatabaseWarnsOfNothing) {
  add_file("0001-users.sql", "users");
  for (int probe = 0; probe < 3; ++probe) {
    EXPECT_THAT(pending_migrations(config_, quiet()), ElementsAre("0001-users.sql"));
  }
  EXPECT_THAT(logger_->lines_at(Logger::Level::kWarn), Not(Contains(HasSubstr("does not exist"))));
  EXPECT_THAT(logger_->lines_at(Logger::Level::kDebug), Contains(HasSubstr("does not exist")));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("app.db")));
}

// --- C++ migrations -------------------------------------------------------------------------

TEST_F(LibraryTest, CodeMigrationsRunInOrderAmongFilesWithTheirContext) {
  add_file("0001-users.sql", "users");
  add_file("0003-orders.sql", "orders");
  RunInfo seen;
  bool stop_possible = false;
  MigratorOptions options = quiet();
  CodeMigration plans = code_migration("0002-plans", [&](MigrationContext& context) {
    ASSERT_NE(context.handle.sqlite, nullptr);
    exec_on(context.handle.sqlite, "CREATE TABLE plans (id INTEGER)");
    seen = context.run;
    stop_possible = context.stop.stop_possible();
    context.logger.info("plans created");
  });
  plans.description = "plans, in code";
  options.migrations.push_back(plans);

  const RunMigrationsResult result = run_migrations(config_, run_options(options));
  EXPECT_THAT(names_of(result.applied),
              ElementsAre("0001-users.sql", "0002-plans", "0003-orders.sql"));
  EXPECT_TRUE(database().has_table("plans"));
  EXPECT_EQ(seen.migration, "0002-plans");
  EXPECT_EQ(seen.direction, Direction::kUp);
  EXPECT_EQ(seen.batch, 1);
  EXPECT_TRUE(stop_possible);
  const std::optional<StatusRow> row = status_of("0002-plans", options);
  ASSERT_TRUE(row && row->record);
  EXPECT_EQ(row->state, MigrationState::kApplied);
  EXPECT_FALSE(seen.run_id.empty());
  EXPECT_EQ(row->record->run_id, seen.run_id);
  EXPECT_EQ(row->description, "plans, in code");
  EXPECT_THAT(logger_->lines(), ::testing::Contains(HasSubstr("plans created")));
}

TEST_F(LibraryTest, ThrowingCodeMigrationRollsBackAndIsRecordedFailed) {
  MigratorOptions options = quiet();
  options.migrations.push_back(code_migration("0001-broken", [](MigrationContext& context) {
    exec_on(context.handle.sqlite, "CREATE TABLE half (id INTEGER)");
    throw std::runtime_error("boom");
  }));

  try {
    run_migrations(config_, run_options(options));
    FAIL() << "the run should have failed";
  } catch (const MigrationExecutionFailedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("boom"));
    EXPECT_EQ(e.context().value("migration", ""), "0001-broken");
  }
  EXPECT_FALSE(database().has_table("half"));
  const std::optional<StatusRow> row = status_of("0001-broken", options);
  ASSERT_TRUE(row && row->record);
  EXPECT_EQ(row->state, MigrationState::kFailed);
  EXPECT_THAT(row->record->error, HasSubstr("boom"));
}

// A body's own error of one of migronaut's types is the migration's failure, recorded: not the
// run's lost connection or lock, which would leave no record and be retried as such.
TEST_F(LibraryTest, ABodyThrowingOneOfMigronautsErrorsFailsAsTheMigration) {
  MigratorOptions options = quiet();
  options.migrations.push_back(code_migration("0001-calls-out", [](MigrationContext&) {
    throw ConnectionFailedError("cannot reach the other service's database");
  }));
  try {
    run_migrations(config_, run_options(options));
    FAIL() << "the run should have failed";
  } catch (const MigrationExecutionFailedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the other service's database"));
    EXPECT_EQ(e.context().value("thrown", ""), "CONNECTION_FAILED");
  }
  const std::optional<StatusRow> row = status_of("0001-calls-out", options);
  ASSERT_TRUE(row && row->record);
  EXPECT_EQ(row->state, MigrationState::kFailed);
  EXPECT_EQ(database().count("SELECT count(*) FROM _migronaut_locks"), 0);
}

TEST_F(LibraryTest, DownRunsTheCodeMigrationsDownBody) {
  add_file("0001-users.sql", "users");
  MigratorOptions options = quiet();
  options.migrations.push_back(code_migration(
      "0002-plans",
      [](MigrationContext& c) { exec_on(c.handle.sqlite, "CREATE TABLE plans (id INTEGER)"); },
      [](MigrationContext& c) { exec_on(c.handle.sqlite, "DROP TABLE plans"); }));
  Migrator migrator(config_, options);
  migrator.up();
  ASSERT_TRUE(database().has_table("plans"));

  DownOptions last;
  last.steps = 1;
  const std::vector<RunResult> reverted = migrator.down(last);
  ASSERT_EQ(reverted.size(), 1u);
  EXPECT_EQ(reverted[0].name, "0002-plans");
  EXPECT_EQ(reverted[0].status, "reverted");
  EXPECT_FALSE(database().has_table("plans"));
  EXPECT_TRUE(database().has_table("users"));
  EXPECT_EQ(status_of("0002-plans", options)->state, MigrationState::kReverted);
}

TEST_F(LibraryTest, ChangedVersionShowsAsChecksumDrift) {
  MigratorOptions options = quiet();
  options.migrations.push_back(code_migration("0001-seed", [](MigrationContext&) {}));
  run_migrations(config_, run_options(options));
  EXPECT_EQ(status_of("0001-seed", options)->checksum_ok, true);

  options.migrations[0].version = "2";
  const std::optional<StatusRow> row = status_of("0001-seed", options);
  EXPECT_EQ(row->state, MigrationState::kApplied);
  EXPECT_EQ(row->checksum_ok, false);
}

// --- events ---------------------------------------------------------------------------------

TEST_F(LibraryTest, SuccessfulRunEmitsEventsInOrder) {
  add_file("0001-users.sql", "users");
  std::vector<std::string> events;
  RunMigrationsOptions options = quiet_run();
  options.migrator.listeners.push_back([&](const Event& event) { events.push_back(event.name); });
  run_migrations(config_, options);
  // A run starts once it holds the lock, so a waiter's refused polls emit nothing.
  EXPECT_THAT(events, ElementsAre("lock:acquired", "run:start", "migration:start",
                                  "migration:success", "lock:released", "run:end"));
}

TEST_F(LibraryTest, FailedMigrationEmitsMigrationError) {
  dir_.write("migrations/0001-bad.sql", "-- migrate:up\nSELECT * FROM no_such_table;\n");
  std::vector<Event> events;
  RunMigrationsOptions options = quiet_run();
  options.migrator.listeners.push_back([&](const Event& event) { events.push_back(event); });
  EXPECT_THROW(run_migrations(config_, options), MigrationExecutionFailedError);

  const auto error = std::find_if(events.begin(), events.end(),
                                  [](const Event& e) { return e.name == "migration:error"; });
  ASSERT_NE(error, events.end());
  EXPECT_EQ(error->data.value("migration", ""), "0001-bad.sql");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().name, "run:end");
  EXPECT_EQ(events.back().data.value("success", true), false);
}

TEST_F(LibraryTest, ThrowingListenerNeverBreaksTheRun) {
  add_file("0001-users.sql", "users");
  int calls = 0;
  RunMigrationsOptions options = quiet_run();
  options.migrator.listeners.push_back([&](const Event&) {
    ++calls;
    throw std::runtime_error("listener bug");
  });
  const RunMigrationsResult result = run_migrations(config_, options);
  EXPECT_EQ(result.applied.size(), 1u);
  EXPECT_GT(calls, 0);
  EXPECT_TRUE(database().has_table("users"));
}

// A log sink that fails (a full disk) must not end the run midway, its lock left to the TTL.
TEST_F(LibraryTest, AThrowingLoggerNeverBreaksTheRunNorKeepsTheLock) {
  class ThrowingLogger : public Logger {
   public:
    void log(Level, std::string_view) override {
      ++calls;
      throw std::runtime_error("log sink full");
    }
    int calls = 0;
  };
  add_file("0001-users.sql", "users");
  const auto logger = std::make_shared<ThrowingLogger>();
  MigratorOptions options;
  options.logger = logger;
  const RunMigrationsResult result = run_migrations(config_, run_options(options));
  EXPECT_EQ(result.applied.size(), 1u);
  EXPECT_GT(logger->calls, 0);
  Database db = database();
  EXPECT_TRUE(db.has_table("users"));
  EXPECT_EQ(db.count("SELECT count(*) FROM _migronaut_locks"), 0);
}

// --- hooks ----------------------------------------------------------------------------------

// Hooks that write what fired, in order, to `calls`.
Hooks recording_hooks(std::vector<std::string>& calls) {
  Hooks hooks;
  hooks.before_all = [&](const HookInfo&) { calls.push_back("beforeAll"); };
  hooks.before_each = [&](const std::string& name, const HookInfo& info) {
    calls.push_back("beforeEach " + name + " " + std::to_string(info.index) + "/" +
                    std::to_string(info.total));
  };
  hooks.after_each = [&](const std::string& name, std::int64_t, const HookInfo&) {
    calls.push_back("afterEach " + name);
  };
  hooks.after_all = [&](const HookInfo&, bool success, const std::vector<RunResult>& results) {
    calls.push_back("afterAll " + std::string(success ? "ok " : "failed ") +
                    std::to_string(results.size()));
  };
  return hooks;
}

TEST_F(LibraryTest, HooksFireInOrder) {
  add_file("0001-users.sql", "users");
  add_file("0002-orders.sql", "orders");
  std::vector<std::string> calls;
  RunMigrationsOptions options = quiet_run();
  options.migrator.hooks = recording_hooks(calls);
  run_migrations(config_, options);
  EXPECT_THAT(calls, ElementsAre("beforeAll", "beforeEach 0001-users.sql 0/2",
                                 "afterEach 0001-users.sql", "beforeEach 0002-orders.sql 1/2",
                                 "afterEach 0002-orders.sql", "afterAll ok 2"));
}

TEST_F(LibraryTest, AfterAllFiresOnFailure) {
  add_file("0001-users.sql", "users");
  dir_.write("migrations/0002-bad.sql", "-- migrate:up\nSELECT * FROM no_such_table;\n");
  std::vector<std::string> calls;
  RunMigrationsOptions options = quiet_run();
  options.migrator.hooks = recording_hooks(calls);
  EXPECT_THROW(run_migrations(config_, options), MigrationExecutionFailedError);
  EXPECT_THAT(calls,
              ElementsAre("beforeAll", "beforeEach 0001-users.sql 0/2", "afterEach 0001-users.sql",
                          "beforeEach 0002-bad.sql 1/2", "afterAll failed 1"));
}

TEST_F(LibraryTest, ThrowingBeforeEachFailsTheRunWithoutARecord) {
  add_file("0001-users.sql", "users");
  RunMigrationsOptions options = quiet_run();
  options.migrator.hooks.before_each = [](const std::string&, const HookInfo&) {
    throw std::runtime_error("not today");
  };
  try {
    run_migrations(config_, options);
    FAIL() << "the run should have failed";
  } catch (const HookFailedError& e) {
    EXPECT_EQ(exit_status(e.code()), 12);
    EXPECT_EQ(e.context().value("hook", ""), "beforeEach");
    EXPECT_THAT(e.what(), HasSubstr("not today"));
  }
  EXPECT_FALSE(database().has_table("users"));
  const std::optional<StatusRow> row = status_of("0001-users.sql", quiet());
  ASSERT_TRUE(row);
  EXPECT_EQ(row->state, MigrationState::kPending);
  EXPECT_FALSE(row->record.has_value());
  EXPECT_EQ(database().count("SELECT count(*) FROM _migronaut_locks"), 0);
}

TEST_F(LibraryTest, ThrowingOnErrorDoesNotMaskTheMigrationsError) {
  dir_.write("migrations/0001-bad.sql", "-- migrate:up\nSELECT * FROM no_such_table;\n");
  std::vector<std::string> failed;
  RunMigrationsOptions options = quiet_run();
  options.migrator.hooks.on_error = [&](const std::string& name, const Error&, const HookInfo&) {
    failed.push_back(name);
    throw std::runtime_error("onError bug");
  };
  try {
    run_migrations(config_, options);
    FAIL() << "the run should have failed";
  } catch (const MigrationExecutionFailedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no_such_table"));
  }
  EXPECT_THAT(failed, ElementsAre("0001-bad.sql"));
  EXPECT_THAT(logger_->lines(), ::testing::Contains(HasSubstr("onError bug")));
  EXPECT_EQ(status_of("0001-bad.sql", quiet())->state, MigrationState::kFailed);
}

// --- typed errors ---------------------------------------------------------------------------

TEST_F(LibraryTest, LockAlreadyHeldCarriesCodeMessageAndContext) {
  one_applied_one_pending();
  database().hold_lock();
  // onLockHeld: "throw" fails fast (waiting is the default).
  Config fail_fast = config_;
  fail_fast.on_lock_held = OnLockHeld::kThrow;
  try {
    run_migrations(fail_fast, quiet_run());
    FAIL() << "the lock is held";
  } catch (const LockAlreadyHeldError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLockAlreadyHeld);
    EXPECT_EQ(e.code_name(), "LOCK_ALREADY_HELD");
    EXPECT_EQ(exit_status(e.code()), 3);
    EXPECT_EQ(e.context().value("ttlMs", 0), config_.lock_ttl_ms());
    ASSERT_TRUE(e.context().contains("holder"));
    EXPECT_EQ(e.context()["holder"].value("runId", ""), "peer-run");
    EXPECT_EQ(e.context()["holder"].value("host", ""), "peer-host");
    ASSERT_TRUE(e.refusal().holder.has_value());
    EXPECT_EQ(e.refusal().holder->run_id, "peer-run");
    EXPECT_EQ(e.refusal().claim_ttl_ms, config_.lock_ttl_ms());
    const nlohmann::json json = e.to_json();
    EXPECT_EQ(json.value("code", ""), "LOCK_ALREADY_HELD");
    EXPECT_EQ(json.value("message", ""), e.what());
    EXPECT_EQ(json["context"], e.context());
  }
  EXPECT_FALSE(database().has_table("orders"));
}

// A holder in the middle of a transactional migration holds SQLite's one write slot. A run that
// will not wait is refused with the holder it reads from the lock row, and nothing of it is
// written. (That it is answered without the busy timeout is the SQLite store's own test.)
TEST_F(LibraryTest, FailingFastMeetsAHolderThatIsWritingWithItsRow) {
  one_applied_one_pending();
  Database holder = database();
  holder.hold_lock();
  holder.exec("BEGIN IMMEDIATE; CREATE TABLE holder_work (id INTEGER)");  // its migration
  Config fail_fast = config_;
  fail_fast.on_lock_held = OnLockHeld::kThrow;
  try {
    run_migrations(fail_fast, quiet_run());
    FAIL() << "the lock is held";
  } catch (const LockAlreadyHeldError& e) {
    EXPECT_TRUE(e.refusal().writer_busy);
    ASSERT_TRUE(e.refusal().holder.has_value());
    EXPECT_EQ(e.refusal().holder->run_id, "peer-run");
  }
  holder.exec("ROLLBACK");
  EXPECT_FALSE(database().has_table("orders"));
  EXPECT_EQ(database().count("SELECT count(*) FROM _migronaut_locks WHERE owner = 'peer-run'"), 1);
}

// The boot check reads the folder and the changelog side by side; which failure is reported
// does not depend on which read ends first. The database here is a file SQLite cannot read.
TEST_F(LibraryTest, AFileThatDoesNotParseIsReportedBeforeADatabaseThatCannotBeRead) {
  dir_.write(std::filesystem::path("migrations") / "0001-a.sql", "DROP TABLE users;\n");
  const std::string not_a_database = write_a_database_that_is_not_one();
  try {
    run_migrations(config_, quiet_run());
    FAIL() << "0001-a.sql does not parse";
  } catch (const MigrationInvalidFormatError& e) {
    EXPECT_EQ(e.context().value("file", ""), "0001-a.sql");
  }
  EXPECT_EQ(dir_.read("app.db"), not_a_database);
}

// A database that was reached and then failed is waited out like a restart, but no wait mends a
// file that is not a database: it is reported at once, waiting for the database or not.
TEST_F(LibraryTest, ADatabaseThatCannotBeReadIsReportedAtOnceWhenEveryFileParses) {
  add_file("0001-users.sql", "users");
  const std::string not_a_database = write_a_database_that_is_not_one();
  config_.lock_wait_timeout_ms = 2000;  // what a regression would wait
  for (const bool wait_for_database : {false, true}) {
    RunMigrationsOptions options = quiet_run();
    options.wait_for_database = wait_for_database;
    int waits = 0;
    options.on_wait = [&waits](const LockWaitReport&) { ++waits; };
    try {
      run_migrations(config_, options);
      FAIL() << "app.db is not a database";
    } catch (const ConnectionFailedError& e) {
      EXPECT_THAT(e.what(), HasSubstr("file is not a database"));
    }
    EXPECT_EQ(waits, 0) << "wait_for_database " << wait_for_database;
  }
  EXPECT_EQ(dir_.read("app.db"), not_a_database);
}

// A Config built in code is read from no flag, file or variable: a missing URI names its field.
TEST_F(LibraryTest, AMissingUriNamesTheConfigFieldNotACliFlag) {
  add_file("0001-users.sql", "users");
  config_.uri.clear();
  try {
    run_migrations(config_, quiet_run());
    FAIL() << "a Config without a URI was run";
  } catch (const ConfigInvalidError& e) {
    EXPECT_THAT(e.what(), HasSubstr("Config::uri"));
    EXPECT_THAT(e.what(), Not(HasSubstr("--uri")));
  }
}

TEST_F(LibraryTest, BadConfigIsAConfigInvalidError) {
  try {
    config_from_json({{"uri", "sqlite:app.db"}, {"onLockHeld", "sometimes"}});
    FAIL() << "onLockHeld is invalid";
  } catch (const ConfigInvalidError& e) {
    EXPECT_EQ(exit_status(e.code()), 6);
    EXPECT_EQ(e.context().value("key", ""), "onLockHeld");
  }
}

}  // namespace
}  // namespace migronaut

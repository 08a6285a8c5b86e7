// SQLite-only behaviour of the store; the behaviour every store shares is in
// tests/conformance.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "migronaut/errors.hpp"
#include "store/backends.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

class NullLogger : public Logger {
 public:
  void log(Level, std::string_view) override {}
};

// A raw connection to the same file, for looking at what the store wrote and for holding locks
// the way another process would.
class RawDb {
 public:
  explicit RawDb(const std::filesystem::path& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    sqlite3_busy_timeout(db_, 10'000);
  }
  ~RawDb() { sqlite3_close(db_); }

  void exec(const std::string& sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
    const std::string message = error != nullptr ? error : "";
    sqlite3_free(error);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }

  std::string text(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
    std::string value;
    if (sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* data = sqlite3_column_text(stmt, 0);
      if (data != nullptr) value = reinterpret_cast<const char*>(data);
    }
    sqlite3_finalize(stmt);
    return value;
  }

  bool table_exists(const std::string& name) {
    return text("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + name +
                "'") == "1";
  }

 private:
  sqlite3* db_ = nullptr;
};

class SqliteStoreTest : public ::testing::Test {
 protected:
  Config config() const {
    Config config;
    config.uri = "sqlite:" + db_path().string();
    return config;
  }
  std::filesystem::path db_path() const { return dir_.file("store.db"); }

  testing::TempDir dir_{"migronaut-sqlite"};
};

LockClaim claim(const std::string& run_id) {
  return {run_id, "n-" + run_id, 60'000, 1, "h", "tester"};
}

RecordWrite applied(const std::string& name) {
  RecordWrite write;
  write.name = name;
  write.set = {{Field::kStatus, std::string("applied")}, {Field::kBatch, std::int64_t{1}}};
  return write;
}

TEST_F(SqliteStoreTest, DescribesItself) {
  auto store = open_sqlite_store(config());
  EXPECT_EQ(store->kind(), "sqlite");
  EXPECT_EQ(store->script_extension(), ".sql");
  EXPECT_TRUE(store->transactions_by_default());
}

TEST_F(SqliteStoreTest, OpensTheFileInWalMode) {
  open_sqlite_store(config());
  RawDb raw(db_path());
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
}

TEST_F(SqliteStoreTest, UnopenableDatabaseIsAConnectionFailure) {
  Config missing_dir = config();
  missing_dir.uri = "sqlite:" + dir_.file("no/such/dir/app.db").string();
  EXPECT_THROW(open_sqlite_store(missing_dir), ConnectionFailedError);

  std::ofstream(dir_.file("garbage.db")) << "this is not an SQLite database, just some text.....";
  Config garbage = config();
  garbage.uri = "sqlite:" + dir_.file("garbage.db").string();
  try {
    open_sqlite_store(garbage);
    ADD_FAILURE() << "opened a file that is not a database";
  } catch (const ConnectionFailedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("garbage.db"));
  }
}

TEST_F(SqliteStoreTest, EmptyPathIsAConfigError) {
  Config empty;
  empty.uri = "sqlite:";
  EXPECT_THROW(open_sqlite_store(empty), ConfigInvalidError);
}

TEST_F(SqliteStoreTest, TableNamesFromConfigAreQuoted) {
  Config reserved = config();
  reserved.lock_table = "select";  // valid identifiers that are SQL keywords
  reserved.migrations_table = "order";
  auto store = open_sqlite_store(reserved);
  store->ensure_schema();
  ASSERT_TRUE(store->try_acquire(claim("run-a")).acquired);
  EXPECT_TRUE(store->renew({"run-a", "n-run-a"}, {"m", 1, 2}));
  store->write_record(applied("0001-a"));

  EXPECT_EQ(store->read_lock()->run_id, "run-a");
  ASSERT_EQ(store->read_changelog().size(), 1u);
  RawDb raw(db_path());
  EXPECT_TRUE(raw.table_exists("select"));
  EXPECT_TRUE(raw.table_exists("order"));
  EXPECT_FALSE(raw.table_exists(Config{}.lock_table));
  EXPECT_EQ(raw.text("SELECT owner FROM \"select\""), "run-a");
  EXPECT_EQ(raw.text("SELECT status FROM \"order\""), "applied");
  EXPECT_EQ(store->force_release()->run_id, "run-a");
}

TEST_F(SqliteStoreTest, LockContentionWaitsForTheOtherWriter) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  RawDb other_process(db_path());
  other_process.exec("BEGIN IMMEDIATE");
  std::jthread committer([&] {
    std::this_thread::sleep_for(milliseconds(300));
    other_process.exec("COMMIT");
  });

  // The busy timeout makes this wait for the other writer instead of failing with SQLITE_BUSY.
  EXPECT_TRUE(store->try_acquire(claim("run-a")).acquired);
  committer.join();
  EXPECT_EQ(RawDb(db_path()).text("SELECT owner FROM _migronaut_locks"), "run-a");
}

TEST_F(SqliteStoreTest, FailingScriptRollsBackItsEarlierStatements) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  const Work work = Script{"CREATE TABLE half_done (id INTEGER); SELECT * FROM missing_table;"};
  const auto record = applied("0001-half");
  try {
    store->execute({.work = &work, .transactional = true, .record = &record});
    ADD_FAILURE() << "execute did not throw";
  } catch (const MigrationExecutionFailedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no such table: missing_table"));
    EXPECT_THAT(e.context().value("error", ""), HasSubstr("no such table"));
  }
  RawDb raw(db_path());
  EXPECT_FALSE(raw.table_exists("half_done"));
  EXPECT_EQ(raw.text("SELECT count(*) FROM _migronaut_migrations"), "0");
}

TEST_F(SqliteStoreTest, CodeBodyWorkRollsBackWhenItThrows) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  NullLogger logger;
  MigrationContext context{{}, {}, logger, {}};
  const Work work = MigrationBody([](MigrationContext& given) {
    ASSERT_EQ(sqlite3_exec(given.handle.sqlite, "CREATE TABLE from_body (id INTEGER)", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    throw std::runtime_error("after creating");
  });
  const auto record = applied("0001-body");
  EXPECT_THROW(store->execute(
                   {.work = &work, .transactional = true, .record = &record, .context = &context}),
               MigrationExecutionFailedError);
  RawDb raw(db_path());
  EXPECT_FALSE(raw.table_exists("from_body"));
  EXPECT_EQ(raw.text("SELECT count(*) FROM _migronaut_migrations"), "0");
}

TEST_F(SqliteStoreTest, ScriptThatEndsItsTransactionFails) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  const Work work = Script{"CREATE TABLE committed_early (id INTEGER); COMMIT;"};
  const auto record = applied("0001-commit");
  EXPECT_THROW(store->execute({.work = &work, .transactional = true, .record = &record}),
               MigrationExecutionFailedError);
  EXPECT_EQ(RawDb(db_path()).text("SELECT count(*) FROM _migronaut_migrations"), "0");
}

TEST_F(SqliteStoreTest, InterruptStopsARunningScript) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  const Work endless = Script{
      "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n;"};
  const auto record = applied("0001-endless");
  std::atomic<bool> done = false;
  // Interrupts reach only a statement already running, so keep asking until execute returns.
  std::jthread interrupter([&] {
    while (!done) {
      store->interrupt();
      std::this_thread::sleep_for(milliseconds(10));
    }
  });
  try {
    store->execute({.work = &endless, .transactional = true, .record = &record});
    ADD_FAILURE() << "execute did not throw";
  } catch (const MigrationExecutionFailedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("interrupt"));
  }
  done = true;
  interrupter.join();
  EXPECT_EQ(RawDb(db_path()).text("SELECT count(*) FROM _migronaut_migrations"), "0");
}

TEST_F(SqliteStoreTest, ReadOnlyLockCommandsCreateNothing) {
  auto store = open_sqlite_store(config());
  EXPECT_FALSE(store->read_lock().has_value());
  EXPECT_FALSE(store->force_release().has_value());
  EXPECT_FALSE(store->renew({"run-a", "n"}, {}));
  store->release({"run-a", "n"});
  RawDb raw(db_path());
  EXPECT_EQ(raw.text("SELECT count(*) FROM sqlite_master"), "0");
}

TEST_F(SqliteStoreTest, NowIsMillisecondsSinceTheEpoch) {
  auto store = open_sqlite_store(config());
  const auto system_ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  // Same machine, so SQLite's clock and the system clock agree to well within a minute.
  EXPECT_NEAR(static_cast<double>(store->now_ms()), static_cast<double>(system_ms), 60'000.0);
}

}  // namespace
}  // namespace migronaut

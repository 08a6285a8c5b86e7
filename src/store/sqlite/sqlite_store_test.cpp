// SQLite-only behaviour of the store; the behaviour every store shares is in
// tests/conformance.
#include "store/sqlite/sqlite_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "migronaut/errors.hpp"
#include "store/registry.hpp"
#include "support/null_logger.hpp"
#include "support/sqlite_db.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

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
  const Backend& backend = backend_for(config().uri);
  EXPECT_EQ(backend.kind, store->kind());
  EXPECT_EQ(backend.script_extension, ".sql");
  EXPECT_TRUE(backend.transactions_by_default);
}

TEST_F(SqliteStoreTest, OpensTheFileInWalMode) {
  open_sqlite_store(config());
  testing::SqliteDb raw(db_path());
  EXPECT_EQ(raw.value("PRAGMA journal_mode").value_or(""), "wal");
}

// The lock's connection commits without an fsync of its own (synchronous=NORMAL); every other
// connection keeps SQLite's FULL.
TEST_F(SqliteStoreTest, OnlyANonDurableConnectionRelaxesSynchronous) {
  const auto synchronous_of = [&](const ConnectionOptions& options) {
    auto store = open_sqlite_store(config(), options);
    store->ensure_schema();
    testing::NullLogger logger;
    MigrationContext context{{}, {}, logger, {}};
    std::string level;
    const Work work = MigrationBody([&](MigrationContext& given) {
      sqlite3_stmt* stmt = nullptr;
      ASSERT_EQ(sqlite3_prepare_v2(given.handle.sqlite, "PRAGMA synchronous", -1, &stmt, nullptr),
                SQLITE_OK);
      ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
      level = std::to_string(sqlite3_column_int(stmt, 0));
      sqlite3_finalize(stmt);
    });
    const auto record = applied("0001-body");
    store->execute({.work = &work, .transactional = true, .record = &record, .context = &context});
    return level;
  };
  EXPECT_EQ(synchronous_of({}), "2");  // FULL
  EXPECT_EQ(synchronous_of({.access = Access::kWrite, .statement_bound = {}, .durable = false}),
            "1");  // NORMAL
}

// A folder that does not exist is named. (A waiting run waits for it: a volume mounted late.)
TEST_F(SqliteStoreTest, UnopenableDatabaseIsAConnectionFailure) {
  Config missing_dir = config();
  const std::filesystem::path folder = dir_.file("no/such/dir");
  missing_dir.uri = "sqlite:" + (folder / "app.db").string();
  try {
    open_sqlite_store(missing_dir);
    ADD_FAILURE() << "opened a database in a folder that does not exist";
  } catch (const ConnectionFailedError& e) {
    EXPECT_FALSE(is_lasting(e)) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("its folder " + folder.string() + " does not exist"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("no")));

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
  testing::SqliteDb raw(db_path());
  EXPECT_TRUE(raw.has_table("select"));
  EXPECT_TRUE(raw.has_table("order"));
  EXPECT_FALSE(raw.has_table(Config{}.lock_table));
  EXPECT_EQ(raw.value("SELECT owner FROM \"select\"").value_or(""), "run-a");
  EXPECT_EQ(raw.value("SELECT status FROM \"order\"").value_or(""), "applied");
  EXPECT_EQ(store->force_release({})->run_id, "run-a");
}

TEST_F(SqliteStoreTest, LockContentionWaitsForTheOtherWriter) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  testing::SqliteDb other_process(db_path());
  other_process.exec("BEGIN IMMEDIATE");
  std::jthread committer([&] {
    std::this_thread::sleep_for(milliseconds(300));
    other_process.exec("COMMIT");
  });

  // The busy timeout makes this wait for the other writer instead of failing with SQLITE_BUSY.
  EXPECT_TRUE(store->try_acquire(claim("run-a")).acquired);
  committer.join();
  EXPECT_EQ(testing::SqliteDb(db_path()).value("SELECT owner FROM _migronaut_locks").value_or(""),
            "run-a");
}

// A claim that will not wait is answered from the lock row while the holder's transaction
// holds the write slot. The busy timeout here is ten minutes: a claim that waited it out would
// outlast the test's own timeout.
TEST_F(SqliteStoreTest, AClaimThatWillNotWaitIsAnsweredWhileTheHolderWrites) {
  auto store = open_sqlite_store(config(), {.statement_bound = std::chrono::minutes(10)});
  store->ensure_schema();
  ASSERT_TRUE(store->try_acquire(claim("holder")).acquired);
  testing::SqliteDb holder(db_path());
  holder.exec("BEGIN IMMEDIATE; CREATE TABLE holder_work (id INTEGER)");

  LockClaim fail_fast = claim("run-b");
  fail_fast.fail_fast = true;
  const AcquireResult refused = store->try_acquire(fail_fast);
  EXPECT_FALSE(refused.acquired);
  EXPECT_EQ(refused.writer_busy,
            "the database file '" + db_path().string() + "' is locked by another writer");
  ASSERT_TRUE(refused.holder.has_value());
  EXPECT_EQ(refused.holder->run_id, "holder");
  holder.exec("ROLLBACK");
  EXPECT_EQ(testing::SqliteDb(db_path()).value("SELECT owner FROM _migronaut_locks").value_or(""),
            "holder");
}

// Statements SQLite fails busy, as its process-wide error log reports them while installed.
class BusyLog {
 public:
  BusyLog() : installed_(install(&BusyLog::record, this)) {}
  ~BusyLog() { install(nullptr, nullptr); }

  bool installed() const { return installed_; }

  bool wait_for_busy(milliseconds bound) {
    std::unique_lock lock(mutex_);
    return seen_.wait_for(lock, bound, [this] { return busy_; });
  }

 private:
  // The log can be set only while SQLite is shut down, with no connection open.
  static bool install(void (*log)(void*, int, const char*), void* self) {
    return sqlite3_shutdown() == SQLITE_OK &&
           sqlite3_config(SQLITE_CONFIG_LOG, log, self) == SQLITE_OK &&
           sqlite3_initialize() == SQLITE_OK;
  }
  static void record(void* self, int code, const char*) {
    if ((code & 0xff) != SQLITE_BUSY) return;
    auto* log = static_cast<BusyLog*>(self);
    std::lock_guard lock(log->mutex_);
    log->busy_ = true;
    log->seen_.notify_all();
  }

  const bool installed_;
  std::mutex mutex_;
  std::condition_variable seen_;
  bool busy_ = false;
};

// Another process holding the write lock of a new database, still in rollback mode.
std::unique_ptr<testing::SqliteDb> writer_on_new_database(const std::filesystem::path& path) {
  std::ofstream{path};  // an empty file is an empty database
  auto writer = std::make_unique<testing::SqliteDb>(path);
  writer->exec("CREATE TABLE created_first (id INTEGER)");
  writer->exec("BEGIN IMMEDIATE");
  return writer;
}

// Copies booting together on a new database each read it, then need its write lock to switch it
// to WAL; SQLite answers the one that must wait with SQLITE_BUSY at once, without its busy
// handler. The open waits for the writer it met.
TEST_F(SqliteStoreTest, SwitchingToWalWaitsForTheWriterItMeets) {
  BusyLog busy_log;
  ASSERT_TRUE(busy_log.installed());
  auto other_process = writer_on_new_database(db_path());
  bool met = false;
  bool committed = false;
  std::jthread committer([&] {
    met = busy_log.wait_for_busy(milliseconds(10'000));
    try {
      other_process->exec("COMMIT");
      committed = true;
    } catch (const std::exception&) {  // reported below, not a crash of the whole binary
    }
  });

  EXPECT_NO_THROW(open_sqlite_store(config(), {.statement_bound = milliseconds(10'000)}));
  committer.join();
  EXPECT_TRUE(met);
  EXPECT_TRUE(committed);
  EXPECT_EQ(testing::SqliteDb(db_path()).value("PRAGMA journal_mode").value_or(""), "wal");
}

TEST_F(SqliteStoreTest, SwitchingToWalGivesUpOnAWriterAfterTheBusyTimeout) {
  auto other_process = writer_on_new_database(db_path());
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(open_sqlite_store(config(), {.statement_bound = milliseconds(300)}),
               ConnectionFailedError);
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(300));
  other_process->exec("ROLLBACK");
}

// A connection that looked at the database before another process created the tables, while a
// third holds the write slot (a peer's long migration): ensure_schema only reads, so it neither
// waits for the writer nor fails busy.
TEST_F(SqliteStoreTest, EnsureSchemaOnTablesCreatedElsewhereNeedsNoWriteSlot) {
  auto waiter = open_sqlite_store(config(), {.statement_bound = milliseconds(200)});
  EXPECT_TRUE(waiter->read_changelog().empty());  // caches the schema without the tables
  open_sqlite_store(config())->ensure_schema();
  testing::SqliteDb migrating(db_path());
  migrating.exec("BEGIN IMMEDIATE");
  migrating.exec("CREATE TABLE applied_log (name TEXT)");

  EXPECT_NO_THROW(waiter->ensure_schema());
  EXPECT_FALSE(waiter->read_lock().has_value());
  migrating.exec("ROLLBACK");
}

// The schema a connection holds tells it the changelog is there without a statement; a schema
// cached before another connection made the tables does not say so, and is looked past.
TEST_F(SqliteStoreTest, AReaderSeesAChangelogMadeAfterItLookedAtTheSchema) {
  open_sqlite_store(config());  // the file, without the tables
  auto reader =
      open_sqlite_store(config(), {.access = Access::kRead, .statement_bound = std::nullopt});
  EXPECT_TRUE(reader->read_changelog().empty());
  auto writer = open_sqlite_store(config());
  writer->ensure_schema();
  writer->write_record(applied("0001-users"));
  const std::vector<ChangelogRecord> records = reader->read_changelog();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].name, "0001-users");
}

// Reading the changelog proves the changelog is there, not the rest of the schema: a dropped
// index is made again by the next run that makes sure of its tables on the same connection.
TEST_F(SqliteStoreTest, ReadingTheChangelogLeavesAMissingIndexToEnsureSchema) {
  open_sqlite_store(config())->ensure_schema();
  testing::SqliteDb raw(db_path());
  raw.exec("DROP INDEX _migronaut_migrations_status_batch");
  auto store = open_sqlite_store(config());
  EXPECT_TRUE(store->read_changelog().empty());
  store->ensure_schema();
  EXPECT_EQ(raw.value("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = "
                      "'_migronaut_migrations_status_batch'")
                .value_or(""),
            "1");
}

// The read counts the rows to make room for them: rows deleted by hand, or a changelog table
// remade WITHOUT ROWID, still read as the records there are.
TEST_F(SqliteStoreTest, TheChangelogReadsWhateverShapeItsTableHas) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  for (const char* name : {"0001-a", "0002-b", "0003-c"}) store->write_record(applied(name));
  testing::SqliteDb raw(db_path());
  raw.exec("DELETE FROM _migronaut_migrations WHERE name = '0002-b'");
  ASSERT_EQ(store->read_changelog().size(), 2u);

  const std::string ddl =
      raw.value("SELECT sql FROM sqlite_master WHERE name = '_migronaut_migrations'").value_or("");
  raw.exec("ALTER TABLE _migronaut_migrations RENAME TO old_changelog");
  raw.exec(ddl + " WITHOUT ROWID");
  raw.exec("INSERT INTO _migronaut_migrations SELECT * FROM old_changelog");
  raw.exec("DROP TABLE old_changelog");
  const std::vector<ChangelogRecord> records = open_sqlite_store(config())->read_changelog();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name, "0001-a");
  EXPECT_EQ(records[1].name, "0003-c");
}

// A number written by hand that no integer holds (text, or beyond int64) would read as 0 or be
// clamped, and `down` and `status` would act on it: refused, naming the column and the record,
// as PostgreSQL's read refuses it.
TEST_F(SqliteStoreTest, AChangelogNumberNoIntegerHoldsIsRefusedNamingItsColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"batch = 99999999999999999999", "column batch"},
      {"applied_at = 'garbage'", "column applied_at"},
      {"duration = 1.5", "column duration"}};
  for (const auto& [change, column] : cases) {
    std::filesystem::remove(db_path());
    auto store = open_sqlite_store(config());
    store->ensure_schema();
    store->write_record(applied("0001-a"));
    testing::SqliteDb(db_path()).exec("UPDATE _migronaut_migrations SET " + change);
    try {
      open_sqlite_store(config())->read_changelog();
      ADD_FAILURE() << "read it: " << change;
    } catch (const ChangelogInvalidError& error) {
      EXPECT_THAT(error.what(), HasSubstr(column));
      EXPECT_THAT(error.what(), HasSubstr("0001-a"));
    }
  }
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
  testing::SqliteDb raw(db_path());
  EXPECT_FALSE(raw.has_table("half_done"));
  EXPECT_EQ(raw.value("SELECT count(*) FROM _migronaut_migrations").value_or(""), "0");
}

TEST_F(SqliteStoreTest, CodeBodyWorkRollsBackWhenItThrows) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  testing::NullLogger logger;
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
  testing::SqliteDb raw(db_path());
  EXPECT_FALSE(raw.has_table("from_body"));
  EXPECT_EQ(raw.value("SELECT count(*) FROM _migronaut_migrations").value_or(""), "0");
}

TEST_F(SqliteStoreTest, ScriptThatEndsItsTransactionFails) {
  auto store = open_sqlite_store(config());
  store->ensure_schema();
  const Work work = Script{"CREATE TABLE committed_early (id INTEGER); COMMIT;"};
  const auto record = applied("0001-commit");
  EXPECT_THROW(store->execute({.work = &work, .transactional = true, .record = &record}),
               MigrationExecutionFailedError);
  EXPECT_EQ(
      testing::SqliteDb(db_path()).value("SELECT count(*) FROM _migronaut_migrations").value_or(""),
      "0");
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
  EXPECT_EQ(
      testing::SqliteDb(db_path()).value("SELECT count(*) FROM _migronaut_migrations").value_or(""),
      "0");
}

// A stop must not sit out the busy timeout (a minute here): interrupt() ends a statement waiting
// for another connection's write at once, as the interrupted statement it is, not as a busy
// database; SQLite's own busy handler never looks at interrupts.
TEST_F(SqliteStoreTest, InterruptEndsAWaitForTheWriteSlot) {
  auto store = open_sqlite_store(config(), {.statement_bound = std::chrono::minutes(1)});
  store->ensure_schema();
  testing::SqliteDb other_process(db_path());
  other_process.exec("BEGIN IMMEDIATE");
  auto blocked = std::async(std::launch::async, [&] { return store->try_acquire(claim("run-a")); });
  // Interrupts reach only the statement in flight, so keep asking until the claim returns.
  bool ended = false;
  for (int tries = 0; tries < 1000 && !ended; ++tries) {  // 10 s, well below the busy timeout
    store->interrupt();
    ended = blocked.wait_for(milliseconds(10)) == std::future_status::ready;
  }
  other_process.exec("ROLLBACK");  // so that a claim still waiting ends, and the test with it
  ASSERT_TRUE(ended) << "the claim sat out its busy wait despite interrupt()";
  try {
    blocked.get();
    ADD_FAILURE() << "the interrupted claim returned";
  } catch (const ConnectionFailedError& e) {
    ADD_FAILURE() << "reported as a busy database: " << e.what();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnclassified);
    EXPECT_THAT(e.what(), HasSubstr("interrupted"));
  }
  // The interrupt was the claim's: the next operation is not refused.
  EXPECT_TRUE(store->try_acquire(claim("run-b")).acquired);
  EXPECT_EQ(testing::SqliteDb(db_path()).value("SELECT owner FROM _migronaut_locks").value_or(""),
            "run-b");
}

// An interrupt with no operation in flight is spent: the next operation waits out a busy writer
// as usual and reports it busy, instead of giving up at once as an interrupted one.
TEST_F(SqliteStoreTest, AnInterruptBetweenOperationsDoesNotRefuseTheNext) {
  auto store = open_sqlite_store(config(), {.statement_bound = milliseconds(200)});
  store->ensure_schema();
  store->interrupt();
  testing::SqliteDb other_process(db_path());
  other_process.exec("BEGIN IMMEDIATE");
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(store->write_records(std::vector{applied("0001-a")}), ConnectionFailedError);
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(200));
  other_process.exec("ROLLBACK");
}

TEST_F(SqliteStoreTest, ReadOnlyLockCommandsCreateNothing) {
  auto store = open_sqlite_store(config());
  EXPECT_FALSE(store->read_lock().has_value());
  EXPECT_FALSE(store->force_release({}).has_value());
  EXPECT_FALSE(store->renew({"run-a", "n"}, {}));
  store->release({"run-a", "n"});
  testing::SqliteDb raw(db_path());
  EXPECT_EQ(raw.value("SELECT count(*) FROM sqlite_master").value_or(""), "0");
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

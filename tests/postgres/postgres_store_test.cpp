// The PostgreSQL store against a real, throwaway server (PgCluster): one database per test.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "migronaut/errors.hpp"
#include "store/registry.hpp"
#include "support/null_logger.hpp"
#include "support/pg_cluster.hpp"

namespace migronaut::testing {
namespace {

using std::chrono::milliseconds;

LockClaim claim(const std::string& owner, std::int64_t ttl_ms = 60'000) {
  return LockClaim{.owner = owner,
                   .nonce = owner + "-nonce",
                   .ttl_ms = ttl_ms,
                   .pid = 4242,
                   .host = "host-" + owner,
                   .executed_by = "tester"};
}

LockToken token_of(const LockClaim& claim) { return {claim.owner, claim.nonce}; }

RecordWrite applied_record(const std::string& name, std::int64_t batch = 1) {
  return RecordWrite{.name = name,
                     .set = {{Field::kStatus, std::string("applied")},
                             {Field::kBatch, batch},
                             {Field::kAppliedAt, ServerNow{}},
                             {Field::kChecksum, std::string("sum-" + name)}},
                     .set_if_absent = {{Field::kFirstAppliedAt, ServerNow{}}},
                     .unset = {Field::kError}};
}

// A migration's transaction, open on a connection of its own, that has written to the
// changelog and so holds a lock on it; rolled back when it goes.
class OpenMigration {
 public:
  explicit OpenMigration(const std::string& uri) : conn_(PQconnectdb(uri.c_str()), &PQfinish) {
    PQclear(PQexec(conn_.get(),
                   "BEGIN; INSERT INTO _migronaut_migrations (name, status) VALUES "
                   "('0001-x.sql', 'applied')"));
  }
  ~OpenMigration() { PQclear(PQexec(conn_.get(), "ROLLBACK")); }
  bool open() const { return PQtransactionStatus(conn_.get()) == PQTRANS_INTRANS; }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// Each test starts from an empty schema (PgCluster::fresh_schema_uri): no tables, no lock.
class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.uri = PgCluster::shared().fresh_schema_uri("postgres", "store_test");
  }

  std::unique_ptr<Store> open() const { return open_store(config_); }
  // A store whose statements give up after 2 s, as a waiter's lock connection does.
  std::unique_ptr<Store> open_bounded() const {
    return open_store(config_, {.statement_bound = std::chrono::milliseconds(2000)});
  }

  std::optional<std::string> query(const std::string& sql) const {
    return pg_query_value(config_.uri, sql);
  }

  bool table_exists(const std::string& name) const {
    return query("SELECT to_regclass('\"" + name + "\"')").has_value();
  }

  std::optional<ChangelogRecord> record_named(const std::string& name) {
    for (ChangelogRecord& record : open()->read_changelog()) {
      if (record.name == name) return record;
    }
    return std::nullopt;
  }

  void execute(Store& store, const Work& work, bool transactional,
               const RecordWrite* record = nullptr, const LockToken* fence = nullptr) {
    MigrationContext context{
        .run = {.run_id = "run-m", .migration = "m"}, .stop = {}, .logger = logger_, .handle = {}};
    store.execute({.work = &work,
                   .transactional = transactional,
                   .record = record,
                   .fence = fence,
                   .context = &context});
  }

  // Claims the lock for `owner` on a connection of the test's own; returns the fence it makes.
  LockToken hold_lock(const std::string& owner) {
    lock_holder_ = open();
    const LockClaim held = claim(owner);
    EXPECT_TRUE(lock_holder_->try_acquire(held).acquired);
    return token_of(held);
  }

  // Applies `sql` as the transactional migration `name`, fenced by `fence`.
  void apply(Store& store, const std::string& name, const std::string& sql,
             const LockToken& fence) {
    const RecordWrite record = applied_record(name);
    execute(store, Script{sql}, true, &record, &fence);
  }

  Config config_;
  NullLogger logger_;
  std::unique_ptr<Store> lock_holder_;
};

TEST_F(PostgresStoreTest, DescribesItself) {
  const auto store = open();
  EXPECT_EQ(store->kind(), "postgres");
  const Backend& backend = backend_for(config_.uri);
  EXPECT_EQ(backend.kind, store->kind());
  EXPECT_EQ(backend.script_extension, ".sql");
  EXPECT_TRUE(backend.transactions_by_default);
  EXPECT_TRUE(store->can_push_release());
}

TEST_F(PostgresStoreTest, BootReadOfAFreshDatabaseIsEmptyAndCreatesNothing) {
  const auto store = open();
  EXPECT_TRUE(store->read_changelog().empty());
  EXPECT_FALSE(store->read_lock().has_value());
  EXPECT_FALSE(table_exists("_migronaut_migrations"));
  EXPECT_FALSE(table_exists("_migronaut_locks"));
}

TEST_F(PostgresStoreTest, EnsureSchemaIsIdempotentAcrossConnections) {
  const auto first = open();
  const auto second = open();
  first->ensure_schema();
  second->ensure_schema();
  first->ensure_schema();
  EXPECT_TRUE(table_exists("_migronaut_migrations"));
  EXPECT_TRUE(table_exists("_migronaut_locks"));
  EXPECT_EQ(query("SELECT count(*) FROM pg_indexes WHERE indexname = "
                  "'_migronaut_migrations_status_batch'"),
            "1");
}

TEST_F(PostgresStoreTest, EnsureSchemaCreatesWhatIsMissing) {
  open()->ensure_schema();
  query("DROP INDEX _migronaut_migrations_status_batch");
  open()->ensure_schema();
  EXPECT_TRUE(table_exists("_migronaut_migrations_status_batch"));
}

// Every writing run, and a waiter, runs the schema block: with the tables there it must not
// queue behind a migration's transaction (CREATE INDEX IF NOT EXISTS takes a share lock first).
TEST_F(PostgresStoreTest, EnsureSchemaDoesNotWaitForARunningMigration) {
  open()->ensure_schema();
  const OpenMigration migration(config_.uri);
  ASSERT_TRUE(migration.open());
  EXPECT_NO_THROW(open_bounded()->ensure_schema());
}

// A dropped index waits for a run that can make it without waiting.
TEST_F(PostgresStoreTest, EnsureSchemaLeavesAMissingIndexForLaterRatherThanWait) {
  open()->ensure_schema();
  query("DROP INDEX _migronaut_migrations_status_batch");
  {
    const OpenMigration migration(config_.uri);
    ASSERT_TRUE(migration.open());
    EXPECT_NO_THROW(open_bounded()->ensure_schema());
    EXPECT_FALSE(table_exists("_migronaut_migrations_status_batch"));
  }
  open()->ensure_schema();
  EXPECT_TRUE(table_exists("_migronaut_migrations_status_batch"));
}

// audit probes the schema: a view in a table's place fails it as it fails up.
TEST_F(PostgresStoreTest, ProbeRefusesAViewInATablesPlace) {
  open()->ensure_schema();
  query("ALTER TABLE _migronaut_locks RENAME TO real_locks");
  query("CREATE VIEW _migronaut_locks AS SELECT * FROM real_locks");
  try {
    open()->probe();
    ADD_FAILURE() << "probe() accepted a view";
  } catch (const SchemaInvalidError& error) {
    EXPECT_NE(std::string(error.what()).find("_migronaut_locks is a view"), std::string::npos)
        << error.what();
  }
}

TEST_F(PostgresStoreTest, ConcurrentFirstBootsAllCreateTheSchema) {
  constexpr int kBoots = 8;
  std::vector<std::unique_ptr<Store>> stores;
  for (int i = 0; i < kBoots; ++i) stores.push_back(open());
  std::latch start(kBoots);
  std::atomic<int> failures = 0;
  std::vector<std::thread> boots;
  for (int i = 0; i < kBoots; ++i) {
    boots.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        stores[i]->ensure_schema();
      } catch (const Error&) {
        ++failures;
      }
    });
  }
  for (std::thread& boot : boots) boot.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(table_exists("_migronaut_locks"));
}

TEST_F(PostgresStoreTest, AcquireOnAFreshDatabaseCreatesTheTables) {
  const auto store = open();
  EXPECT_TRUE(store->try_acquire(claim("run-a")).acquired);
  EXPECT_TRUE(table_exists("_migronaut_migrations"));
}

TEST_F(PostgresStoreTest, SecondClaimIsRefusedAndSeesTheHolder) {
  const auto holder = open();
  const auto other = open();
  holder->ensure_schema();
  ASSERT_TRUE(holder->try_acquire(claim("run-a", 30'000)).acquired);

  const AcquireResult refused = other->try_acquire(claim("run-b"));
  EXPECT_FALSE(refused.acquired);
  ASSERT_TRUE(refused.holder.has_value());
  EXPECT_EQ(refused.holder->run_id, "run-a");
  EXPECT_EQ(refused.holder->ttl_ms, 30'000);
  EXPECT_EQ(refused.holder->pid, 4242);
  EXPECT_EQ(refused.holder->host, "host-run-a");
  EXPECT_EQ(refused.holder->executed_by, "tester");
  EXPECT_NEAR(static_cast<double>(refused.holder->locked_at_ms),
              static_cast<double>(other->now_ms()), 60'000);
  EXPECT_EQ(query("SELECT owner FROM _migronaut_locks"), "run-a");
}

TEST_F(PostgresStoreTest, ExactlyOneOfManyRacingConnectionsAcquires) {
  constexpr int kRacers = 8;
  open()->ensure_schema();
  std::vector<std::unique_ptr<Store>> stores;
  for (int i = 0; i < kRacers; ++i) stores.push_back(open());
  std::latch start(kRacers);
  std::atomic<int> acquired = 0;
  std::vector<std::thread> racers;
  for (int i = 0; i < kRacers; ++i) {
    racers.emplace_back([&, i] {
      start.arrive_and_wait();
      if (stores[i]->try_acquire(claim("run-" + std::to_string(i))).acquired) ++acquired;
    });
  }
  for (std::thread& racer : racers) racer.join();
  EXPECT_EQ(acquired.load(), 1);
  EXPECT_EQ(query("SELECT count(*) FROM _migronaut_locks"), "1");
}

TEST_F(PostgresStoreTest, RenewAndReleaseNeedBothOwnerAndNonce) {
  const auto store = open();
  const LockClaim mine = claim("run-a");
  ASSERT_TRUE(store->try_acquire(mine).acquired);

  EXPECT_FALSE(store->renew({mine.owner, "other-nonce"}, {"m1", 1, 3}));
  EXPECT_FALSE(store->renew({"run-b", mine.nonce}, {"m1", 1, 3}));
  store->release({mine.owner, "other-nonce"});
  store->release({"run-b", mine.nonce});
  ASSERT_TRUE(store->read_lock().has_value());

  EXPECT_TRUE(store->renew(token_of(mine), {"m2", 2, 3}));
  const std::optional<LockInfo> held = open()->read_lock();
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->migration, "m2");
  EXPECT_EQ(held->step, 2);
  EXPECT_EQ(held->total, 3);

  store->release(token_of(mine));
  EXPECT_FALSE(store->read_lock().has_value());
  EXPECT_FALSE(store->renew(token_of(mine), {"m3", 3, 3}));
  store->release(token_of(mine));  // nothing held: a no-op
}

TEST_F(PostgresStoreTest, StalenessIsJudgedWithTheLargerTtlInTheDatabaseClock) {
  const auto holder = open();
  const auto other = open();
  ASSERT_TRUE(holder->try_acquire(claim("run-a", 60'000)).acquired);
  // Ten seconds old: stale for a 1 s claimant's TTL, not for the holder's own 60 s.
  query("UPDATE _migronaut_locks SET locked_at = clock_timestamp() - interval '10 seconds'");
  EXPECT_FALSE(other->try_acquire(claim("run-b", 1'000)).acquired);

  query("UPDATE _migronaut_locks SET locked_at = clock_timestamp() - interval '61 seconds'");
  EXPECT_TRUE(other->try_acquire(claim("run-b", 1'000)).acquired);
  EXPECT_FALSE(holder->renew(token_of(claim("run-a")), {}));
  EXPECT_EQ(query("SELECT owner FROM _migronaut_locks"), "run-b");
}

TEST_F(PostgresStoreTest, AnExpiredLeaseIsReclaimed) {
  const auto holder = open();
  const auto other = open();
  ASSERT_TRUE(holder->try_acquire(claim("run-a", 500)).acquired);
  EXPECT_FALSE(other->try_acquire(claim("run-b", 500)).acquired);
  std::this_thread::sleep_for(milliseconds(600));
  EXPECT_TRUE(other->try_acquire(claim("run-b", 500)).acquired);
  EXPECT_FALSE(holder->renew(token_of(claim("run-a", 500)), {}));
}

TEST_F(PostgresStoreTest, ForceReleaseReturnsTheHolder) {
  const auto store = open();
  ASSERT_TRUE(store->try_acquire(claim("run-a")).acquired);
  const std::optional<LockInfo> removed = open()->force_release({});
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->run_id, "run-a");
  EXPECT_FALSE(store->read_lock().has_value());
  EXPECT_FALSE(store->force_release({}).has_value());
}

TEST_F(PostgresStoreTest, AReleaseWakesAWaiter) {
  const auto holder = open();
  const auto waiter = open();
  const LockClaim held = claim("run-a");
  ASSERT_TRUE(holder->try_acquire(held).acquired);
  ASSERT_FALSE(waiter->try_acquire(claim("run-b")).acquired);
  // Still held: the wait times out (and the waiter is listening from now on).
  EXPECT_FALSE(waiter->wait_for_release(milliseconds(1), {}));

  bool woken = false;
  std::thread waiting([&] { woken = waiter->wait_for_release(std::chrono::hours(1), {}); });
  holder->release(token_of(held));
  waiting.join();
  EXPECT_TRUE(woken);
  EXPECT_TRUE(waiter->try_acquire(claim("run-b")).acquired);
}

TEST_F(PostgresStoreTest, AForceReleaseWakesAWaiter) {
  const auto holder = open();
  const auto waiter = open();
  ASSERT_TRUE(holder->try_acquire(claim("run-a")).acquired);
  EXPECT_FALSE(waiter->wait_for_release(milliseconds(1), {}));

  bool woken = false;
  std::thread waiting([&] { woken = waiter->wait_for_release(std::chrono::hours(1), {}); });
  ASSERT_TRUE(holder->force_release({}).has_value());
  waiting.join();
  EXPECT_TRUE(woken);
}

TEST_F(PostgresStoreTest, AWaitEndsWhenItsStopIsRequested) {
  const auto holder = open();
  const auto waiter = open();
  ASSERT_TRUE(holder->try_acquire(claim("run-a")).acquired);
  std::stop_source stop;
  std::optional<bool> woken;
  std::thread waiting(
      [&] { woken = waiter->wait_for_release(std::chrono::hours(1), stop.get_token()); });
  stop.request_stop();
  waiting.join();
  EXPECT_EQ(woken, false);
  EXPECT_TRUE(holder->read_lock().has_value());
}

TEST_F(PostgresStoreTest, SeparateLockTablesDoNotWakeEachOther) {
  Config other_config = config_;
  other_config.lock_table = "other_locks";
  const auto holder = open();
  const auto other_holder = open_store(other_config);
  const auto waiter = open();
  const LockClaim other_claim = claim("run-x");
  ASSERT_TRUE(holder->try_acquire(claim("run-a")).acquired);
  ASSERT_TRUE(other_holder->try_acquire(other_claim).acquired);
  EXPECT_FALSE(waiter->wait_for_release(milliseconds(1), {}));

  other_holder->release(token_of(other_claim));
  EXPECT_FALSE(waiter->wait_for_release(milliseconds(200), {}));
}

TEST_F(PostgresStoreTest, RecordsRoundTripEveryField) {
  const auto store = open();
  store->ensure_schema();
  RecordWrite write{.name = "20260101000000-b.sql",
                    .set = {{Field::kBatch, std::int64_t{7}},
                            {Field::kStatus, std::string("failed")},
                            {Field::kFailedAt, std::int64_t{1'700'000'000'123}},
                            {Field::kError, std::string("boom 'quoted'")},
                            {Field::kFailedChecksum, std::string("bad")},
                            {Field::kDuration, std::int64_t{42}},
                            {Field::kEnvironment, std::string("staging")},
                            {Field::kExecutedBy, std::string("alice")},
                            {Field::kRunId, std::string("run-1")},
                            {Field::kDescription, std::string("b")},
                            {Field::kOrigin, std::string("migronaut")},
                            {Field::kRequestedBy, std::string("bob")},
                            {Field::kReason, std::string("because")}},
                    .set_if_absent = {{Field::kFirstAppliedAt, std::int64_t{1'600'000'000'000}}},
                    .unset = {}};
  store->write_record(write);
  store->write_record(applied_record("20260101000000-a.sql"));

  const std::vector<ChangelogRecord> records = store->read_changelog();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name, "20260101000000-a.sql");
  const ChangelogRecord& b = records[1];
  EXPECT_EQ(b.name, "20260101000000-b.sql");
  EXPECT_EQ(b.batch, 7);
  EXPECT_EQ(b.status, RecordStatus::kFailed);
  EXPECT_EQ(b.failed_at_ms, 1'700'000'000'123);
  EXPECT_EQ(b.first_applied_at_ms, 1'600'000'000'000);
  EXPECT_FALSE(b.applied_at_ms.has_value());
  EXPECT_EQ(b.error, "boom 'quoted'");
  EXPECT_EQ(b.failed_checksum, "bad");
  EXPECT_EQ(b.duration_ms, 42);
  EXPECT_EQ(b.environment, "staging");
  EXPECT_EQ(b.executed_by, "alice");
  EXPECT_EQ(b.run_id, "run-1");
  EXPECT_EQ(b.description, "b");
  EXPECT_EQ(b.origin, "migronaut");
  EXPECT_EQ(b.requested_by, "bob");
  EXPECT_EQ(b.reason, "because");
  ASSERT_TRUE(records[0].applied_at_ms.has_value());
  EXPECT_NEAR(static_cast<double>(*records[0].applied_at_ms), static_cast<double>(store->now_ms()),
              60'000);
}

// The changelog is read in binary format: times come back as the server's own
// (extract(epoch from t) * 1000)::bigint gives them, half-milliseconds rounded away from zero
// on either side of 1970 and 2000, and an integer column narrowed by hand still reads.
TEST_F(PostgresStoreTest, BinaryReadsAgreeWithTheServersConversion) {
  const auto store = open();
  store->ensure_schema();
  const std::vector<std::string> times = {
      "2026-01-01 00:00:00.0015+00", "2026-01-01 00:00:00.0024+00", "1999-12-31 23:59:59.9985+00",
      "1969-12-31 23:59:59.9985+00", "1969-12-31 23:59:59.9994+00"};
  for (std::size_t i = 0; i < times.size(); ++i) {
    ASSERT_TRUE(
        query("INSERT INTO _migronaut_migrations (name, status, batch, applied_at) VALUES "
              "('n" +
              std::to_string(i) + "', 'applied', -3, '" + times[i] + "') RETURNING 1"));
  }
  ASSERT_TRUE(query("ALTER TABLE _migronaut_migrations ALTER batch TYPE integer; SELECT 1"));

  const std::vector<ChangelogRecord> records = store->read_changelog();
  ASSERT_EQ(records.size(), times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    SCOPED_TRACE(times[i]);
    EXPECT_EQ(records[i].name, "n" + std::to_string(i));
    EXPECT_EQ(records[i].batch, -3);
    const std::optional<std::string> server =
        query("SELECT (extract(epoch from timestamptz '" + times[i] + "') * 1000)::bigint");
    ASSERT_TRUE(server && records[i].applied_at_ms);
    EXPECT_EQ(*records[i].applied_at_ms, std::stoll(*server));
  }
}

// A value the binary read cannot take is named by its column, not misread: a column retyped
// by hand to a type it cannot decode, and the infinite times.
TEST_F(PostgresStoreTest, AValueTheReadCannotTakeIsNamedByItsColumn) {
  const std::vector<std::vector<std::string>> cases = {
      {"ALTER TABLE _migronaut_migrations ALTER duration TYPE numeric; "
       "UPDATE _migronaut_migrations SET duration = 1.5",
       "column duration"},
      {"UPDATE _migronaut_migrations SET applied_at = 'infinity'", "column applied_at"},
      {"UPDATE _migronaut_migrations SET first_applied_at = '-infinity'",
       "column first_applied_at"}};
  for (const std::vector<std::string>& change : cases) {
    SCOPED_TRACE(change[0]);
    SetUp();
    const auto store = open();
    store->ensure_schema();
    store->write_record(applied_record("20260101000000-a.sql"));
    ASSERT_FALSE(query(change[0] + "; SELECT NULL"));
    try {
      store->read_changelog();
      ADD_FAILURE() << "read it";
    } catch (const ChangelogInvalidError& error) {
      EXPECT_NE(std::string(error.what()).find(change[1]), std::string::npos) << error.what();
    }
  }
}

// Other columns read as their text, whatever a DBA retyped them to.
TEST_F(PostgresStoreTest, AColumnRetypedByHandStillReadsAsItsText) {
  const auto store = open();
  store->ensure_schema();
  RecordWrite write = applied_record("20260101000000-a.sql");
  write.set.emplace_back(Field::kRunId, std::string("63f0c35b-8b8a-47b9-8f9b-dcf361d632ba"));
  store->write_record(write);
  ASSERT_FALSE(
      query("ALTER TABLE _migronaut_migrations ALTER run_id TYPE uuid USING "
            "run_id::uuid; SELECT NULL"));
  const std::vector<ChangelogRecord> records = store->read_changelog();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].run_id, "63f0c35b-8b8a-47b9-8f9b-dcf361d632ba");
}

TEST_F(PostgresStoreTest, UpdatesKeepSetIfAbsentFieldsAndClearUnsetOnes) {
  const auto store = open();
  store->ensure_schema();
  store->write_record(
      {.name = "m",
       .set = {{Field::kStatus, std::string("failed")}, {Field::kError, std::string("boom")}},
       .set_if_absent = {{Field::kFirstAppliedAt, std::int64_t{1'000}}},
       .unset = {}});
  store->write_record({.name = "m",
                       .set = {{Field::kStatus, std::string("applied")}},
                       .set_if_absent = {{Field::kFirstAppliedAt, std::int64_t{2'000}}},
                       .unset = {Field::kError}});
  const std::optional<ChangelogRecord> record = record_named("m");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, RecordStatus::kApplied);
  EXPECT_EQ(record->first_applied_at_ms, 1'000);
  EXPECT_EQ(record->error, "");
  EXPECT_EQ(query("SELECT count(*) FROM _migronaut_migrations WHERE error IS NULL"), "1");
}

TEST_F(PostgresStoreTest, AFailureTraceNeverDemotesAnAppliedRecord) {
  const auto store = open();
  store->ensure_schema();
  store->write_record(applied_record("m"));
  store->write_record({.name = "m",
                       .set = {{Field::kStatus, std::string("failed")},
                               {Field::kError, std::string("late failure")}},
                       .set_if_absent = {},
                       .unset = {},
                       .skip_if_applied = true});
  store->write_record({.name = "n",
                       .set = {{Field::kStatus, std::string("failed")}},
                       .set_if_absent = {},
                       .unset = {},
                       .skip_if_applied = true});
  EXPECT_EQ(record_named("m")->status, RecordStatus::kApplied);
  EXPECT_EQ(record_named("m")->error, "");
  EXPECT_EQ(record_named("n")->status, RecordStatus::kFailed);
}

TEST_F(PostgresStoreTest, ATransactionalScriptCommitsWithItsRecord) {
  const auto lock = open();
  const auto store = open();
  const LockClaim held = claim("run-a");
  ASSERT_TRUE(lock->try_acquire(held).acquired);
  const RecordWrite record = applied_record("m1");
  const LockToken fence = token_of(held);
  execute(*store,
          Script{"CREATE TABLE users (id int);\nINSERT INTO users VALUES (1);\n-- trailing note"},
          true, &record, &fence);
  EXPECT_EQ(query("SELECT count(*) FROM users"), "1");
  ASSERT_TRUE(record_named("m1").has_value());
  EXPECT_EQ(record_named("m1")->checksum, "sum-m1");
}

TEST_F(PostgresStoreTest, AFailingTransactionalScriptRollsBackEverything) {
  const auto store = open();
  store->ensure_schema();
  const RecordWrite record = applied_record("m1");
  try {
    execute(*store, Script{"CREATE TABLE users (id int);\nSELECT * FROM missing_table;"}, true,
            &record);
    FAIL() << "the script should have failed";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_EQ(error.context().value("sqlstate", ""), "42P01");
    EXPECT_NE(std::string(error.what()).find("missing_table"), std::string::npos);
  }
  EXPECT_FALSE(table_exists("users"));
  EXPECT_FALSE(record_named("m1").has_value());
  // The connection is usable again.
  execute(*store, Script{"CREATE TABLE users (id int);"}, true, &record);
  EXPECT_TRUE(table_exists("users"));
}

// A COPY through the client that reached the server (check_script() refuses those it parses)
// fails its migration, rolled back, and leaves the connection usable, instead of holding it in
// its copy state for ever.
TEST_F(PostgresStoreTest, ACopyThroughTheClientFailsInsteadOfWaitingForRows) {
  const auto store = open();
  store->ensure_schema();
  const RecordWrite record = applied_record("m1");
  EXPECT_THROW(execute(*store, Script{"CREATE TABLE users (id int);\nCOPY users FROM stdin;"}, true,
                       &record),
               MigrationExecutionFailedError);
  EXPECT_FALSE(table_exists("users"));
  EXPECT_FALSE(record_named("m1").has_value());
  execute(*store, Script{"CREATE TABLE users (id int);\nCOPY (SELECT 1) TO stdout;"}, true,
          &record);
  EXPECT_TRUE(table_exists("users"));
  EXPECT_TRUE(record_named("m1").has_value());
}

TEST_F(PostgresStoreTest, ALostFenceRollsBackTheBodyAndTheRecord) {
  const auto lock = open();
  const auto store = open();
  const LockClaim zombie = claim("run-a");
  ASSERT_TRUE(lock->try_acquire(zombie).acquired);
  ASSERT_TRUE(open()->force_release({}).has_value());
  ASSERT_TRUE(open()->try_acquire(claim("run-b")).acquired);

  const RecordWrite record = applied_record("m1");
  const LockToken fence = token_of(zombie);
  EXPECT_THROW(execute(*store, Script{"CREATE TABLE users (id int);"}, true, &record, &fence),
               LockLostError);
  EXPECT_FALSE(table_exists("users"));
  EXPECT_FALSE(record_named("m1").has_value());
  EXPECT_EQ(query("SELECT owner FROM _migronaut_locks"), "run-b");
  EXPECT_GT(store->now_ms(), 0);  // still usable
}

TEST_F(PostgresStoreTest, AFenceIsNotFooledByQuotesInTheToken) {
  const auto store = open();
  LockClaim odd = claim("run'$migronaut_fence$\"");
  odd.nonce = "n'; DROP TABLE x; --";
  ASSERT_TRUE(store->try_acquire(odd).acquired);
  const RecordWrite record = applied_record("m1");
  const LockToken fence = token_of(odd);
  execute(*store, Script{"CREATE TABLE users (id int);"}, true, &record, &fence);
  EXPECT_TRUE(table_exists("users"));
  EXPECT_TRUE(record_named("m1").has_value());
}

// A migration's record and fence are statements its session prepared once: a script run in that
// session sees them, and a lost fence still rolls a later migration back.
TEST_F(PostgresStoreTest, ASessionRunsTheBookkeepingItPrepared) {
  const LockToken fence = hold_lock("run-a");
  const auto store = open();
  apply(*store, "m1", "CREATE TABLE m1 (id int);", fence);
  apply(*store, "m2", "CREATE TABLE m2 (id int);", fence);
  apply(*store, "m3",
        "CREATE TABLE seen AS SELECT name FROM pg_prepared_statements WHERE name LIKE 'migronaut%'",
        fence);
  EXPECT_EQ(query("SELECT count(*) FROM seen"), "3");  // the record, the fence, the probe
  for (const char* name : {"m1", "m2", "m3"}) EXPECT_TRUE(record_named(name).has_value()) << name;

  ASSERT_TRUE(open()->force_release({}).has_value());
  ASSERT_TRUE(open()->try_acquire(claim("run-b")).acquired);
  EXPECT_THROW(apply(*store, "m4", "CREATE TABLE m4 (id int);", fence), LockLostError);
  EXPECT_FALSE(table_exists("m4"));
  EXPECT_FALSE(record_named("m4").has_value());
}

// A session that lost the prepared statements (here a script's DEALLOCATE; behind a pooler,
// another server session) has the migration rolled back and run again whole, once. Where an
// earlier message lost them, the probe fails before the script: its sequence moves once.
TEST_F(PostgresStoreTest, ASessionThatLostThePreparedBookkeepingRunsTheMigrationWhole) {
  const LockToken fence = hold_lock("run-a");
  const auto store = open();
  apply(*store, "m1", "CREATE TABLE log (name text); CREATE SEQUENCE moves;", fence);
  apply(*store, "m2", "DEALLOCATE ALL; INSERT INTO log VALUES ('two');", fence);
  EXPECT_EQ(query("SELECT count(*) FROM log WHERE name = 'two'"), "1");
  EXPECT_TRUE(record_named("m2").has_value());

  const auto other = open();
  apply(*other, "m3", "INSERT INTO log VALUES ('three');", fence);
  execute(*other, Script{"DEALLOCATE ALL;"}, false);
  apply(*other, "m4", "SELECT nextval('moves'); INSERT INTO log VALUES ('four');", fence);
  EXPECT_EQ(query("SELECT last_value FROM moves"), "1");
  EXPECT_EQ(query("SELECT count(*) FROM log WHERE name = 'four'"), "1");
  EXPECT_TRUE(record_named("m4").has_value());
}

TEST_F(PostgresStoreTest, ACodeMigrationUsesTheNativeHandleInsideTheTransaction) {
  const auto store = open();
  const LockClaim held = claim("run-a");
  ASSERT_TRUE(store->try_acquire(held).acquired);
  const RecordWrite record = applied_record("code");
  const LockToken fence = token_of(held);
  const Work body = MigrationBody([](MigrationContext& context) {
    ASSERT_NE(context.handle.postgres, nullptr);
    PQclear(PQexec(context.handle.postgres, "CREATE TABLE from_code (id int)"));
  });
  execute(*store, body, true, &record, &fence);
  EXPECT_TRUE(table_exists("from_code"));
  EXPECT_TRUE(record_named("code").has_value());
}

// The record after a body that changed the session's role and search_path is still written to
// migronaut's own tables, as the connection's own role.
TEST_F(PostgresStoreTest, ACodeMigrationThatChangesItsSessionIsStillRecorded) {
  query("DROP ROLE IF EXISTS store_test_lowly; CREATE ROLE store_test_lowly");
  const LockToken fence = hold_lock("run-a");
  const auto store = open();
  const RecordWrite record = applied_record("code");
  const Work body = MigrationBody([](MigrationContext& context) {
    PQclear(PQexec(context.handle.postgres,
                   "SET LOCAL ROLE store_test_lowly; SET LOCAL search_path = ''"));
  });
  execute(*store, body, true, &record, &fence);
  EXPECT_TRUE(record_named("code").has_value());
  EXPECT_EQ(query("SELECT locked_at > clock_timestamp() - interval '1 minute' FROM "
                  "_migronaut_locks WHERE owner = 'run-a'"),
            "t");
}

// Should a script reach the server ending inside a quote (check_script refuses it first), the
// server's message quotes the rest of the text sent: neither the bookkeeping after the script
// nor the lock's nonce may reach the error.
TEST_F(PostgresStoreTest, AnUnterminatedScriptsErrorShowsNoneOfMigronautsOwnText) {
  const LockToken fence = hold_lock("run-a");
  const auto store = open();
  apply(*store, "m1", "CREATE TABLE m1 (id int);", fence);  // later calls EXECUTE
  for (const std::string name : {"m2", "m3"}) {
    try {
      apply(*store, name, "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1", fence);
      FAIL() << "the script should have failed";
    } catch (const MigrationExecutionFailedError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("unterminated dollar-quoted string"), std::string::npos) << message;
      for (const char* own : {"run-a-nonce", "EXECUTE", "PREPARE", "_migronaut_", "COMMIT"}) {
        EXPECT_EQ(message.find(own), std::string::npos) << own << " in " << message;
      }
    }
    EXPECT_FALSE(record_named(name).has_value());
  }
}

TEST_F(PostgresStoreTest, AThrowingCodeMigrationRollsBack) {
  const auto store = open();
  store->ensure_schema();
  const RecordWrite record = applied_record("code");
  const Work body = MigrationBody([](MigrationContext& context) {
    PQclear(PQexec(context.handle.postgres, "CREATE TABLE from_code (id int)"));
    throw std::runtime_error("seed data missing");
  });
  try {
    execute(*store, body, true, &record);
    FAIL() << "the body should have failed";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_STREQ(error.what(), "seed data missing");
  }
  EXPECT_FALSE(table_exists("from_code"));
  EXPECT_FALSE(record_named("code").has_value());
}

TEST_F(PostgresStoreTest, IndexConcurrentlyRunsOutsideATransactionWhileTheLockIsRenewed) {
  const auto lock = open();
  const auto store = open();
  const LockClaim held = claim("run-a");
  ASSERT_TRUE(lock->try_acquire(held).acquired);
  query(
      "CREATE TABLE users (id int, email text);"
      "INSERT INTO users SELECT g, 'u' || g FROM generate_series(1, 20000) g");

  std::atomic<bool> done = false;
  std::atomic<int> renewals = 0;
  std::atomic<bool> renewals_held = true;
  std::thread heartbeat([&] {
    while (!done) {
      renewals_held = renewals_held && lock->renew(token_of(held), {"m-index", 1, 1});
      ++renewals;
      std::this_thread::sleep_for(milliseconds(5));
    }
  });
  const RecordWrite record = applied_record("m-index");
  execute(*store, Script{"CREATE INDEX CONCURRENTLY users_email ON users (email)"}, false, &record);
  done = true;
  heartbeat.join();

  EXPECT_TRUE(renewals_held);
  EXPECT_GT(renewals.load(), 0);
  EXPECT_EQ(query("SELECT indisvalid FROM pg_index WHERE indexrelid = 'users_email'::regclass"),
            "t");
  EXPECT_TRUE(record_named("m-index").has_value());
}

TEST_F(PostgresStoreTest, IndexConcurrentlyFailsInsideATransaction) {
  const auto store = open();
  store->ensure_schema();
  query("CREATE TABLE users (id int)");
  const RecordWrite record = applied_record("m-index");
  EXPECT_THROW(
      execute(*store, Script{"CREATE INDEX CONCURRENTLY users_id ON users (id)"}, true, &record),
      MigrationExecutionFailedError);
  EXPECT_FALSE(record_named("m-index").has_value());
}

TEST_F(PostgresStoreTest, ATerminatedConnectionIsAConnectionFailure) {
  const auto store = open();
  store->ensure_schema();
  const RecordWrite record = applied_record("m1");
  EXPECT_THROW(execute(*store,
                       Script{"CREATE TABLE users (id int);"
                              "SELECT pg_terminate_backend(pg_backend_pid());"},
                       true, &record),
               ConnectionFailedError);
  EXPECT_FALSE(table_exists("users"));
  EXPECT_FALSE(record_named("m1").has_value());
}

// A holder whose lock connection drops reconnects on its next statement and resumes renewing,
// since the record still carries its owner and nonce; once another run took the lock, the
// reconnected renewal matches nothing.
TEST_F(PostgresStoreTest, ADroppedLockConnectionReconnectsAndResumesWhileTheLeaseIsOurs) {
  const auto store = open_store(config_, {.statement_bound = milliseconds(500)});
  const auto mine = claim("run-a", 2000);
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  const std::string pid = *query(
      "SELECT pid FROM pg_stat_activity WHERE application_name = "
      "'migronaut' AND query LIKE '%INSERT INTO%'");
  query("SELECT pg_terminate_backend(" + pid + ")");
  // The first statement may meet the dead connection; the one after it is on a new one.
  try {
    EXPECT_TRUE(store->renew(token_of(mine), {"m1", 1, 2}));
  } catch (const ConnectionFailedError&) {
    EXPECT_TRUE(store->renew(token_of(mine), {"m1", 1, 2}));
  }
  EXPECT_EQ(query("SELECT migration FROM _migronaut_locks"), "m1");

  query("UPDATE _migronaut_locks SET owner = 'run-b'");
  EXPECT_FALSE(store->renew(token_of(mine), {"m2", 2, 2}));
}

// The lock connection bounds its statements: a renewal stuck behind a row lock fails after its
// lock_timeout instead of waiting for the row.
TEST_F(PostgresStoreTest, ALockStatementBehindARowLockFailsWithinItsBound) {
  const auto store = open_store(config_, {.statement_bound = milliseconds(200)});
  const auto mine = claim("run-a");
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  std::unique_ptr<PGconn, decltype(&PQfinish)> blocker(PQconnectdb(config_.uri.c_str()), &PQfinish);
  ASSERT_EQ(PQstatus(blocker.get()), CONNECTION_OK);
  PQclear(PQexec(blocker.get(), "BEGIN"));
  PQclear(PQexec(blocker.get(), "SELECT * FROM _migronaut_locks FOR UPDATE"));
  EXPECT_THROW(store->renew(token_of(mine), {"m1", 1, 1}), Error);
  PQclear(PQexec(blocker.get(), "ROLLBACK"));
  EXPECT_TRUE(store->renew(token_of(mine), {"m1", 1, 1}));
}

// The lock's connection (not durable) commits asynchronously; a migration's connection does not.
TEST_F(PostgresStoreTest, OnlyANonDurableConnectionCommitsAsynchronously) {
  const auto setting_of = [&](const ConnectionOptions& options) {
    const auto store = open_store(config_, options);
    store->ensure_schema();
    std::string value;
    const Work work = MigrationBody([&](MigrationContext& context) {
      PGresult* result = PQexec(context.handle.postgres, "SHOW synchronous_commit");
      value = PQgetvalue(result, 0, 0);
      PQclear(result);
    });
    execute(*store, work, true);
    return value;
  };
  // The test cluster commits asynchronously throughout; this database is made durable again.
  query("ALTER DATABASE \"" + *query("SELECT current_database()") +
        "\" SET synchronous_commit = on");
  EXPECT_EQ(setting_of({}), "on");
  EXPECT_EQ(setting_of({.statement_bound = milliseconds(2000), .durable = false}), "off");
}

TEST_F(PostgresStoreTest, InterruptCancelsARunningMigration) {
  const auto store = open();
  store->ensure_schema();
  std::atomic<bool> done = false;
  std::thread canceller([&] {
    // Cancel once the statement is visibly running (a cancel before it would be lost).
    while (!done && query("SELECT count(*) FROM pg_stat_activity WHERE query LIKE "
                          "'%pg_sleep(3600)%' AND state = 'active' AND pid <> "
                          "pg_backend_pid()") != "1") {
      std::this_thread::sleep_for(milliseconds(10));
    }
    store->interrupt();
  });
  try {
    execute(*store, Script{"CREATE TABLE users (id int); SELECT pg_sleep(3600);"}, true);
    ADD_FAILURE() << "the sleep should have been cancelled";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_EQ(error.context().value("sqlstate", ""), "57014");
  }
  done = true;
  canceller.join();
  EXPECT_FALSE(table_exists("users"));
}

TEST_F(PostgresStoreTest, NowIsTheServerClock) {
  const auto store = open();
  const std::int64_t first = store->now_ms();
  const auto system =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  EXPECT_GE(store->now_ms(), first);
  // The same machine: the two clocks agree closely, and certainly within a minute.
  EXPECT_NEAR(static_cast<double>(first), static_cast<double>(system), 60'000);
}

TEST_F(PostgresStoreTest, ConnectionErrorsNeverShowThePassword) {
  Config config = config_;
  config.uri =
      "postgresql://alice:s3cr3t-pw@127.0.0.1:" + std::to_string(PgCluster::shared().port()) +
      "/no_such_db?password=qs-s3cr3t";
  try {
    open_store(config);
    FAIL() << "the connection should have failed";
  } catch (const ConnectionFailedError& error) {
    const std::string text = std::string(error.what()) + error.context().dump();
    EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << text;
    EXPECT_NE(text.find("alice:***@127.0.0.1"), std::string::npos) << text;
    EXPECT_NE(text.find("no_such_db"), std::string::npos) << text;
  }
}

TEST(PgClusterTest, StopRemovesEverything) {
  PgCluster cluster;
  const std::filesystem::path directory = cluster.directory();
  ASSERT_TRUE(std::filesystem::exists(directory / "data"));
  cluster.create_database("probe");
  EXPECT_EQ(pg_query_value(cluster.uri("probe"), "SELECT current_database()"), "probe");
  cluster.restart();
  EXPECT_EQ(pg_query_value(cluster.uri("probe"), "SELECT 1"), "1");
  cluster.drop_database("probe");
  cluster.stop();
  EXPECT_FALSE(std::filesystem::exists(directory));
  EXPECT_THROW(pg_query_value(cluster.uri("postgres"), "SELECT 1"), std::runtime_error);
  cluster.stop();  // idempotent
}

}  // namespace
}  // namespace migronaut::testing

// The MongoDB store against a scripted server (mockupdb): what it sends, exactly, and what it
// makes of the replies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "migronaut/errors.hpp"
#include "mongo/mock_server.hpp"
#include "store/registry.hpp"
#include "support/null_logger.hpp"
#include "support/ports.hpp"

namespace migronaut::testing {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const json kMajority = {{"w", "majority"}};

Config config_for(const MockMongo& server) {
  Config config;
  config.uri = server.uri();
  config.db_name = "app";
  return config;
}

LockClaim claim() {
  return {.owner = "run-1",
          .nonce = "nonce-1",
          .ttl_ms = 60000,
          .pid = 77,
          .host = "$host",
          .executed_by = "alice"};
}

std::vector<std::string> names(const std::vector<ReceivedCommand>& commands) {
  std::vector<std::string> result;
  for (const auto& command : commands) result.push_back(command.name);
  return result;
}

json literal(const json& value) { return {{"$literal", value}}; }

TEST(MongoWire, AcquireSendsOneFindAndModifyUpsertOfTheStaleRulePipelineAndTrustsTheUpsert) {
  MockMongo server("acquire-upserted");
  auto store = open_store(config_for(server));

  const AcquireResult result = store->try_acquire(claim());

  EXPECT_TRUE(result.acquired);
  EXPECT_FALSE(result.reclaimed.has_value());
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("findAndModify"));  // no read-back after an upsert
  const json& acquire = sent[0].doc;
  EXPECT_EQ(acquire["findAndModify"], "_migronaut_locks");
  EXPECT_EQ(acquire["$db"], "app");
  EXPECT_EQ(acquire["writeConcern"], kMajority);
  EXPECT_EQ(acquire["query"], json({{"_id", "migronaut_lock"}}));
  EXPECT_EQ(acquire["upsert"], true);
  EXPECT_FALSE(acquire.value("new", false));  // the record as it was: a reclaim names it
  EXPECT_FALSE(acquire.contains("remove"));
  const json stale = {
      {"$lt",
       {{{"$ifNull", {"$lockedAt", {{"$date", "1970-01-01T00:00:00Z"}}}}},
        {{"$subtract", {"$$NOW", {{"$max", {{{"$ifNull", {"$ttlMs", 0}}}, 60000}}}}}}}}};
  const json holder = {{"_id", literal("migronaut_lock")},
                       {"lockedAt", "$$NOW"},
                       {"pid", 77},
                       {"host", literal("$host")},
                       {"executedBy", literal("alice")},
                       {"owner", literal("run-1")},
                       {"nonce", literal("nonce-1")},
                       {"ttlMs", 60000}};
  const json pipeline = json::array({{{"$replaceWith", {{"$cond", {stale, holder, "$$ROOT"}}}}}});
  EXPECT_EQ(acquire["update"], pipeline);
}

TEST(MongoWire, AcquireDuplicateKeyIsRefusedWithTheHolderReadBack) {
  MockMongo server("acquire-duplicate");
  auto store = open_store(config_for(server));

  const AcquireResult result = store->try_acquire(claim());

  EXPECT_FALSE(result.acquired);
  ASSERT_TRUE(result.holder.has_value());
  EXPECT_EQ(result.holder->run_id, "peer-run");
  EXPECT_EQ(result.holder->ttl_ms, 30000);
  EXPECT_EQ(result.holder->pid, 4242);
  EXPECT_EQ(result.holder->host, "peer-host");
  EXPECT_EQ(result.holder->executed_by, "peer-user");
  EXPECT_EQ(result.holder->migration, "20260101000000-users.json");
  EXPECT_EQ(result.holder->step, 2);
  EXPECT_EQ(result.holder->total, 5);
  // 2026-01-02T03:03:60.678Z: five seconds before the scenario's now.
  EXPECT_EQ(result.holder->locked_at_ms, 1767323040678);
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("findAndModify", "find"));
  EXPECT_EQ(sent[1].doc["find"], "_migronaut_locks");
  EXPECT_EQ(sent[1].doc["filter"], json({{"_id", "migronaut_lock"}}));
}

TEST(MongoWire, AcquireReadBackWithTheSameOwnerButAnotherNonceIsRefused) {
  MockMongo server("acquire-other-nonce");
  auto store = open_store(config_for(server));

  const AcquireResult result = store->try_acquire(claim());

  EXPECT_FALSE(result.acquired);
  ASSERT_TRUE(result.holder.has_value());
  EXPECT_EQ(result.holder->run_id, "run-1");
  EXPECT_FALSE(result.reclaimed.has_value());
  EXPECT_THAT(names(server.operations()), ElementsAre("findAndModify", "find"));
}

// The read-back shows our claim, so the record the findAndModify found was a dead holder's.
TEST(MongoWire, AcquireReadBackWithOurOwnerAndNonceIsOursAndNamesTheHolderItReplaced) {
  MockMongo server("acquire-reclaimed");
  auto store = open_store(config_for(server));

  const AcquireResult result = store->try_acquire(claim());

  EXPECT_TRUE(result.acquired);
  EXPECT_FALSE(result.holder.has_value());
  ASSERT_TRUE(result.reclaimed.has_value());
  EXPECT_EQ(result.reclaimed->run_id, "dead-run-0123456789");
  EXPECT_EQ(result.reclaimed->host, "dead-host");
  EXPECT_EQ(result.reclaimed->pid, 31337);
  EXPECT_EQ(result.reclaimed->ttl_ms, 30000);
  EXPECT_EQ(result.reclaimed->migration, "20260101000000-users.json");
  EXPECT_EQ(result.reclaimed->locked_at_ms, 1767323045678 - 120'000);  // two minutes stale
  EXPECT_THAT(names(server.operations()), ElementsAre("findAndModify", "find"));
}

TEST(MongoWire, RenewIsScopedToOwnerAndNonceAndReportsAMissAsLost) {
  MockMongo server("renew-lost");
  auto store = open_store(config_for(server));

  const bool renewed = store->renew({"run-1", "nonce-1"}, {"$m.json", 3, 7});

  EXPECT_FALSE(renewed);
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("update"));
  EXPECT_EQ(sent[0].doc["writeConcern"], kMajority);
  const json& statement = sent[0].doc["updates"][0];
  EXPECT_EQ(statement["q"],
            json({{"_id", "migronaut_lock"}, {"owner", "run-1"}, {"nonce", "nonce-1"}}));
  EXPECT_FALSE(statement.value("upsert", false));
  EXPECT_EQ(statement["u"], json::array({{{"$set",
                                           {{"lockedAt", "$$NOW"},
                                            {"migration", literal("$m.json")},
                                            {"step", 3},
                                            {"total", 7}}}}}));
}

TEST(MongoWire, RenewThatMatchesIsStillOurs) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));

  EXPECT_TRUE(store->renew({"run-1", "nonce-1"}, {"m.json", 1, 1}));
}

TEST(MongoWire, ReleaseDeletesOnlyOurRecord) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));

  store->release({"run-1", "nonce-1"});

  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("delete"));
  EXPECT_EQ(sent[0].doc["delete"], "_migronaut_locks");
  EXPECT_EQ(sent[0].doc["writeConcern"], kMajority);
  const json& statement = sent[0].doc["deletes"][0];
  EXPECT_EQ(statement["q"],
            json({{"_id", "migronaut_lock"}, {"owner", "run-1"}, {"nonce", "nonce-1"}}));
  EXPECT_EQ(statement["limit"], 1);
}

TEST(MongoWire, ForceReleaseDeletesByIdAloneAndReturnsTheHolder) {
  MockMongo server("force-release");
  auto store = open_store(config_for(server));

  const auto removed = store->force_release({});

  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->run_id, "peer-run");
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("findAndModify"));
  EXPECT_EQ(sent[0].doc["findAndModify"], "_migronaut_locks");
  EXPECT_EQ(sent[0].doc["query"], json({{"_id", "migronaut_lock"}}));
  EXPECT_EQ(sent[0].doc["remove"], true);
  EXPECT_EQ(sent[0].doc["writeConcern"], kMajority);
}

// `unlock` names the holder it showed: only that run's record is removed.
TEST(MongoWire, ForceReleaseNamingAHolderDeletesOnlyItsRecord) {
  MockMongo server("force-release");
  auto store = open_store(config_for(server));

  ASSERT_TRUE(store->force_release({"peer-run", std::nullopt}).has_value());
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("findAndModify"));
  EXPECT_EQ(sent[0].doc["query"], json({{"_id", "migronaut_lock"}, {"owner", "peer-run"}}));
}

// `unlock` names the stamp it showed too: a holder that renewed the lock since keeps it.
TEST(MongoWire, ForceReleaseNamingAStampDeletesOnlyARecordStillCarryingIt) {
  MockMongo server("force-release");
  auto store = open_store(config_for(server));

  ASSERT_TRUE(store->force_release({"peer-run", 1767225600123}).has_value());
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("findAndModify"));
  EXPECT_EQ(sent[0].doc["query"], json({{"_id", "migronaut_lock"},
                                        {"owner", "peer-run"},
                                        {"lockedAt", {{"$date", "2026-01-01T00:00:00.123Z"}}}}));
}

TEST(MongoWire, ForceReleaseWithNoRecordReturnsNothing) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));

  EXPECT_FALSE(store->force_release({}).has_value());
}

TEST(MongoWire, ReadLockFindsByIdOnThePrimary) {
  MockMongo server("acquire-duplicate");
  auto store = open_store(config_for(server));

  const auto holder = store->read_lock();

  ASSERT_TRUE(holder.has_value());
  EXPECT_EQ(holder->run_id, "peer-run");
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("find"));
  EXPECT_EQ(sent[0].doc["filter"], json({{"_id", "migronaut_lock"}}));
  EXPECT_EQ(sent[0].doc["limit"], 1);
}

TEST(MongoWire, EnsureSchemaCreatesTheOriginalsIndexesInOneCommandOnce) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));

  store->ensure_schema();
  store->ensure_schema();

  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("createIndexes"));
  EXPECT_EQ(sent[0].doc["createIndexes"], "_migronaut_migrations");
  EXPECT_EQ(sent[0].doc["writeConcern"], kMajority);
  const json indexes =
      json::array({{{"key", {{"name", 1}}}, {"name", "name_unique"}, {"unique", true}},
                   {{"key", {{"status", 1}, {"batch", -1}}}, {"name", "status_batch"}},
                   {{"key", {{"batch", 1}}}, {"name", "batch"}},
                   {{"key", {{"status", 1}, {"name", 1}}}, {"name", "status_name"}},
                   {{"key", {{"status", 1}, {"appliedAt", -1}, {"name", -1}}},
                    {"name", "status_appliedAt_name"}}});
  EXPECT_EQ(sent[0].doc["indexes"], indexes);
}

TEST(MongoWire, ReadChangelogFindsEverythingSortedByNameAndReadsTheJavaScriptTypes) {
  MockMongo server("changelog");
  auto store = open_store(config_for(server));

  const auto records = store->read_changelog();

  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name, "20260101000000-a.json");
  EXPECT_EQ(records[0].status, RecordStatus::kApplied);
  EXPECT_EQ(records[0].batch, 1);
  EXPECT_EQ(records[0].duration_ms, 12);  // written as a double
  EXPECT_EQ(records[0].applied_at_ms, 1767323045678);
  EXPECT_EQ(records[0].first_applied_at_ms, 1767323045678 - 86400000);
  EXPECT_EQ(records[0].executed_by, "alice");
  EXPECT_EQ(records[1].status, RecordStatus::kFailed);
  EXPECT_EQ(records[1].batch, 2);  // written as an int64
  EXPECT_EQ(records[1].error, "boom");
  EXPECT_EQ(records[1].failed_checksum, "c2");
  EXPECT_FALSE(records[1].applied_at_ms.has_value());
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("find"));
  EXPECT_EQ(sent[0].doc["find"], "_migronaut_migrations");
  EXPECT_EQ(sent[0].doc["filter"], json::object());
  EXPECT_EQ(sent[0].doc["sort"], json({{"name", 1}}));
}

RecordWrite applied_write() {
  return {.name = "20260101000000-a.json",
          .set = {{Field::kStatus, std::string("applied")},
                  {Field::kBatch, std::int64_t{3}},
                  {Field::kAppliedAt, ServerNow{}},
                  {Field::kDuration, std::int64_t{15}},
                  {Field::kError, std::string("$not a path")}},
          .set_if_absent = {{Field::kFirstAppliedAt, ServerNow{}}},
          .unset = {Field::kRevertedAt, Field::kFailedAt},
          .skip_if_applied = false};
}

TEST(MongoWire, WriteRecordIsOneUpsertPipelineByName) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));

  store->write_record(applied_write());

  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("update"));
  EXPECT_EQ(sent[0].doc["update"], "_migronaut_migrations");
  EXPECT_EQ(sent[0].doc["writeConcern"], kMajority);
  const json& statement = sent[0].doc["updates"][0];
  EXPECT_EQ(statement["q"], json({{"name", "20260101000000-a.json"}}));
  EXPECT_EQ(statement["upsert"], true);
  const json pipeline =
      json::array({{{"$set",
                     {{"name", literal("20260101000000-a.json")},
                      {"status", literal("applied")},
                      {"batch", 3},
                      {"appliedAt", "$$NOW"},
                      {"duration", 15},
                      {"error", literal("$not a path")},
                      {"firstAppliedAt", {{"$ifNull", {"$firstAppliedAt", "$$NOW"}}}}}}},
                   {{"$unset", {"revertedAt", "failedAt"}}}});
  EXPECT_EQ(statement["u"], pipeline);
}

RecordWrite failed_write() {
  return {.name = "20260101000000-a.json",
          .set = {{Field::kStatus, std::string("failed")},
                  {Field::kFailedAt, std::int64_t{1767323045678}}},
          .set_if_absent = {},
          .unset = {},
          .skip_if_applied = true};
}

TEST(MongoWire, AFailureTraceSkipsAnAppliedRecordAndWritesExplicitTimesAsDates) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));

  store->write_record(failed_write());

  const json statement = server.operations().at(0).doc["updates"][0];
  EXPECT_EQ(statement["q"],
            json({{"name", "20260101000000-a.json"}, {"status", {{"$ne", "applied"}}}}));
  EXPECT_EQ(statement["u"][0]["$set"]["failedAt"], json({{"$date", "2026-01-02T03:04:05.678Z"}}));
}

TEST(MongoWire, ADuplicateKeyOnAFailureTraceMeansTheAppliedRecordWasLeftAlone) {
  MockMongo server("changelog-duplicate");
  auto store = open_store(config_for(server));

  EXPECT_NO_THROW(store->write_record(failed_write()));
  EXPECT_THROW(store->write_record(applied_write()), Error);
}

Work script(std::string text) { return Script{std::move(text)}; }

TEST(MongoWire, AScriptRunsItsCommandsInOrderAgainstTheConfiguredDatabase) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "users"},
      {"insert": "users", "documents": [{"n": {"$numberLong": "5"}}]}])");
  const RecordWrite record = applied_write();

  store->execute({.work = &work, .transactional = false, .record = &record});

  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("create", "insert", "update"));
  EXPECT_EQ(sent[0].doc["$db"], "app");
  EXPECT_EQ(sent[1].doc["documents"], json::array({{{"n", 5}}}));
  EXPECT_EQ(sent[2].doc["update"], "_migronaut_migrations");
}

// A migration's timeout travels with each step as maxTimeMS (what is left of it), so the
// server itself ends a step that would outrun it.
TEST(MongoWire, ATimedScriptSendsWhatIsLeftOfItsTimeoutAsMaxTimeMS) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "users"}, {"create": "orders"}])");
  const RecordWrite record = applied_write();

  store->execute({.work = &work,
                  .transactional = false,
                  .record = &record,
                  .time_limit = std::chrono::milliseconds(60'000)});

  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("create", "create", "update"));
  for (int step = 0; step < 2; ++step) {
    ASSERT_TRUE(sent[step].doc.contains("maxTimeMS")) << sent[step].doc.dump();
    EXPECT_GT(sent[step].doc["maxTimeMS"].get<std::int64_t>(), 0);
    EXPECT_LE(sent[step].doc["maxTimeMS"].get<std::int64_t>(), 60'000);
  }
  EXPECT_FALSE(sent[2].doc.contains("maxTimeMS"));  // the record is no part of the work
}

// The lock's own client bounds how long a write waits for a majority: a renewal that cannot
// get one in time fails instead of waiting out the driver's socket timeout.
TEST(MongoWire, TheLockClientBoundsItsMajorityWaits) {
  MockMongo server("primary");
  auto store = open_store(config_for(server), {.statement_bound = std::chrono::milliseconds(400)});
  EXPECT_TRUE(store->renew({"run-1", "nonce-1"}, {"m", 1, 1}));
  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("update"));
  EXPECT_EQ(sent[0].doc["writeConcern"], json({{"w", "majority"}, {"wtimeout", 200}}));
}

TEST(MongoWire, AFailingStepStopsTheScriptWithTheServersError) {
  MockMongo server("step-fails");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "a"}, {"boom": 1}, {"create": "b"}])");
  const RecordWrite record = applied_write();

  try {
    store->execute({.work = &work, .transactional = false, .record = &record});
    FAIL() << "expected MigrationExecutionFailedError";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_THAT(error.what(), HasSubstr("no such thing as boom"));
    EXPECT_EQ(error.context()["step"], 1);
    EXPECT_EQ(error.context()["code"], 2);
    EXPECT_EQ(error.context()["command"], "boom");
  }
  EXPECT_THAT(names(server.operations()), ElementsAre("create", "boom"));  // no record written
}

// Outside a transaction the lease is asked before each step: a run paused past it sends no more
// once it resumes (the store conformance suite checks the same on a live server).
TEST(MongoWire, AnUntransactedScriptSendsNoMoreStepsOnceTheLockIsLost) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "a"}, {"create": "b"}])");
  const RecordWrite record = applied_write();
  int asked = 0;
  try {
    store->execute({.work = &work, .transactional = false, .record = &record, .still_held = [&] {
                      return ++asked == 1;
                    }});
    ADD_FAILURE() << "execute did not throw";
  } catch (const LockLostError& error) {
    EXPECT_EQ(error.context().value("statementsApplied", 0), 1) << error.what();
  }
  EXPECT_EQ(asked, 2);
  EXPECT_THAT(names(server.operations()), ElementsAre("create"));  // no second step, no record
}

TEST(MongoWire, ATransactionalExecutionOnAStandaloneServerSendsNothing) {
  MockMongo server("standalone");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "users"}])");
  const RecordWrite record = applied_write();

  EXPECT_THROW(store->execute({.work = &work, .transactional = true, .record = &record}),
               TransactionsUnsupportedError);
  EXPECT_TRUE(server.operations().empty());
}

TEST(MongoWire, ATransactionFencesFirstThenRunsTheStepsAndTheRecordInOneSession) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "users"}])");
  const RecordWrite record = applied_write();
  const LockToken fence{"run-1", "nonce-1"};
  const LockProgress progress{"0002-users", 2, 5};

  store->execute({.work = &work,
                  .transactional = true,
                  .record = &record,
                  .fence = &fence,
                  .progress = &progress});

  const auto sent = server.operations();
  ASSERT_THAT(names(sent), ElementsAre("update", "create", "update", "commitTransaction"));
  const json& first = sent[0].doc;
  EXPECT_EQ(first["update"], "_migronaut_locks");
  EXPECT_EQ(first["updates"][0]["q"],
            json({{"_id", "migronaut_lock"}, {"owner", "run-1"}, {"nonce", "nonce-1"}}));
  // The fence carries the progress: no renewal of its own is needed to announce the migration.
  EXPECT_EQ(first["updates"][0]["u"], json::array({{{"$set",
                                                     {{"lockedAt", "$$NOW"},
                                                      {"migration", {{"$literal", "0002-users"}}},
                                                      {"step", 2},
                                                      {"total", 5}}}}}));
  EXPECT_EQ(first["startTransaction"], true);
  for (const auto& command : sent) {
    EXPECT_EQ(command.doc["lsid"], first["lsid"]) << command.name;
    EXPECT_EQ(command.doc["txnNumber"], first["txnNumber"]) << command.name;
    EXPECT_EQ(command.doc["autocommit"], false) << command.name;
  }
  EXPECT_FALSE(sent[2].doc.contains("writeConcern"));  // the transaction's, not the write's
  EXPECT_EQ(sent[2].doc["update"], "_migronaut_migrations");
  EXPECT_EQ(sent[3].doc["writeConcern"]["w"], "majority");
}

TEST(MongoWire, ATransientTransactionErrorRunsTheWholeTransactionAgain) {
  MockMongo server("step-transient");
  auto store = open_store(config_for(server));
  testing::NullLogger logger;
  MigrationContext context{.run = {}, .stop = {}, .logger = logger, .handle = {}};
  const Work work = script(R"([{"create": "users"}])");
  const RecordWrite record = applied_write();
  const LockToken fence{"run-1", "nonce-1"};

  store->execute({.work = &work,
                  .transactional = true,
                  .record = &record,
                  .fence = &fence,
                  .context = &context});

  EXPECT_EQ(context.run.attempt, 2);
  EXPECT_THAT(names(server.operations()),
              ElementsAre("update", "create", "abortTransaction", "update", "create", "update",
                          "commitTransaction"));
}

TEST(MongoWire, ATransactionThatDoesNotCommitIsAnExecutionFailure) {
  MockMongo server("commit-fails");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "users"}])");
  const RecordWrite record = applied_write();

  try {
    store->execute({.work = &work, .transactional = true, .record = &record});
    FAIL() << "expected MigrationExecutionFailedError";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_THAT(error.what(), HasSubstr("commit refused by the test"));
  }
  EXPECT_THAT(names(server.operations()), ElementsAre("create", "update", "commitTransaction"));
}

TEST(MongoWire, ALostFenceAbortsBeforeAnyStepRuns) {
  MockMongo server("fence-lost");
  auto store = open_store(config_for(server));
  const Work work = script(R"([{"create": "users"}])");
  const RecordWrite record = applied_write();
  const LockToken fence{"run-1", "nonce-1"};

  EXPECT_THROW(
      store->execute({.work = &work, .transactional = true, .record = &record, .fence = &fence}),
      LockLostError);
  EXPECT_THAT(names(server.operations()), ElementsAre("update", "abortTransaction"));
}

TEST(MongoWire, ACppBodyGetsTheClientTheDatabaseAndTheSession) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));
  testing::NullLogger logger;
  MigrationContext context{.run = {}, .stop = {}, .logger = logger, .handle = {}};
  NativeHandle seen;
  const Work work = MigrationBody([&](MigrationContext& ctx) { seen = ctx.handle; });

  store->execute({.work = &work, .transactional = true, .context = &context});

  EXPECT_NE(seen.mongo_client, nullptr);
  EXPECT_EQ(seen.mongo_database, "app");
  EXPECT_NE(seen.mongo_session, nullptr);
  EXPECT_EQ(context.run.attempt, 1);
  EXPECT_EQ(context.handle.mongo_session, nullptr);  // the session ended with the transaction
}

TEST(MongoWire, ABodyThatThrowsIsAnExecutionFailureAndRollsBack) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));
  testing::NullLogger logger;
  MigrationContext context{.run = {}, .stop = {}, .logger = logger, .handle = {}};
  const Work work = MigrationBody([](MigrationContext&) { throw std::runtime_error("bad body"); });
  const RecordWrite record = applied_write();

  EXPECT_THROW(store->execute(
                   {.work = &work, .transactional = true, .record = &record, .context = &context}),
               MigrationExecutionFailedError);
  EXPECT_THAT(names(server.operations()), ::testing::Not(::testing::Contains("update")));
}

TEST(MongoWire, NowIsTheServersLocalTime) {
  MockMongo server("primary");
  auto store = open_store(config_for(server));

  EXPECT_EQ(store->now_ms(), 1767323045678);
}

TEST(MongoWire, TheDatabaseMayComeFromTheUriPath) {
  MockMongo server("primary");
  Config config;
  config.uri = server.uri("fromuri");
  auto store = open_store(config);

  store->release({"run-1", "nonce-1"});

  EXPECT_EQ(server.operations().at(0).doc["$db"], "fromuri");
}

TEST(MongoWire, AnUnreachableServerIsAConnectionFailureWithTheUriRedacted) {
  Config config;
  config.uri = "mongodb://deploy:s3cret@127.0.0.1:" + std::to_string(free_port()) +
               "/app?serverSelectionTimeoutMS=300";
  try {
    open_store(config);
    FAIL() << "expected ConnectionFailedError";
  } catch (const ConnectionFailedError& error) {
    EXPECT_THAT(error.what(), HasSubstr("deploy:***@127.0.0.1"));
    EXPECT_THAT(error.what(), ::testing::Not(HasSubstr("s3cret")));
    EXPECT_THAT(error.context().dump(), ::testing::Not(HasSubstr("s3cret")));
  }
}

TEST(MongoWire, NoDatabaseNameIsAConfigError) {
  Config config;
  config.uri = "mongodb://127.0.0.1:1/";
  EXPECT_THROW(open_store(config), ConfigInvalidError);
}

}  // namespace
}  // namespace migronaut::testing

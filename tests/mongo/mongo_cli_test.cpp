// Whole `migronaut up` runs of the real binary against a scripted MongoDB wire-protocol server
// (mockupdb): what the CLI sends over a run, in order, and what it makes of the replies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mongoc/mongoc.h>

#include <cstdlib>
#include <memory>

#include "mongo/mock_server.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "util/ids.hpp"

namespace migronaut::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kUsersMigration = R"({
  "description": "users: unique email",
  "up": [
    {"create": "users"},
    {"createIndexes": "users", "indexes": [{"key": {"email": 1}, "name": "email_1", "unique": true}]}
  ],
  "down": [{"drop": "users"}]
})";

constexpr const char* kBoomMigration = R"({"up": [{"boom": 1}], "down": []})";

class MongoCliTest : public ::testing::Test {
 protected:
  TempDir dir;
  ProcessResult up(const MockMongo& server, const std::vector<std::string>& flags = {}) {
    std::vector<std::string> args = {"--no-env", "--json",
                                     "--uri",    server.uri("app"),
                                     "--dir",    (dir.path() / "migrations").string()};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back("up");
    return run_migronaut(args, {{"MIGRONAUT_USER", "ci"}}, dir.path());
  }
  // The operations on `collection` (the command's target), in the order the server saw them.
  static std::vector<ReceivedCommand> on(const std::vector<ReceivedCommand>& sent,
                                         const std::string& collection) {
    std::vector<ReceivedCommand> matching;
    for (const auto& command : sent) {
      const json& target = command.doc.value(command.name, json());
      if (target.is_string() && target == collection) matching.push_back(command);
    }
    return matching;
  }
};

TEST_F(MongoCliTest, AWholeUpReadsLocksRunsTheStepsRecordsAndReleases) {
  dir.write("migrations/20260101000000-users.json", kUsersMigration);
  MockMongo server("run");
  const ProcessResult result = up(server);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json output = json::parse(result.out);
  ASSERT_EQ(output["results"].size(), 1u);
  EXPECT_EQ(output["results"][0]["name"], "20260101000000-users.json");

  const auto sent = server.operations();
  std::vector<std::string> order;
  for (const auto& command : sent) {
    const json& target = command.doc.value(command.name, json());
    order.push_back(command.name + ":" + (target.is_string() ? target.get<std::string>() : ""));
  }
  // The boot read first; the lock before any step; the steps in file order; the record; the
  // release last.
  const auto position = [&](const std::string& key) {
    return std::find(order.begin(), order.end(), key) - order.begin();
  };
  const auto last_position = [&](const std::string& key) {
    return order.rend() - std::find(order.rbegin(), order.rend(), key) - 1;
  };
  EXPECT_EQ(order.front(), "find:_migronaut_migrations");
  EXPECT_LT(position("findAndModify:_migronaut_locks"), position("create:users"));
  EXPECT_LT(position("create:users"), position("createIndexes:users"));
  // Outside a transaction (MongoDB's default) the migration is first marked `applying`; the
  // `applied` record follows the steps.
  EXPECT_LT(position("update:_migronaut_migrations"), position("create:users"));
  EXPECT_LT(position("createIndexes:users"), last_position("update:_migronaut_migrations"));
  EXPECT_EQ(order.back(), "delete:_migronaut_locks");

  const auto lock_updates = on(sent, "_migronaut_locks");
  ASSERT_FALSE(lock_updates.empty());
  ASSERT_EQ(lock_updates.front().name, "findAndModify");
  const json& acquire = lock_updates.front().doc;
  EXPECT_TRUE(acquire["upsert"].get<bool>());
  EXPECT_FALSE(acquire.value("new", false));
  EXPECT_EQ(acquire["query"], json({{"_id", "migronaut_lock"}}));
  EXPECT_TRUE(acquire["update"][0].contains("$replaceWith"));
  const json holder = acquire["update"][0]["$replaceWith"]["$cond"][1];
  EXPECT_EQ(holder["executedBy"], json({{"$literal", "ci"}}));
  const std::string owner = holder["owner"]["$literal"];
  const std::string nonce = holder["nonce"]["$literal"];

  // The release deletes only our own record: owner and nonce.
  const json& release = lock_updates.back().doc["deletes"][0]["q"];
  EXPECT_EQ(release["owner"], owner);
  EXPECT_EQ(release["nonce"], nonce);

  // The changelog record: an upsert by name stamping status applied and this run's id.
  const auto records = on(sent, "_migronaut_migrations");
  const auto write = std::find_if(records.rbegin(), records.rend(),
                                  [](const auto& c) { return c.name == "update"; });
  ASSERT_NE(write, records.rend());
  const json& update = write->doc["updates"][0];
  EXPECT_TRUE(update["upsert"].get<bool>());
  EXPECT_EQ(update["q"]["name"], "20260101000000-users.json");
  EXPECT_THAT(update.dump(), HasSubstr("\"applied\""));
  EXPECT_THAT(update.dump(), HasSubstr(owner));
}

// The mock holds a lock its holder stopped renewing two minutes ago (TTL 30 s); the acquire
// replaces it and the read-back shows this run's claim.
TEST_F(MongoCliTest, ReclaimingAStaleLockNamesTheDeadHolder) {
  dir.write("migrations/20260101000000-users.json", kUsersMigration);
  MockMongo server("run-reclaims");
  const ProcessResult result = up(server);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("reclaimed the lock from dead-host pid 31337 (run dead-run)"));
  EXPECT_THAT(result.err, HasSubstr("on 20260101000000-users.json (2/5)"));
  EXPECT_THAT(result.err, HasSubstr("which last renewed it 120 s ago (TTL 30 s): presumed dead"));
  const auto locks = on(server.operations(), "_migronaut_locks");
  ASSERT_GE(locks.size(), 2u);
  EXPECT_EQ(locks[0].name, "findAndModify");
  EXPECT_EQ(locks[1].name, "find");  // the read-back that proves the claim is ours
}

TEST_F(MongoCliTest, VerboseLogsEachCommandOfTheMigrationOnItsOwnLine) {
  dir.write("migrations/20260101000000-users.json", kUsersMigration);
  MockMongo server("run");
  const ProcessResult result = up(server, {"--verbose"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto sent = lines_containing(result.err, "sending 20260101000000-users.json: ");
  ASSERT_EQ(sent.size(), 2u) << result.err;
  EXPECT_THAT(sent[0], HasSubstr(R"(: {"create":"users"})"));
  EXPECT_THAT(sent[1], HasSubstr(R"(: {"createIndexes":"users","indexes":[{"key":{"email":1})"));
}

TEST_F(MongoCliTest, AFailingStepExitsSevenRecordsTheFailureAndReleasesTheLock) {
  dir.write("migrations/20260101000000-boom.json", kBoomMigration);
  MockMongo server("run-step-fails");
  const ProcessResult result = up(server);
  EXPECT_EQ(result.exit_code, 7) << result.err;
  const json error = json::parse(result.out)["error"];
  EXPECT_EQ(error["code"], "MIGRATION_EXECUTION_FAILED");
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("no such thing as boom"));

  const auto sent = server.operations();
  const auto records = on(sent, "_migronaut_migrations");
  const auto failed = std::find_if(records.begin(), records.end(), [](const auto& c) {
    return c.name == "update" && c.doc.dump().find("\"failed\"") != std::string::npos;
  });
  ASSERT_NE(failed, records.end()) << "no failed record was written: " << result.err;
  // A failure never demotes an applied record.
  EXPECT_EQ(failed->doc["updates"][0]["q"]["status"], json({{"$ne", "applied"}}));
  EXPECT_EQ(sent.back().name, "delete");
}

// A down runs outside a transaction on MongoDB unless useTransaction is set: it first marks the
// record `reverting`, and a step that fails leaves that mark with the server's error (never
// `reverted`), for `status` to show half-reverted.
TEST_F(MongoCliTest, AFailingDownLeavesItsRevertingMarkWithTheError) {
  dir.write("migrations/20260101000000-boom-down.json",
            R"({"up": [{"create": "things"}], "down": [{"boom": 1}]})");
  MockMongo server("down-step-fails");
  const ProcessResult result =
      run_migronaut({"--no-env", "--json", "--uri", server.uri("app"), "--dir",
                     (dir.path() / "migrations").string(), "down"},
                    {{"MIGRONAUT_USER", "ci"}}, dir.path());
  EXPECT_EQ(result.exit_code, 7) << result.err;

  const auto sent = server.operations();
  const auto boom = std::find_if(sent.begin(), sent.end(),
                                 [](const ReceivedCommand& c) { return c.name == "boom"; });
  ASSERT_NE(boom, sent.end()) << result.err;
  std::vector<json> marks_before;
  std::vector<json> writes_after;
  for (auto command = sent.begin(); command != sent.end(); ++command) {
    const json& target = command->doc.value(command->name, json());
    if (command->name != "update" || target != "_migronaut_migrations") continue;
    (command < boom ? marks_before : writes_after).push_back(command->doc["updates"][0]);
  }
  ASSERT_EQ(marks_before.size(), 1u) << result.err;
  EXPECT_EQ(marks_before[0]["q"]["name"], "20260101000000-boom-down.json");
  EXPECT_THAT(marks_before[0].dump(), HasSubstr("\"reverting\""));
  ASSERT_EQ(writes_after.size(), 1u) << result.err;
  EXPECT_THAT(writes_after[0].dump(), HasSubstr("\"reverting\""));
  EXPECT_THAT(writes_after[0].dump(), HasSubstr("no such thing as boom"));
  EXPECT_THAT(writes_after[0].dump(), Not(HasSubstr("\"reverted\"")));
  EXPECT_EQ(sent.back().name, "delete");
}

TEST_F(MongoCliTest, ARenewalThatMatchesNothingStopsTheRunWithLockLostBeforeAnyStep) {
  dir.write("migrations/20260101000000-users.json", kUsersMigration);
  MockMongo server("run-renew-lost");
  const ProcessResult result = up(server);
  EXPECT_EQ(result.exit_code, 10) << result.err;
  EXPECT_EQ(json::parse(result.out)["error"]["code"], "LOCK_LOST");
  const auto sent = server.operations();
  EXPECT_TRUE(on(sent, "users").empty()) << "a step ran after the lock was lost";
  for (const auto& command : on(sent, "_migronaut_migrations")) {
    EXPECT_EQ(command.doc.dump().find("\"applied\""), std::string::npos)
        << "an applied record was written after the lock was lost";
  }
}

TEST_F(MongoCliTest, ImportFromMigrateMongoKeepsItsTimesAndNeverWritesItsChangelog) {
  dir.write("migrations/20260101000000-users.json", kUsersMigration);
  MockMongo server("migrate-mongo");
  const ProcessResult result =
      run_migronaut({"--no-env", "--json", "--uri", server.uri("app"), "--dir",
                     (dir.path() / "migrations").string(), "import", "--from", "migrate-mongo"},
                    {{"MIGRONAUT_USER", "ci"}}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json output = json::parse(result.out);
  ASSERT_EQ(output["imported"].size(), 1u);
  EXPECT_EQ(output["imported"][0]["name"], "20260101000000-users.json");
  EXPECT_EQ(output["imported"][0]["checksumSource"], "disk");  // the .js hash is not the file's
  // scenarios.NOW less two days, in the vocabulary's ISO-8601 UTC
  EXPECT_EQ(output["imported"][0]["appliedAt"], "2025-12-31T03:04:05.678Z");

  const auto sent = server.operations();
  for (const auto& command : on(sent, "changelog")) EXPECT_EQ(command.name, "find");
  const auto records = on(sent, "_migronaut_migrations");
  const auto write = std::find_if(records.begin(), records.end(),
                                  [](const auto& c) { return c.name == "update"; });
  ASSERT_NE(write, records.end());
  const std::string update = write->doc["updates"][0].dump();
  EXPECT_THAT(update, HasSubstr("20260101000000-users.json"));
  EXPECT_THAT(update, HasSubstr("migrate-mongo"));
  EXPECT_EQ(on(sent, "_migronaut_locks").back().name, "delete");  // under the lock
}

TEST_F(MongoCliTest, NothingPendingIsOneReadAndNoLock) {
  MockMongo server("primary");
  std::filesystem::create_directories(dir.path() / "migrations");  // empty: nothing to apply
  const ProcessResult result = up(server);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(json::parse(result.out)["upToDate"].get<bool>());
  const auto sent = server.operations();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].name, "find");
}

// `up --wait` waits for a database it cannot reach yet (here with a 1 s budget); a plain `up`
// fails at once. Either way the refusal ends in exit 5 with the password redacted everywhere.
TEST_F(MongoCliTest, ARefusedConnectionExitsFiveWithTheUriRedacted) {
  dir.write("migrations/20260101000000-users.json", kUsersMigration);
  const std::string uri = "mongodb://admin:s3cr3t@127.0.0.1:" + std::to_string(free_port()) +
                          "/app?serverSelectionTimeoutMS=300";
  for (const std::vector<std::string>& wait :
       {std::vector<std::string>{"--wait", "--wait-timeout", "1s"}, std::vector<std::string>{}}) {
    SCOPED_TRACE(wait.empty() ? "plain" : "--wait");
    std::vector<std::string> args = {
        "--no-env", "--json", "--uri", uri, "--dir", (dir.path() / "migrations").string(), "up"};
    args.insert(args.end(), wait.begin(), wait.end());
    const ProcessResult result = run_migronaut(args);
    EXPECT_EQ(result.exit_code, 5) << result.err;
    const json error = json::parse(result.out)["error"];
    EXPECT_EQ(error["code"], "CONNECTION_FAILED");
    // Only the waiting run retried, until its budget ran out.
    EXPECT_EQ(error["context"].value("timedOut", false), !wait.empty());
    EXPECT_EQ((result.out + result.err).find("s3cr3t"), std::string::npos);
  }
}

// Live: ten processes boot together against a real server. Runs only where
// MIGRONAUT_TEST_MONGO_URI points at one (a replica set or a standalone both work: these
// migrations run outside transactions); skipped out loud otherwise.
TEST_F(MongoCliTest, LiveTenProcessesApplyEachMigrationExactlyOnce) {
  const char* live = std::getenv("MIGRONAUT_TEST_MONGO_URI");
  if (live == nullptr || *live == '\0') {
    GTEST_SKIP() << "live MongoDB process test skipped: MIGRONAUT_TEST_MONGO_URI is not set";
  }
  const std::string database = "migronaut_live_" + new_nonce().substr(0, 12);
  for (int i = 1; i <= 3; ++i) {
    dir.write("migrations/2026010100000" + std::to_string(i) + "-step.json",
              R"({"up": [{"insert": "applied_log", "documents": [{"step": )" + std::to_string(i) +
                  R"(}]}], "down": []})");
  }
  std::vector<std::unique_ptr<Process>> fleet;
  for (int i = 0; i < 10; ++i) {
    fleet.push_back(std::make_unique<Process>(
        std::vector<std::string>{migronaut_binary(), "--no-env", "--uri", live, "--db", database,
                                 "--dir", (dir.path() / "migrations").string(), "up", "--wait"},
        std::map<std::string, std::string>{{"MIGRONAUT_LOCK_POLL_INTERVAL_MS", "50"}}));
  }
  for (auto& process : fleet) {
    const ProcessResult result = process->wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }

  mongoc_init();
  mongoc_client_t* client = mongoc_client_new(live);
  ASSERT_NE(client, nullptr);
  mongoc_collection_t* log = mongoc_client_get_collection(client, database.c_str(), "applied_log");
  mongoc_collection_t* locks =
      mongoc_client_get_collection(client, database.c_str(), "_migronaut_locks");
  bson_t empty = BSON_INITIALIZER;
  EXPECT_EQ(mongoc_collection_count_documents(log, &empty, nullptr, nullptr, nullptr, nullptr), 3);
  EXPECT_EQ(mongoc_collection_count_documents(locks, &empty, nullptr, nullptr, nullptr, nullptr),
            0);
  mongoc_database_t* db = mongoc_client_get_database(client, database.c_str());
  mongoc_database_drop(db, nullptr);
  mongoc_database_destroy(db);
  mongoc_collection_destroy(locks);
  mongoc_collection_destroy(log);
  mongoc_client_destroy(client);
}

}  // namespace
}  // namespace migronaut::testing

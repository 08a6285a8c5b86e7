// The MongoDB store's documents, built and read without a server.
#include "store/mongo/commands.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "migronaut/errors.hpp"
#include "store/mongo/bson.hpp"

namespace migronaut::mongo {
namespace {

TEST(MongoCommands, TheAcquirePipelineBecomesABsonArrayWithTheClaimAsLiterals) {
  const LockClaim claim{.owner = "$run",
                        .nonce = "n",
                        .ttl_ms = 5000000000,
                        .pid = 1,
                        .host = "h",
                        .executed_by = "u"};
  const Json pipeline = acquire_pipeline(claim);
  const BsonPtr document = to_bson(pipeline);

  // An update pipeline travels as a BSON array: keys "0", "1", …
  bson_iter_t first;
  ASSERT_TRUE(bson_iter_init_find(&first, document.get(), "0"));
  const Json round_trip = to_json(*document);
  const Json& holder = round_trip["0"]["$replaceWith"]["$cond"][1];
  EXPECT_EQ(holder["owner"], Json({{"$literal", "$run"}}));
  // A TTL beyond int32 stays exact (int64), in the rule and in the record.
  EXPECT_EQ(holder["ttlMs"], Json({{"$numberLong", "5000000000"}}));
  EXPECT_EQ(round_trip["0"]["$replaceWith"]["$cond"][0]["$lt"][1]["$subtract"][1]["$max"][1],
            Json({{"$numberLong", "5000000000"}}));
  EXPECT_EQ(round_trip["0"]["$replaceWith"]["$cond"][2], "$$ROOT");
}

TEST(MongoCommands, SmallNumbersAreWrittenAsInt32LikeTheJavaScriptDriverDoes) {
  RecordWrite write;
  write.name = "a";
  write.set = {{Field::kBatch, std::int64_t{7}}};
  const auto update = record_update(write);
  const Json round_trip = to_json(*to_bson(update.update));
  EXPECT_EQ(round_trip["0"]["$set"]["batch"], Json({{"$numberInt", "7"}}));
}

TEST(MongoCommands, ARecordWriteWithoutUnsetsHasOnlyASetStage) {
  const auto update = record_update({.name = "a", .set = {}, .set_if_absent = {}, .unset = {}});
  EXPECT_EQ(update.update, Json::array({{{"$set", {{"name", {{"$literal", "a"}}}}}}}));
  EXPECT_EQ(update.filter, Json({{"name", "a"}}));
}

TEST(MongoCommands, ExplicitTimesInSetIfAbsentAreDatesKeptWhenPresent) {
  RecordWrite write;
  write.name = "a";
  write.set_if_absent = {{Field::kFirstAppliedAt, std::int64_t{1000}}};
  const auto update = record_update(write);
  EXPECT_EQ(update.update[0]["$set"]["firstAppliedAt"],
            Json({{"$ifNull", {"$firstAppliedAt", date_json(1000)}}}));
}

TEST(MongoCommands, ALockRecordReadsWhateverNumericTypesItsWriterUsed) {
  const BsonPtr document = bson_from_json(R"({
    "_id": "migronaut_lock", "lockedAt": {"$date": {"$numberLong": "1234"}},
    "ttlMs": {"$numberDouble": "60000.0"}, "pid": {"$numberInt": "9"}, "owner": "r",
    "nonce": "secret", "host": "h", "executedBy": "u", "step": {"$numberLong": "2"}})");
  const LockInfo info = lock_info_from_bson(*document);
  EXPECT_EQ(info.locked_at_ms, 1234);
  EXPECT_EQ(info.ttl_ms, 60000);
  EXPECT_EQ(info.pid, 9);
  EXPECT_EQ(info.run_id, "r");
  EXPECT_EQ(info.step, 2);
  EXPECT_EQ(info.total, 0);
}

TEST(MongoCommands, APreTtlHolderReadsWithoutATtl) {
  const BsonPtr document = bson_from_json(R"({"_id": "migronaut_lock", "owner": "old"})");
  const LockInfo info = lock_info_from_bson(*document);
  EXPECT_EQ(info.ttl_ms, 0);
  EXPECT_EQ(info.locked_at_ms, 0);
}

// As on every store (src/store/rows.cpp): never read as applied, nor guessed as failed (which
// would run it again), but refused naming the record.
TEST(MongoCommands, AnUnknownStatusNeverReadsAsApplied) {
  const BsonPtr document = bson_from_json(R"({"name": "x.json", "status": "weird"})");
  try {
    record_from_bson(*document);
    ADD_FAILURE() << "an unknown status was read";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("x.json"));
    EXPECT_EQ(e.context()["status"], "weird");
  }
}

LockClaim claim_of(std::string owner, std::string nonce) {
  return {.owner = std::move(owner),
          .nonce = std::move(nonce),
          .ttl_ms = 60000,
          .pid = 1,
          .host = "h",
          .executed_by = "u"};
}

BsonPtr lock_record(std::string_view owner, std::string_view nonce, std::string_view host) {
  return to_bson({{"_id", "migronaut_lock"},
                  {"owner", owner},
                  {"nonce", nonce},
                  {"host", host},
                  {"pid", 9},
                  {"ttlMs", 30000}});
}

TEST(MongoCommands, AnAcquireWhoseReadBackIsOursReclaimedTheRecordItFound) {
  const BsonPtr dead = lock_record("dead-run", "dead-nonce", "dead-host");
  const BsonPtr ours = lock_record("run", "nonce", "h");

  const AcquireResult result = acquire_outcome(claim_of("run", "nonce"), dead.get(), ours.get());

  EXPECT_TRUE(result.acquired);
  EXPECT_FALSE(result.holder.has_value());
  ASSERT_TRUE(result.reclaimed.has_value());
  EXPECT_EQ(result.reclaimed->run_id, "dead-run");
  EXPECT_EQ(result.reclaimed->host, "dead-host");
  EXPECT_EQ(result.reclaimed->pid, 9);
  // Ours with nothing found before: the record appeared meanwhile, nobody was reclaimed.
  EXPECT_FALSE(acquire_outcome(claim_of("run", "nonce"), nullptr, ours.get()).reclaimed);
}

TEST(MongoCommands, AnAcquireWhoseReadBackIsAnotherNonceIsRefusedByIt) {
  const BsonPtr peer = lock_record("run", "peer-nonce", "peer-host");

  const AcquireResult result = acquire_outcome(claim_of("run", "nonce"), peer.get(), peer.get());

  EXPECT_FALSE(result.acquired);
  EXPECT_FALSE(result.reclaimed.has_value());
  ASSERT_TRUE(result.holder.has_value());
  EXPECT_EQ(result.holder->host, "peer-host");
  // Released in between: refused, with no holder to name.
  EXPECT_FALSE(acquire_outcome(claim_of("run", "nonce"), peer.get(), nullptr).holder);
}

TEST(MongoCommands, RejectedJsonIsAnInvalidArgument) {
  EXPECT_THROW(bson_from_json("{not json"), std::invalid_argument);
}

}  // namespace
}  // namespace migronaut::mongo

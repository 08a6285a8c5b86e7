// Beyond what the wire test checks (the documents sent, byte for byte): what those documents
// DO. The acquire, renew, release, fence, progress and changelog updates the store sends are
// evaluated by mingo — an implementation of MongoDB's query and update-pipeline language of its
// own, run with node — against a fresh, a live and a stale lock document, and the outcomes
// asserted. Skipped, with the reason, when node or mingo is not available.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "store/mongo/bson.hpp"
#include "store/mongo/commands.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace migronaut::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::int64_t kNow = 1'790'000'000'000;  // the pinned $$NOW

json date(std::int64_t ms) { return {{"$date", {{"$numberLong", std::to_string(ms)}}}}; }

json lock_document(const std::string& owner, const std::string& nonce, std::int64_t age_ms,
                   std::int64_t ttl_ms) {
  return {{"_id", "migronaut_lock"},
          {"lockedAt", date(kNow - age_ms)},
          {"pid", 4242},
          {"host", "peer-host"},
          {"executedBy", "peer"},
          {"owner", owner},
          {"nonce", nonce},
          {"ttlMs", ttl_ms},
          {"migration", "0001-a"},
          {"step", 1},
          {"total", 3}};
}

LockClaim claim() {
  return {.owner = "run-1",
          .nonce = "nonce-1",
          .ttl_ms = 60'000,
          .pid = 77,
          .host = "$host",
          .executed_by = "alice"};
}

std::string skip_reason() {
  if (std::string(MIGRONAUT_NODE).empty() || !fs::exists(MIGRONAUT_NODE)) {
    return "node is not installed";
  }
  std::ifstream reason(fs::path(MIGRONAUT_MINGO_PREFIX) / "mingo-skipped");
  if (reason) return std::string(std::istreambuf_iterator<char>(reason), {});
  if (!fs::exists(fs::path(MIGRONAUT_MINGO_PREFIX) / "node_modules" / "mingo")) {
    return "mingo is not installed (the mingo_install test installs it)";
  }
  return "";
}

class MingoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string reason = skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  }

  void add(const std::string& name, json filter, json pipeline, bool upsert, json doc) {
    cases_.push_back({{"name", name},
                      {"filter", std::move(filter)},
                      {"pipeline", std::move(pipeline)},
                      {"upsert", upsert},
                      {"doc", std::move(doc)}});
  }
  // As a findAndModify with new: false: the case's result is {value, document}.
  void add_find_and_modify(const std::string& name, json filter, json pipeline, bool upsert,
                           json doc) {
    add(name, std::move(filter), std::move(pipeline), upsert, std::move(doc));
    cases_.back()["findAndModify"] = true;
  }

  // Runs every case added; name → the resulting document (null: nothing matched).
  json evaluate() {
    const fs::path input = dir_.write("cases.json", json{{"now", kNow}, {"cases", cases_}}.dump());
    Process node({MIGRONAUT_NODE, MIGRONAUT_MINGO_EVAL, input.string()},
                 {{"NODE_PATH", (fs::path(MIGRONAUT_MINGO_PREFIX) / "node_modules").string()}});
    const ProcessResult result = node.wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out, nullptr, false);
  }

 private:
  TempDir dir_{"migronaut-mingo"};
  json cases_ = json::array();
};

// What the store makes of a findAndModify's answer and the record read back after it.
AcquireResult outcome(const json& answer) {
  const auto as_bson = [](const json& document) {
    return document.is_null() ? mongo::BsonPtr() : mongo::to_bson(mongo::Json(document));
  };
  const mongo::BsonPtr previous = as_bson(answer["value"]);
  const mongo::BsonPtr current = as_bson(answer["document"]);
  return mongo::acquire_outcome(claim(), previous.get(), current.get());
}

TEST_F(MingoTest, AcquireTakesAFreeOrStaleLockAndLeavesALiveOneAlone) {
  const json filter = mongo::lock_id_filter();
  const json pipeline = mongo::acquire_pipeline(claim());
  add_find_and_modify("fresh", filter, pipeline, true, nullptr);
  add_find_and_modify("live", filter, pipeline, true,
                      lock_document("peer", "peer-nonce", 5'000, 30'000));
  add_find_and_modify("stale", filter, pipeline, true,
                      lock_document("peer", "peer-nonce", 120'000, 30'000));
  // Stale by our TTL, live by the holder's own longer one: the larger TTL decides.
  add_find_and_modify("long-ttl", filter, pipeline, true,
                      lock_document("peer", "peer-nonce", 120'000, 300'000));
  const json out = evaluate();

  for (const char* taken : {"fresh", "stale"}) {
    const json& lock = out[taken]["document"];
    EXPECT_EQ(lock["owner"], "run-1") << taken;
    EXPECT_EQ(lock["nonce"], "nonce-1") << taken;
    EXPECT_EQ(lock["lockedAt"], json({{"$date", kNow}})) << taken;
    EXPECT_EQ(lock["ttlMs"], 60'000) << taken;
    EXPECT_EQ(lock["host"], "$host") << taken;          // a $-string stays a string
    EXPECT_FALSE(lock.contains("migration")) << taken;  // the old holder's progress is gone
    EXPECT_TRUE(outcome(out[taken]).acquired) << taken;
  }
  EXPECT_EQ(out["live"]["document"]["owner"], "peer");
  EXPECT_EQ(out["live"]["document"]["lockedAt"], json({{"$date", kNow - 5'000}}));
  EXPECT_EQ(out["long-ttl"]["document"]["owner"], "peer");

  // The answer's pre-image names whom a reclaim replaced, and only a reclaim names anyone.
  EXPECT_FALSE(outcome(out["fresh"]).reclaimed.has_value());
  const AcquireResult stale = outcome(out["stale"]);
  ASSERT_TRUE(stale.reclaimed.has_value());
  EXPECT_EQ(stale.reclaimed->run_id, "peer");
  EXPECT_EQ(stale.reclaimed->host, "peer-host");
  EXPECT_EQ(stale.reclaimed->pid, 4242);
  EXPECT_EQ(stale.reclaimed->locked_at_ms, kNow - 120'000);
  for (const char* refused : {"live", "long-ttl"}) {
    const AcquireResult result = outcome(out[refused]);
    EXPECT_FALSE(result.acquired) << refused;
    EXPECT_FALSE(result.reclaimed.has_value()) << refused;
    ASSERT_TRUE(result.holder.has_value()) << refused;
    EXPECT_EQ(result.holder->run_id, "peer") << refused;
  }
}

TEST_F(MingoTest, RenewFenceAndReleaseMatchOnlyTheirOwnerAndNonce) {
  const LockToken mine{"run-1", "nonce-1"};
  const json ours = lock_document("run-1", "nonce-1", 20'000, 60'000);
  const json renew = mongo::renew_pipeline({"0002-b", 2, 3});
  add("renew-ours", mongo::holder_filter(mine), renew, false, ours);
  add("renew-other-nonce", mongo::holder_filter(mine), renew, false,
      lock_document("run-1", "nonce-2", 20'000, 60'000));
  add("renew-other-owner", mongo::holder_filter(mine), renew, false,
      lock_document("run-2", "nonce-1", 20'000, 60'000));
  add("fence-ours", mongo::holder_filter(mine), mongo::fence_pipeline(nullptr), false, ours);
  const LockProgress progress{"0003-c", 3, 3};
  add("fence-with-progress", mongo::holder_filter(mine), mongo::fence_pipeline(&progress), false,
      ours);
  add("fence-other-nonce", mongo::holder_filter(mine), mongo::fence_pipeline(&progress), false,
      lock_document("run-1", "nonce-2", 20'000, 60'000));
  // A release deletes what its filter matches.
  add("release-ours", mongo::holder_filter(mine), json::array(), false, ours);
  add("release-other", mongo::holder_filter(mine), json::array(), false,
      lock_document("run-2", "nonce-2", 20'000, 60'000));
  const json out = evaluate();

  EXPECT_EQ(out["renew-ours"]["lockedAt"], json({{"$date", kNow}}));
  EXPECT_EQ(out["renew-ours"]["migration"], "0002-b");
  EXPECT_EQ(out["renew-ours"]["step"], 2);
  EXPECT_EQ(out["renew-ours"]["total"], 3);
  EXPECT_EQ(out["renew-ours"]["owner"], "run-1");
  EXPECT_TRUE(out["renew-other-nonce"].is_null());
  EXPECT_TRUE(out["renew-other-owner"].is_null());
  EXPECT_EQ(out["fence-ours"]["lockedAt"], json({{"$date", kNow}}));
  EXPECT_EQ(out["fence-ours"]["migration"], "0001-a");
  EXPECT_EQ(out["fence-with-progress"]["lockedAt"], json({{"$date", kNow}}));
  EXPECT_EQ(out["fence-with-progress"]["migration"], "0003-c");
  EXPECT_EQ(out["fence-with-progress"]["step"], 3);
  EXPECT_EQ(out["fence-with-progress"]["total"], 3);
  EXPECT_EQ(out["fence-with-progress"]["owner"], "run-1");
  EXPECT_TRUE(out["fence-other-nonce"].is_null());
  EXPECT_FALSE(out["release-ours"].is_null());
  EXPECT_TRUE(out["release-other"].is_null());
}

TEST_F(MingoTest, ChangelogUpsertsKeepSetIfAbsentFieldsAndNeverDemoteAnAppliedRecord) {
  RecordWrite applied;
  applied.name = "0001-a";
  applied.set = {{Field::kStatus, std::string("applied")},
                 {Field::kBatch, std::int64_t{2}},
                 {Field::kAppliedAt, ServerNow{}},
                 {Field::kChecksum, std::string("$sum")}};
  applied.set_if_absent = {{Field::kFirstAppliedAt, ServerNow{}}};
  applied.unset = {Field::kError};
  const auto applied_docs = mongo::record_update(applied);

  RecordWrite failure;
  failure.name = "0001-a";
  failure.set = {{Field::kStatus, std::string("failed")}, {Field::kError, std::string("boom")}};
  failure.skip_if_applied = true;
  const auto failure_docs = mongo::record_update(failure);

  const json earlier = {{"name", "0001-a"},
                        {"status", "failed"},
                        {"firstAppliedAt", date(kNow - 86'400'000)},
                        {"error", "old failure"}};
  const json failed_first = {{"name", "0001-a"}, {"status", "failed"}, {"error", "boom"}};
  const json applied_record = {{"name", "0001-a"}, {"status", "applied"}, {"batch", 1}};
  add("new", applied_docs.filter, applied_docs.update, true, nullptr);
  add("again", applied_docs.filter, applied_docs.update, true, earlier);
  add("after-a-failure", applied_docs.filter, applied_docs.update, true, failed_first);
  add("trace-on-applied", failure_docs.filter, failure_docs.update, false, applied_record);
  add("trace-on-failed", failure_docs.filter, failure_docs.update, false, earlier);
  const json out = evaluate();

  EXPECT_EQ(out["new"]["status"], "applied");
  EXPECT_EQ(out["new"]["batch"], 2);
  EXPECT_EQ(out["new"]["checksum"], "$sum");
  EXPECT_EQ(out["new"]["appliedAt"], json({{"$date", kNow}}));
  EXPECT_EQ(out["new"]["firstAppliedAt"], json({{"$date", kNow}}));
  EXPECT_EQ(out["again"]["status"], "applied");
  EXPECT_EQ(out["again"]["firstAppliedAt"], json({{"$date", kNow - 86'400'000}}));
  EXPECT_FALSE(out["again"].contains("error"));
  EXPECT_EQ(out["after-a-failure"]["firstAppliedAt"], json({{"$date", kNow}}));
  EXPECT_TRUE(out["trace-on-applied"].is_null());  // the upsert then collides: left untouched
  EXPECT_EQ(out["trace-on-failed"]["error"], "boom");
}

}  // namespace
}  // namespace migronaut::testing

// The store conformance suite: every store must pass it unchanged. Each case starts from an
// empty database (harness->reset()) and checks the database's final state through a fresh
// connection, not only what the call returned.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <latch>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conformance/store_harness.hpp"
#include "core/changelog.hpp"
#include "migronaut/errors.hpp"
#include "store/registry.hpp"
#include "support/null_logger.hpp"

namespace migronaut::testing {

// Test names and failure messages show the harness by name.
void PrintTo(const HarnessEntry& entry, std::ostream* out) { *out << entry.name; }

namespace {

using std::chrono::milliseconds;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

LockClaim claim(const std::string& run_id, std::int64_t ttl_ms = 60'000) {
  return {run_id, "nonce-of-" + run_id, ttl_ms, 4242, "host-of-" + run_id, "user-of-" + run_id};
}

LockToken token_of(const LockClaim& claim) { return {claim.owner, claim.nonce}; }

class StoreConformance : public ::testing::TestWithParam<HarnessEntry> {
 protected:
  void SetUp() override {
    if (!GetParam().skip_reason.empty()) GTEST_SKIP() << GetParam().skip_reason;
    harness_ = GetParam().make();
    harness_->reset();
  }

  // A connection on a database whose lock and changelog tables exist.
  std::unique_ptr<Store> open_ready() {
    auto store = harness_->open();
    store->ensure_schema();
    return store;
  }

  std::optional<LockInfo> lock_now() { return harness_->open()->read_lock(); }
  std::vector<ChangelogRecord> changelog_now() { return harness_->open()->read_changelog(); }

  std::optional<ChangelogRecord> record_now(const std::string& name) {
    for (auto& record : changelog_now()) {
      if (record.name == name) return record;
    }
    return std::nullopt;
  }

  // A transactional execution fenced by `holder`, whose lock is no longer its own, must throw
  // LockLostError and leave neither the object nor the record.
  void expect_fenced_out(Store& store, const LockClaim& holder);

  void skip_unless_transactions() {
    if (!harness_->supports_transactions()) {
      GTEST_SKIP() << GetParam().name << " runs no transactions on this server";
    }
  }

  std::unique_ptr<StoreHarness> harness_;
};

using FieldValues = std::vector<std::pair<migronaut::Field, FieldValue>>;

RecordWrite write_of(const std::string& name, FieldValues set) {
  RecordWrite write;
  write.name = name;
  write.set = std::move(set);
  return write;
}

RecordWrite applied(const std::string& name, std::int64_t batch = 1) {
  return write_of(name, {{migronaut::Field::kStatus, std::string("applied")},
                         {migronaut::Field::kBatch, batch},
                         {migronaut::Field::kAppliedAt, ServerNow{}},
                         {migronaut::Field::kChecksum, std::string("sum-" + name)}});
}

void StoreConformance::expect_fenced_out(Store& store, const LockClaim& holder) {
  const Work work = harness_->create_object_script("conformance_fenced");
  const auto record = applied("0001-fenced");
  const auto fence = token_of(holder);
  EXPECT_THROW(
      store.execute({.work = &work, .transactional = true, .record = &record, .fence = &fence}),
      LockLostError);
  EXPECT_FALSE(harness_->object_exists("conformance_fenced"));
  EXPECT_FALSE(record_now("0001-fenced").has_value());
}

RecordWrite with_status(const std::string& name, const std::string& status) {
  return write_of(name, {{migronaut::Field::kStatus, status}});
}

// ----- lock -----

TEST_P(StoreConformance, AcquireOnEmptyStoreSucceeds) {
  auto store = open_ready();
  const auto result = store->try_acquire(claim("run-a", 5000));
  EXPECT_TRUE(result.acquired);

  const auto lock = lock_now();
  ASSERT_TRUE(lock.has_value());
  EXPECT_EQ(lock->run_id, "run-a");
  EXPECT_EQ(lock->ttl_ms, 5000);
  EXPECT_EQ(lock->pid, 4242);
  EXPECT_EQ(lock->host, "host-of-run-a");
  EXPECT_EQ(lock->executed_by, "user-of-run-a");
  EXPECT_GT(lock->locked_at_ms, 0);
  EXPECT_LE(lock->locked_at_ms, store->now_ms());
}

TEST_P(StoreConformance, SecondConnectionIsRefusedAndSeesTheHolder) {
  auto first = open_ready();
  auto second = open_ready();
  const auto holder_claim = claim("run-a", 7000);
  ASSERT_TRUE(first->try_acquire(holder_claim).acquired);

  const auto refused = second->try_acquire(claim("run-b"));
  EXPECT_FALSE(refused.acquired);
  ASSERT_TRUE(refused.holder.has_value());
  EXPECT_EQ(refused.holder->run_id, "run-a");
  EXPECT_EQ(refused.holder->pid, 4242);
  EXPECT_EQ(refused.holder->host, "host-of-run-a");
  EXPECT_EQ(refused.holder->ttl_ms, 7000);
  EXPECT_GT(refused.holder->locked_at_ms, 0);
  // The nonce proves ownership and must not leak through any field.
  for (const auto& shown : {refused.holder->run_id, refused.holder->host,
                            refused.holder->executed_by, refused.holder->migration}) {
    EXPECT_NE(shown, holder_claim.nonce);
  }

  // The refusal changed nothing: the holder's token still renews.
  EXPECT_EQ(lock_now()->run_id, "run-a");
  EXPECT_TRUE(first->renew(token_of(holder_claim), {}));
}

TEST_P(StoreConformance, ExactlyOneOfConcurrentAcquirersWins) {
  constexpr int kContenders = 8;
  std::vector<std::unique_ptr<Store>> stores;
  for (int i = 0; i < kContenders; ++i) stores.push_back(open_ready());

  std::latch start(kContenders);
  std::vector<int> acquired(kContenders, 0);
  std::vector<std::string> errors(kContenders);
  std::vector<std::jthread> threads;
  for (int i = 0; i < kContenders; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        acquired[i] = stores[i]->try_acquire(claim("run-" + std::to_string(i))).acquired;
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  threads.clear();  // joins

  int winners = 0;
  int winner = -1;
  for (int i = 0; i < kContenders; ++i) {
    EXPECT_EQ(errors[i], "") << "contender " << i;
    if (acquired[i]) {
      ++winners;
      winner = i;
    }
  }
  ASSERT_EQ(winners, 1);
  EXPECT_EQ(lock_now()->run_id, "run-" + std::to_string(winner));
}

TEST_P(StoreConformance, RenewAndReleaseAreScopedToOwnerAndNonce) {
  auto store = open_ready();
  const auto mine = claim("run-a");
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  const auto first_stamp = lock_now()->locked_at_ms;

  const LockToken wrong_nonce{mine.owner, "another-nonce"};
  const LockToken wrong_owner{"run-b", mine.nonce};
  EXPECT_FALSE(store->renew(wrong_nonce, {"m1", 1, 3}));
  EXPECT_FALSE(store->renew(wrong_owner, {"m1", 1, 3}));
  store->release(wrong_nonce);
  store->release(wrong_owner);
  auto lock = lock_now();
  ASSERT_TRUE(lock.has_value());
  EXPECT_EQ(lock->run_id, "run-a");
  EXPECT_EQ(lock->migration, "");

  std::this_thread::sleep_for(milliseconds(20));  // so the renewed stamp can differ
  EXPECT_TRUE(store->renew(token_of(mine), {"20260101000000-users", 2, 5}));
  lock = lock_now();
  ASSERT_TRUE(lock.has_value());
  EXPECT_GT(lock->locked_at_ms, first_stamp);
  EXPECT_EQ(lock->migration, "20260101000000-users");
  EXPECT_EQ(lock->step, 2);
  EXPECT_EQ(lock->total, 5);

  store->release(token_of(mine));
  EXPECT_FALSE(lock_now().has_value());
  EXPECT_FALSE(store->renew(token_of(mine), {}));
}

TEST_P(StoreConformance, ReleaseWithNothingHeldIsANoOp) {
  auto store = open_ready();
  EXPECT_NO_THROW(store->release(token_of(claim("run-a"))));
  EXPECT_FALSE(lock_now().has_value());
}

TEST_P(StoreConformance, StaleHolderIsReclaimedByTheDatabaseClock) {
  auto old_store = open_ready();
  auto new_store = open_ready();
  const auto old_claim = claim("run-old", 300);
  const auto new_claim = claim("run-new", 300);
  const AcquireResult first = old_store->try_acquire(old_claim);
  ASSERT_TRUE(first.acquired);
  EXPECT_FALSE(first.reclaimed.has_value());
  const AcquireResult refused = new_store->try_acquire(new_claim);
  EXPECT_FALSE(refused.acquired);
  EXPECT_FALSE(refused.reclaimed.has_value());

  std::this_thread::sleep_for(milliseconds(500));
  const AcquireResult reclaim = new_store->try_acquire(new_claim);
  EXPECT_TRUE(reclaim.acquired);
  EXPECT_EQ(lock_now()->run_id, "run-new");
  // The reclaim names the dead holder it replaced (the lease logs it).
  ASSERT_TRUE(reclaim.reclaimed.has_value());
  EXPECT_EQ(reclaim.reclaimed->run_id, "run-old");
  EXPECT_EQ(reclaim.reclaimed->ttl_ms, 300);

  // The old holder has lost the lock: its token matches nothing any more.
  EXPECT_FALSE(old_store->renew(token_of(old_claim), {}));
  old_store->release(token_of(old_claim));
  const auto lock = lock_now();
  ASSERT_TRUE(lock.has_value());
  EXPECT_EQ(lock->run_id, "run-new");
  EXPECT_TRUE(new_store->renew(token_of(new_claim), {}));
}

TEST_P(StoreConformance, HolderWithALargerTtlIsNotReclaimedEarly) {
  auto holder = open_ready();
  auto claimant = open_ready();
  ASSERT_TRUE(holder->try_acquire(claim("run-holder", 3000)).acquired);

  std::this_thread::sleep_for(milliseconds(400));
  const auto result = claimant->try_acquire(claim("run-claimant", 100));
  EXPECT_FALSE(result.acquired);
  ASSERT_TRUE(result.holder.has_value());
  EXPECT_EQ(result.holder->run_id, "run-holder");
  EXPECT_EQ(lock_now()->run_id, "run-holder");
}

TEST_P(StoreConformance, ForceReleaseReturnsTheHolderAndRemovesIt) {
  auto holder = open_ready();
  auto admin = open_ready();
  ASSERT_TRUE(holder->try_acquire(claim("run-a", 9000)).acquired);

  const auto removed = admin->force_release({});
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->run_id, "run-a");
  EXPECT_EQ(removed->ttl_ms, 9000);
  EXPECT_EQ(removed->host, "host-of-run-a");
  EXPECT_FALSE(lock_now().has_value());

  EXPECT_FALSE(admin->force_release({}).has_value());
  EXPECT_FALSE(lock_now().has_value());
}

// `unlock` releases the holder it showed, never a run that took the lock since.
TEST_P(StoreConformance, ForceReleaseNamingAnotherOwnerRemovesNothing) {
  auto holder = open_ready();
  auto admin = open_ready();
  ASSERT_TRUE(holder->try_acquire(claim("run-a", 9000)).acquired);

  EXPECT_FALSE(admin->force_release({"run-gone", std::nullopt}).has_value());
  ASSERT_TRUE(lock_now().has_value());
  EXPECT_EQ(lock_now()->run_id, "run-a");

  const auto removed = admin->force_release({"run-a", std::nullopt});
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->run_id, "run-a");
  EXPECT_FALSE(lock_now().has_value());
}

// `unlock` releases the record it showed: a holder that renewed it since then is alive.
TEST_P(StoreConformance, ForceReleaseOfALockRenewedSinceItWasShownRemovesNothing) {
  auto holder = open_ready();
  auto admin = open_ready();
  const LockClaim mine = claim("run-a", 9000);
  ASSERT_TRUE(holder->try_acquire(mine).acquired);
  const LockInfo shown = *lock_now();
  // Renewed until the database's clock gives the stamp another millisecond: bounded, no sleep.
  for (int tries = 0; tries < 100'000 && lock_now()->locked_at_ms == shown.locked_at_ms; ++tries) {
    ASSERT_TRUE(holder->renew(token_of(mine), {}));
  }
  ASSERT_NE(lock_now()->locked_at_ms, shown.locked_at_ms);

  EXPECT_FALSE(admin->force_release({"run-a", shown.locked_at_ms}).has_value());
  ASSERT_TRUE(lock_now().has_value());
  EXPECT_EQ(lock_now()->run_id, "run-a");

  const auto removed = admin->force_release({"run-a", lock_now()->locked_at_ms});
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->run_id, "run-a");
  EXPECT_FALSE(lock_now().has_value());
}

TEST_P(StoreConformance, ReadingALockThatWasNeverTakenFindsNothing) {
  auto store = harness_->open();
  EXPECT_FALSE(store->read_lock().has_value());
  EXPECT_FALSE(store->force_release({}).has_value());
}

// ----- changelog -----

TEST_P(StoreConformance, FreshChangelogReadsEmptyAndCreatesNothing) {
  auto store = harness_->open();
  EXPECT_THAT(store->read_changelog(), IsEmpty());
  const Config defaults;
  EXPECT_FALSE(harness_->object_exists(defaults.migrations_table));
  EXPECT_FALSE(harness_->object_exists(defaults.lock_table));
}

TEST_P(StoreConformance, WriteRecordInsertsThenUpdates) {
  auto store = open_ready();
  store->write_record(applied("0001-users", 3));
  auto record = record_now("0001-users");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, RecordStatus::kApplied);
  EXPECT_EQ(record->batch, 3);
  EXPECT_EQ(record->checksum, "sum-0001-users");
  EXPECT_TRUE(record->applied_at_ms.has_value());

  store->write_record(
      write_of("0001-users", {{migronaut::Field::kStatus, std::string("reverted")},
                              {migronaut::Field::kRevertedAt, std::int64_t{1'700'000'000'000}}}));
  record = record_now("0001-users");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, RecordStatus::kReverted);
  EXPECT_EQ(record->reverted_at_ms, 1'700'000'000'000);
  EXPECT_EQ(record->batch, 3);                    // untouched by the update
  EXPECT_EQ(record->checksum, "sum-0001-users");  // untouched by the update
  EXPECT_EQ(changelog_now().size(), 1u);
}

TEST_P(StoreConformance, SetIfAbsentNeverOverwritesAValue) {
  auto store = open_ready();
  auto write = applied("0001-users");
  write.set_if_absent = {{migronaut::Field::kFirstAppliedAt, std::int64_t{1000}}};
  store->write_record(write);
  write.set_if_absent = {{migronaut::Field::kFirstAppliedAt, std::int64_t{2000}}};
  store->write_record(write);

  const auto record = record_now("0001-users");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->first_applied_at_ms, 1000);
}

TEST_P(StoreConformance, SetIfAbsentFillsAFieldAnEarlierWriteLeftEmpty) {
  auto store = open_ready();
  store->write_record(with_status("0001-users", "failed"));
  auto write = applied("0001-users");
  write.set_if_absent = {{migronaut::Field::kFirstAppliedAt, std::int64_t{1000}}};
  store->write_record(write);

  const auto record = record_now("0001-users");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, RecordStatus::kApplied);
  EXPECT_EQ(record->first_applied_at_ms, 1000);
}

// The engine's own records (core/changelog.hpp): whatever wrote a record first — a failure, an
// `applying` mark — its first apply stamps firstAppliedAt; a re-apply after a revert keeps it.
TEST_P(StoreConformance, TheFirstApplyStampsFirstAppliedAtWhateverWroteTheRecordBefore) {
  auto store = open_ready();
  Migration failing;
  failing.name = "0001-fails";
  Migration marked;
  marked.name = "0002-untransacted";
  RecordStamp stamp;
  stamp.run_id = "run-a";
  store->write_record(failed_record(failing, 1, "boom", stamp));
  store->write_record(applying_record(marked, 1, stamp));
  // execute() times the work; written on their own, the records take a duration of 0.
  const auto applied_now = [&](const Migration& migration, std::int64_t batch) {
    return resolve_elapsed(applied_record(migration, batch, stamp), 0);
  };
  store->write_record(applied_now(failing, 2));
  store->write_record(applied_now(marked, 2));

  for (const std::string name : {"0001-fails", "0002-untransacted"}) {
    const auto record = record_now(name);
    ASSERT_TRUE(record.has_value()) << name;
    EXPECT_EQ(record->status, RecordStatus::kApplied) << name;
    EXPECT_TRUE(record->first_applied_at_ms.has_value()) << name;
  }

  store->write_record(with_status("0001-fails", "reverted"));
  auto first = record_now("0001-fails");
  ASSERT_TRUE(first && first->first_applied_at_ms);
  // Moved back a day, so that a re-apply which stamped it again could not go unseen.
  store->write_record(write_of("0001-fails", {{migronaut::Field::kFirstAppliedAt,
                                               *first->first_applied_at_ms - 86'400'000}}));
  store->write_record(applied_now(failing, 3));
  const auto again = record_now("0001-fails");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, RecordStatus::kApplied);
  EXPECT_EQ(again->first_applied_at_ms, *first->first_applied_at_ms - 86'400'000);
}

TEST_P(StoreConformance, UnsetClearsFields) {
  auto store = open_ready();
  store->write_record(
      write_of("0001-users", {{migronaut::Field::kStatus, std::string("failed")},
                              {migronaut::Field::kError, std::string("boom")},
                              {migronaut::Field::kFailedChecksum, std::string("bad")},
                              {migronaut::Field::kFailedAt, std::int64_t{5000}}}));
  auto clearing = with_status("0001-users", "applied");
  clearing.unset = {migronaut::Field::kError, migronaut::Field::kFailedChecksum,
                    migronaut::Field::kFailedAt};
  store->write_record(clearing);

  const auto record = record_now("0001-users");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->status, RecordStatus::kApplied);
  EXPECT_EQ(record->error, "");
  EXPECT_EQ(record->failed_checksum, "");
  EXPECT_FALSE(record->failed_at_ms.has_value());
}

TEST_P(StoreConformance, SkipIfAppliedNeverDemotesAnAppliedRecord) {
  auto store = open_ready();
  store->write_record(applied("0001-applied"));
  store->write_record(write_of("0002-failed", {{migronaut::Field::kStatus, std::string("failed")},
                                               {migronaut::Field::kError, std::string("first")}}));
  auto failure = [](const std::string& name) {
    auto write = write_of(name, {{migronaut::Field::kStatus, std::string("failed")},
                                 {migronaut::Field::kError, std::string("second")}});
    write.skip_if_applied = true;
    return write;
  };
  store->write_record(failure("0001-applied"));
  store->write_record(failure("0002-failed"));
  store->write_record(failure("0003-new"));

  const auto records = changelog_now();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].status, RecordStatus::kApplied);
  EXPECT_EQ(records[0].error, "");
  EXPECT_EQ(records[1].status, RecordStatus::kFailed);
  EXPECT_EQ(records[1].error, "second");
  EXPECT_EQ(records[2].status, RecordStatus::kFailed);
  EXPECT_EQ(records[2].error, "second");
}

TEST_P(StoreConformance, ServerNowStampsTheDatabaseTime) {
  auto store = open_ready();
  const auto before = store->now_ms();
  store->write_record(applied("0001-users"));
  const auto after = store->now_ms();

  const auto record = record_now("0001-users");
  ASSERT_TRUE(record.has_value());
  ASSERT_TRUE(record->applied_at_ms.has_value());
  // Same clock on both sides; the slack absorbs stores that stamp at transaction start.
  EXPECT_GE(*record->applied_at_ms, before - 1000);
  EXPECT_LE(*record->applied_at_ms, after + 1000);
}

TEST_P(StoreConformance, StatusesAndBatchesRoundTrip) {
  auto store = open_ready();
  store->write_record(applied("0001-a", 1));
  store->write_record(with_status("0002-b", "reverted"));
  store->write_record(with_status("0003-c", "failed"));
  store->write_record(with_status("0004-d", "applying"));
  store->write_record(applied("0005-e", 7));

  const auto records = changelog_now();
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[0].status, RecordStatus::kApplied);
  EXPECT_EQ(records[0].batch, 1);
  EXPECT_EQ(records[1].status, RecordStatus::kReverted);
  EXPECT_EQ(records[2].status, RecordStatus::kFailed);
  EXPECT_EQ(records[3].status, RecordStatus::kApplying);
  EXPECT_EQ(records[4].status, RecordStatus::kApplied);
  EXPECT_EQ(records[4].batch, 7);
}

// A down outside a transaction marks its record `reverting` first, and a failure adds its error:
// the record keeps what its apply wrote (batch, times, checksum), so a later down finds it to
// finish, and the finished revert drops the error.
TEST_P(StoreConformance, ARevertingMarkKeepsWhatTheApplyWrote) {
  auto store = open_ready();
  store->write_record(applied("0001-a", 3));
  const auto before = record_now("0001-a");
  ASSERT_TRUE(before.has_value());
  RecordStamp stamp;
  stamp.run_id = "run-reverting";
  store->write_record(reverting_record("0001-a", stamp));
  store->write_record(failed_revert_record("0001-a", "boom", stamp));

  const auto marked = record_now("0001-a");
  ASSERT_TRUE(marked.has_value());
  EXPECT_EQ(marked->status, RecordStatus::kReverting);
  EXPECT_EQ(marked->run_id, "run-reverting");
  EXPECT_EQ(marked->error, "boom");
  EXPECT_EQ(marked->batch, 3);
  EXPECT_EQ(marked->applied_at_ms, before->applied_at_ms);
  EXPECT_EQ(marked->checksum, before->checksum);

  store->write_record(reverted_record("0001-a", stamp));
  const auto reverted = record_now("0001-a");
  ASSERT_TRUE(reverted.has_value());
  EXPECT_EQ(reverted->status, RecordStatus::kReverted);
  EXPECT_EQ(reverted->error, "");
  EXPECT_EQ(reverted->batch, 3);
}

TEST_P(StoreConformance, EveryFieldRoundTrips) {
  auto store = open_ready();
  FieldValues set;
  for (auto field : kAllFields) {
    if (field == migronaut::Field::kStatus) {
      set.emplace_back(field, std::string("failed"));
    } else if (field == migronaut::Field::kBatch || field == migronaut::Field::kDuration ||
               is_time_field(field)) {
      set.emplace_back(field, std::int64_t{1'000'000 + static_cast<int>(field)});
    } else {
      set.emplace_back(field, "value-" + std::string(field_name(field)));
    }
  }
  store->write_record(write_of("0001-all", set));

  const auto record = record_now("0001-all");
  ASSERT_TRUE(record.has_value());
  auto number = [](migronaut::Field field) { return 1'000'000 + static_cast<int>(field); };
  EXPECT_EQ(record->status, RecordStatus::kFailed);
  EXPECT_EQ(record->batch, number(migronaut::Field::kBatch));
  EXPECT_EQ(record->duration_ms, number(migronaut::Field::kDuration));
  EXPECT_EQ(record->applied_at_ms, number(migronaut::Field::kAppliedAt));
  EXPECT_EQ(record->first_applied_at_ms, number(migronaut::Field::kFirstAppliedAt));
  EXPECT_EQ(record->reverted_at_ms, number(migronaut::Field::kRevertedAt));
  EXPECT_EQ(record->failed_at_ms, number(migronaut::Field::kFailedAt));
  EXPECT_EQ(record->error, "value-error");
  EXPECT_EQ(record->failed_checksum, "value-failedChecksum");
  EXPECT_EQ(record->checksum, "value-checksum");
  EXPECT_EQ(record->environment, "value-environment");
  EXPECT_EQ(record->executed_by, "value-executedBy");
  EXPECT_EQ(record->run_id, "value-runId");
  EXPECT_EQ(record->description, "value-description");
  EXPECT_EQ(record->origin, "value-origin");
  EXPECT_EQ(record->requested_by, "value-requestedBy");
  EXPECT_EQ(record->reason, "value-reason");
}

TEST_P(StoreConformance, RecordsComeBackOrderedByName) {
  auto store = open_ready();
  for (const char* name : {"20260103000000-c", "20260101000000-a", "20260102000000-b"}) {
    store->write_record(applied(name));
  }
  EXPECT_THAT(changelog_now(), ElementsAre(Field(&ChangelogRecord::name, "20260101000000-a"),
                                           Field(&ChangelogRecord::name, "20260102000000-b"),
                                           Field(&ChangelogRecord::name, "20260103000000-c")));
}

TEST_P(StoreConformance, EnsureSchemaIsIdempotent) {
  auto store = harness_->open();
  store->ensure_schema();
  store->ensure_schema();
  harness_->open()->ensure_schema();
  EXPECT_THAT(store->read_changelog(), IsEmpty());
  EXPECT_TRUE(store->try_acquire(claim("run-a")).acquired);
  store->write_record(applied("0001-users"));
  EXPECT_EQ(changelog_now().size(), 1u);
}

// ----- running migrations -----

TEST_P(StoreConformance, TransactionalScriptCommitsWorkAndRecord) {
  skip_unless_transactions();
  auto store = open_ready();
  const auto mine = claim("run-a");
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  const Work work = harness_->create_object_script("conformance_created");
  const auto record = applied("0001-create");
  const auto fence = token_of(mine);

  store->execute({.work = &work, .transactional = true, .record = &record, .fence = &fence});

  EXPECT_TRUE(harness_->object_exists("conformance_created"));
  const auto written = record_now("0001-create");
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(written->status, RecordStatus::kApplied);
}

// Issue 11: the fence writes the progress it is given (the engine gives the next migration's),
// so the record names a migration without a renewal of its own, on every store with
// transactions, SQLite included; a migration that rolls back writes none of it.
TEST_P(StoreConformance, TheFenceWritesTheProgressWithTheCommit) {
  skip_unless_transactions();
  auto store = open_ready();
  const auto mine = claim("run-a");
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  const auto fence = token_of(mine);
  const auto acquired_at = lock_now()->locked_at_ms;
  std::this_thread::sleep_for(milliseconds(20));  // so the renewed stamp can differ

  const Work work = harness_->create_object_script("conformance_progress");
  const auto record = applied("0002-progress");
  const LockProgress progress{"0002-progress", 2, 3};
  store->execute({.work = &work,
                  .transactional = true,
                  .record = &record,
                  .fence = &fence,
                  .progress = &progress});
  auto lock = lock_now();
  ASSERT_TRUE(lock.has_value());
  EXPECT_EQ(lock->run_id, "run-a");
  EXPECT_EQ(lock->migration, "0002-progress");
  EXPECT_EQ(lock->step, 2);
  EXPECT_EQ(lock->total, 3);
  EXPECT_GT(lock->locked_at_ms, acquired_at);

  const Work failing = harness_->failing_script();
  const auto failed = applied("0003-fails");
  const LockProgress next{"0003-fails", 3, 3};
  EXPECT_THROW(store->execute({.work = &failing,
                               .transactional = true,
                               .record = &failed,
                               .fence = &fence,
                               .progress = &next}),
               MigrationExecutionFailedError);
  lock = lock_now();
  ASSERT_TRUE(lock.has_value());
  EXPECT_EQ(lock->migration, "0002-progress");
  EXPECT_EQ(lock->step, 2);
}

TEST_P(StoreConformance, FailingTransactionalScriptWritesNoRecord) {
  skip_unless_transactions();
  auto store = open_ready();
  const Work failing = harness_->failing_script();
  const auto record = applied("0001-fails");

  EXPECT_THROW(store->execute({.work = &failing, .transactional = true, .record = &record}),
               MigrationExecutionFailedError);
  EXPECT_FALSE(record_now("0001-fails").has_value());

  // The failed transaction is closed: the same connection commits the next one for others to
  // see.
  const Work work = harness_->create_object_script("conformance_after_failure");
  const auto next = applied("0002-next");
  store->execute({.work = &work, .transactional = true, .record = &next});
  EXPECT_TRUE(harness_->object_exists("conformance_after_failure"));
  EXPECT_TRUE(record_now("0002-next").has_value());
}

TEST_P(StoreConformance, FenceRollsBackWhenTheLockWasForceReleased) {
  skip_unless_transactions();
  auto store = open_ready();
  const auto mine = claim("run-a");
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  harness_->open()->force_release({});
  expect_fenced_out(*store, mine);
}

TEST_P(StoreConformance, FenceRollsBackWhenAnotherRunTookTheLock) {
  skip_unless_transactions();
  auto store = open_ready();
  auto usurper = open_ready();
  const auto mine = claim("run-a", 100);
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  std::this_thread::sleep_for(milliseconds(200));
  ASSERT_TRUE(usurper->try_acquire(claim("run-b", 100)).acquired);
  expect_fenced_out(*store, mine);
  EXPECT_EQ(lock_now()->run_id, "run-b");
}

TEST_P(StoreConformance, NonTransactionalExecutionWritesTheRecordAfterTheWork) {
  auto store = open_ready();
  const Work work = harness_->create_object_script("conformance_plain");
  const auto record = applied("0001-plain");
  store->execute({.work = &work, .transactional = false, .record = &record});
  EXPECT_TRUE(harness_->object_exists("conformance_plain"));
  EXPECT_TRUE(record_now("0001-plain").has_value());

  const Work failing = harness_->failing_script();
  const auto failed_record = applied("0002-fails");
  EXPECT_THROW(store->execute({.work = &failing, .transactional = false, .record = &failed_record}),
               MigrationExecutionFailedError);
  EXPECT_FALSE(record_now("0002-fails").has_value());
}

// A run paused past its lease's deadline between two statements outside a transaction must send
// no more once it resumes: a peer may be running the migration again. Asked before each
// statement, the first included.
TEST_P(StoreConformance, AnUntransactedScriptSendsNothingMoreOnceTheLockIsLost) {
  auto store = open_ready();
  const Work work = harness_->create_objects_script({"conformance_first", "conformance_second"});
  const auto record = applied("0001-two");
  int asked = 0;
  try {
    store->execute({.work = &work, .transactional = false, .record = &record, .still_held = [&] {
                      return ++asked == 1;
                    }});
    ADD_FAILURE() << "execute did not throw";
  } catch (const LockLostError& e) {
    EXPECT_THAT(e.what(), HasSubstr("before statement 2"));
    EXPECT_EQ(e.context().value("statementsApplied", 0), 1);
  }
  EXPECT_EQ(asked, 2);
  EXPECT_TRUE(harness_->object_exists("conformance_first"));
  EXPECT_FALSE(harness_->object_exists("conformance_second"));
  EXPECT_FALSE(record_now("0001-two").has_value());
}

// Outside a transaction the record is still fenced: written while the lock is ours, refused
// (nothing written, LockLostError) once it is not, though the work itself already ran.
TEST_P(StoreConformance, FencedRecordWritesLandOnlyWhileTheLockIsOurs) {
  auto store = open_ready();
  const auto mine = claim("run-a");
  ASSERT_TRUE(store->try_acquire(mine).acquired);
  const auto fence = token_of(mine);
  store->write_record(applied("0001-held"), &fence);
  EXPECT_TRUE(record_now("0001-held").has_value());

  const Work work = harness_->create_object_script("conformance_unfenced");
  const auto record = applied("0002-lost");
  harness_->open()->force_release({});
  EXPECT_THROW(
      store->execute({.work = &work, .transactional = false, .record = &record, .fence = &fence}),
      LockLostError);
  EXPECT_TRUE(harness_->object_exists("conformance_unfenced"));
  EXPECT_FALSE(record_now("0002-lost").has_value());
  EXPECT_THROW(store->write_record(applied("0003-lost"), &fence), LockLostError);
  EXPECT_FALSE(record_now("0003-lost").has_value());
}

TEST_P(StoreConformance, CodeBodyGetsTheNativeHandle) {
  auto store = open_ready();
  NullLogger logger;
  MigrationContext context{{}, {}, logger, {}};
  context.run.migration = "0001-code";
  bool handle_set = false;
  const Work work = MigrationBody([&](MigrationContext& given) {
    const auto& handle = given.handle;
    handle_set = handle.sqlite != nullptr || handle.postgres != nullptr ||
                 (handle.mongo_client != nullptr && !handle.mongo_database.empty());
    EXPECT_EQ(given.run.migration, "0001-code");
  });
  const auto record = applied("0001-code");

  store->execute({.work = &work,
                  .transactional = harness_->supports_transactions(),
                  .record = &record,
                  .context = &context});
  EXPECT_TRUE(handle_set);
  if (store->kind() == "sqlite") {
    EXPECT_NE(context.handle.sqlite, nullptr);
  } else if (store->kind() == "postgres") {
    EXPECT_NE(context.handle.postgres, nullptr);
  } else if (store->kind() == "mongo") {
    EXPECT_NE(context.handle.mongo_client, nullptr);
  }
  EXPECT_TRUE(record_now("0001-code").has_value());
}

TEST_P(StoreConformance, CodeBodyExceptionsFailTheMigration) {
  auto store = open_ready();
  NullLogger logger;
  MigrationContext context{{}, {}, logger, {}};
  const auto record = applied("0001-code");
  const bool transactional = harness_->supports_transactions();

  const Work throws_std =
      MigrationBody([](MigrationContext&) { throw std::runtime_error("body failed"); });
  try {
    store->execute({.work = &throws_std,
                    .transactional = transactional,
                    .record = &record,
                    .context = &context});
    ADD_FAILURE() << "execute did not throw";
  } catch (const MigrationExecutionFailedError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("body failed"));
  }

  // migronaut's own errors keep their type.
  const Work throws_own =
      MigrationBody([](MigrationContext&) { throw LockLostError("stopped by the body"); });
  EXPECT_THROW(store->execute({.work = &throws_own,
                               .transactional = transactional,
                               .record = &record,
                               .context = &context}),
               LockLostError);

  EXPECT_FALSE(record_now("0001-code").has_value());
  // No transaction is left open on the connection.
  store->write_record(applied("0002-after"));
  EXPECT_TRUE(record_now("0002-after").has_value());
}

// ----- adoption and audit -----

// Runs `script` with a record beside it (a store runs work with its record).
void run_script(Store& store, const Script& script) {
  const Work work = script;
  const auto record = applied("0001-history");
  store.execute({.work = &work, .transactional = false, .record = &record});
}

TEST_P(StoreConformance, ForeignHistoryIsReadAsTheToolWroteItAndNeverWritten) {
  for (const ForeignTool tool :
       {ForeignTool::kKnex, ForeignTool::kGolangMigrate, ForeignTool::kMigrateMongo}) {
    harness_->reset();
    const std::string table(foreign_tool_table(tool));
    const std::optional<Script> script = harness_->foreign_history_script(tool);
    auto store = open_ready();
    if (!script) {
      EXPECT_THROW(store->read_foreign_history(tool, table), ConfigInvalidError)
          << foreign_tool_name(tool);
      continue;
    }
    EXPECT_FALSE(store->read_foreign_history(tool, table).has_value()) << foreign_tool_name(tool);
    run_script(*store, *script);
    const auto history = harness_->open()->read_foreign_history(tool, table);
    ASSERT_TRUE(history.has_value()) << foreign_tool_name(tool);
    if (tool == ForeignTool::kGolangMigrate) {
      ASSERT_EQ(history->size(), 1u);
      EXPECT_EQ((*history)[0].version, "2");
      EXPECT_FALSE((*history)[0].success);
      continue;
    }
    ASSERT_EQ(history->size(), 2u) << foreign_tool_name(tool);
    EXPECT_EQ((*history)[0].name, "20260101120000_a.js");
    EXPECT_EQ((*history)[0].applied_at_ms, 1767268800000);
    EXPECT_EQ((*history)[1].name, "20260102120000_b.js");
    EXPECT_EQ((*history)[1].applied_at_ms, 1767355200000);
    EXPECT_EQ(harness_->open()->read_foreign_history(tool, table)->size(), 2u);  // nothing consumed
  }
}

TEST_P(StoreConformance, ProbeReadsTheSchemaWithoutCreatingIt) {
  const StoreProbe before = harness_->open()->probe();
  EXPECT_FALSE(before.changelog_exists);
  EXPECT_FALSE(before.lock_table_exists);
  EXPECT_FALSE(harness_->object_exists("_migronaut_migrations"));
  const StoreProbe after = open_ready()->probe();
  EXPECT_TRUE(after.changelog_exists);
  EXPECT_THAT(after.missing_indexes, IsEmpty());
  EXPECT_EQ(after.transactions, harness_->supports_transactions());
}

// Harnesses are named by their backend's registry kind, and only compiled-in backends have one.
TEST(StoreRegistry, EveryHarnessIsACompiledInBackend) {
  for (const HarnessEntry& harness : registered_harnesses()) {
    const auto& listed = backends();
    EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [&](const Backend* backend) {
      return backend->kind == harness.name;
    })) << harness.name;
  }
}

TEST_P(StoreConformance, ItsKindIsItsRegistryEntry) {
  EXPECT_EQ(harness_->open()->kind(), GetParam().name);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreConformance, ::testing::ValuesIn(registered_harnesses()),
                         [](const ::testing::TestParamInfo<HarnessEntry>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace migronaut::testing

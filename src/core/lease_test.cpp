#include "core/lease.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "store/registry.hpp"
#include "support/fake_clock.hpp"
#include "support/fault_store.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;
using testing::FakeClock;
using testing::FaultStore;

constexpr milliseconds kTtl{1000};  // renewals every 500 ms, the deadline at 750 ms

LeaseOptions options_for(std::string run_id, Clock& clock,
                         std::function<void(const Event&)> emit = nullptr) {
  LeaseOptions options;
  options.run_id = std::move(run_id);
  options.ttl = kTtl;
  options.clock = &clock;
  options.emit = std::move(emit);
  return options;
}

// A lease on a real SQLite lock connection wrapped in a FaultStore, on a FakeClock.
class LeaseTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  Config config = config_from_json({{"uri", "sqlite:" + dir.file("app.db").string()}});
  std::unique_ptr<Store> reader = open_store(config);
  FaultStore store{open_store(config, {.statement_bound = milliseconds(50)})};
  FakeClock clock;
  RunStop stop;

  LeaseTest() { reader->ensure_schema(); }

  std::unique_ptr<Lease> acquire(std::function<void(const Event&)> emit = nullptr) {
    return Lease::acquire(store, stop, options_for("run-1", clock, std::move(emit)));
  }
};

// A stop during the claim interrupts it: a claim waiting for the database (SQLite's write slot
// behind another writer) ends at once, as the stop, instead of after its statement bound.
TEST_F(LeaseTest, AStopDuringTheClaimInterruptsItAndEndsAsTheStop) {
  std::promise<void> claiming;
  bool interrupted = false;
  store.set_fault([&](std::string_view statement) {
    if (statement != "try_acquire") return;
    claiming.set_value();
    interrupted = store.wait_for_interrupt();
    if (!interrupted) throw ConnectionFailedError("injected: still busy at the statement bound");
    throw Error(ErrorCode::kUnclassified, "injected: interrupted");
  });
  auto claim = std::async(std::launch::async, [&] { return acquire(); });
  ASSERT_EQ(claiming.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  stop.request(RunAbortedError("stop requested"));
  try {
    claim.get();
    ADD_FAILURE() << "the stopped claim took the lock";
  } catch (const RunAbortedError& e) {
    EXPECT_STREQ(e.what(), "stop requested");
  }
  EXPECT_TRUE(interrupted);
  EXPECT_FALSE(reader->read_lock().has_value());
}

// Issue 9, case 1: a renewal that fails after the deadline released the runner before anyone
// looked at the deadline, so the next migration started on a lock a peer could reclaim.
TEST_F(LeaseTest, ARenewalFailingPastTheDeadlineStopsTheRunBeforeItsNextMigration) {
  // The old race lost most runs; repeating makes a regression show every time.
  for (int run = 0; run < 50; ++run) {
    RunStop run_stop;
    FakeClock run_clock;
    store.set_fault([&](std::string_view statement) {
      if (statement != "renew") return;
      run_clock.advance(milliseconds(800));  // the renewal comes back after the deadline
      throw ConnectionFailedError("injected: timed out");
    });
    auto lease =
        Lease::acquire(store, run_stop, options_for("run-" + std::to_string(run), run_clock));
    EXPECT_FALSE(lease->set_progress({"0002-next.sql", 2, 2}));
    ASSERT_TRUE(run_stop.requested()) << "run " << run;
    store.set_fault(nullptr);
    lease->release();
  }
}

TEST_F(LeaseTest, TheStopIsRequestedBeforeTheLossIsAnnounced) {
  std::atomic<bool> stopped_when_announced = false;
  std::atomic<bool> announced = false;
  store.set_fault([](std::string_view statement) {
    if (statement == "renew") throw ConnectionFailedError("injected: down");
  });
  auto lease = acquire([&](const Event& event) {
    if (event.name != "lock:lost") return;
    stopped_when_announced = stop.requested();
    announced = true;
  });
  clock.advance(kTtl);
  EXPECT_FALSE(lease->held());
  ASSERT_TRUE(announced);
  EXPECT_TRUE(stopped_when_announced);
  store.set_fault(nullptr);
  lease->release();
}

// A dropped lock connection costs one renewal; the next one (after the store reconnected)
// finds the record still ours and the lease goes on.
TEST_F(LeaseTest, ADroppedConnectionIsOneFailedRenewal) {
  auto lease = acquire();
  const std::int64_t acquired_at = reader->read_lock()->locked_at_ms;
  store.set_fault(FaultStore::drop_renewals(1));
  EXPECT_TRUE(lease->set_progress({"0001-a.sql", 1, 2}));  // the dropped one
  EXPECT_TRUE(lease->set_progress({"0002-b.sql", 2, 2}));  // reconnected
  EXPECT_EQ(store.renewals(), 2);
  EXPECT_FALSE(stop.requested());
  const auto record = reader->read_lock();
  ASSERT_TRUE(record);
  EXPECT_EQ(record->migration, "0002-b.sql");
  EXPECT_GE(record->locked_at_ms, acquired_at);
  lease->release();
  EXPECT_FALSE(reader->read_lock());
}

// Issue 11: noting the progress costs no round trip (the migration's commit writes it), but a
// migration still running kProgressShownWithin later is shown by a renewal of its own, long
// before the regular one at TTL/2.
TEST_F(LeaseTest, NotedProgressIsRenewedOnlyForAMigrationStillRunningAMomentLater) {
  LeaseOptions options = options_for("run-1", clock);
  options.ttl = milliseconds(60'000);
  auto lease = Lease::acquire(store, stop, options);
  lease->note_progress({"0001-a.sql", 1, 2});
  lease->note_progress({"0002-b.sql", 2, 2});
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(store.renewals(), 0);
  clock.wait_for_sleepers(2);
  clock.advance(Lease::kProgressShownWithin);
  ASSERT_TRUE(store.wait_for_renewals(1));
  const auto record = reader->read_lock();
  ASSERT_TRUE(record);
  EXPECT_EQ(record->migration, "0002-b.sql");
  EXPECT_EQ(record->step, 2);
  lease->release();
}

TEST_F(LeaseTest, FailuresInARowLoseTheLockAtTheDeadlineOnly) {
  auto lease = acquire();
  store.set_fault(FaultStore::drop_renewals(1000));
  EXPECT_TRUE(lease->set_progress({"0001-a.sql", 1, 1}));
  EXPECT_TRUE(lease->set_progress({"0001-a.sql", 1, 1}));
  EXPECT_TRUE(lease->held());
  clock.advance(milliseconds(749));
  EXPECT_TRUE(lease->held());
  EXPECT_FALSE(stop.requested());
  clock.advance(milliseconds(1));
  EXPECT_FALSE(lease->held());
  EXPECT_TRUE(stop.requested());
  store.set_fault(nullptr);
  lease->release();
}

}  // namespace
}  // namespace migronaut

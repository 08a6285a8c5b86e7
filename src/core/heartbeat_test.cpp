#include "core/heartbeat.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>

#include "support/eventually.hpp"
#include "support/fake_clock.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;

using testing::eventually;
using testing::FakeClock;

class HeartbeatTest : public ::testing::Test {
 protected:
  FakeClock clock;
  std::atomic<int> renewals = 0;
  std::atomic<int> losses = 0;
  std::string lost_reason;
  std::mutex reason_mutex;

  std::function<void(const std::string&)> on_lost() {
    return [this](const std::string& reason) {
      std::lock_guard lock(reason_mutex);
      lost_reason = reason;
      ++losses;
    };
  }
  // A renewal that always succeeds, counted.
  std::function<bool()> counting_renewal() {
    return [this] {
      ++renewals;
      return true;
    };
  }
  // Advances the fake clock once the heartbeat's renewer and watchdog both sleep, so no tick
  // is missed.
  void advance(milliseconds by) {
    clock.wait_for_sleepers(2);
    clock.advance(by);
  }
};

TEST(HeartbeatTiming, RenewsEveryHalfTtlAndGivesUpBeforeTheTtl) {
  EXPECT_EQ(Heartbeat::interval_for(milliseconds(60'000)), milliseconds(30'000));
  EXPECT_EQ(Heartbeat::deadline_for(milliseconds(60'000)), milliseconds(55'000));
  EXPECT_EQ(Heartbeat::deadline_for(milliseconds(200)), milliseconds(150));
  EXPECT_EQ(Heartbeat::interval_for(milliseconds(1)), milliseconds(1));
  EXPECT_EQ(Heartbeat::statement_bound_for(milliseconds(60'000)), milliseconds(5000));
  EXPECT_EQ(Heartbeat::statement_bound_for(milliseconds(2000)), milliseconds(250));
  EXPECT_EQ(Heartbeat::statement_bound_for(milliseconds(200)), milliseconds(50));
}

// One failed renewal is no loss: it is retried a statement bound later, well before the
// deadline, and a success there keeps the lock.
TEST_F(HeartbeatTest, AFailedRenewalIsRetriedBeforeTheDeadline) {
  Heartbeat heartbeat(
      clock, milliseconds(1000),
      [&]() -> bool {
        if (++renewals == 1) throw std::runtime_error("connection reset");
        return true;
      },
      on_lost(), nullptr);
  advance(milliseconds(500));
  ASSERT_TRUE(eventually([&] { return renewals == 1; }));
  advance(milliseconds(125));  // 625 ms: the retry
  ASSERT_TRUE(eventually([&] { return renewals == 2; }));
  advance(milliseconds(500));  // 1125 ms: past the first deadline, renewed at 625
  ASSERT_TRUE(clock.settle(2));
  EXPECT_EQ(losses, 0);
  EXPECT_TRUE(heartbeat.held());
}

// renew_within() brings the next renewal forward; a later call replaces its time, and a
// renewal meanwhile (which carries the progress as it is) cancels it.
TEST_F(HeartbeatTest, RenewWithinBringsTheNextRenewalForwardOnce) {
  Heartbeat heartbeat(clock, milliseconds(1000), counting_renewal(), on_lost(), nullptr);
  heartbeat.renew_within(milliseconds(100));
  heartbeat.renew_within(milliseconds(200));  // replaces the 100 ms
  advance(milliseconds(150));
  ASSERT_TRUE(clock.settle(2));
  EXPECT_EQ(renewals, 0);
  advance(milliseconds(50));  // 200 ms
  ASSERT_TRUE(eventually([&] { return renewals == 1; }));
  advance(milliseconds(250));  // 450 ms: nothing asked, the interval not reached
  ASSERT_TRUE(clock.settle(2));
  EXPECT_EQ(renewals, 1);
  advance(milliseconds(250));  // 700 ms: the interval from the renewal at 200
  ASSERT_TRUE(eventually([&] { return renewals == 2; }));
  EXPECT_EQ(losses, 0);
}

// A later time leaves the renewer asleep (a fast run moves the time on with every migration):
// it wakes at the time it slept towards, sleeps on, and renews at the latest time asked for.
TEST_F(HeartbeatTest, ALaterRenewalTimeLeavesTheRenewerAsleep) {
  Heartbeat heartbeat(clock, milliseconds(1000), counting_renewal(), on_lost(), nullptr);
  clock.wait_for_sleepers(2);
  const std::size_t initial_sleeps = clock.sleeps().size();
  heartbeat.renew_within(milliseconds(100));  // sooner than the interval: wakes it
  ASSERT_TRUE(eventually([&] { return clock.sleeps().size() == initial_sleeps + 1; }));
  for (int ms = 110; ms <= 200; ms += 10) heartbeat.renew_within(milliseconds(ms));
  ASSERT_TRUE(clock.settle(2));
  advance(milliseconds(150));  // past the 100 ms it slept towards: it sleeps on to 200
  ASSERT_TRUE(clock.settle(2));
  EXPECT_EQ(renewals, 0);
  advance(milliseconds(50));
  ASSERT_TRUE(eventually([&] { return renewals == 1; }));
  ASSERT_TRUE(clock.settle(2));
  // Its sleeps: 100 ms; 50 ms more from 150 ms, where it woke at the time it had (woken at
  // once, it would have slept 200 ms from 0); the interval after the renewal.
  const std::vector<Clock::Duration> sleeps = clock.sleeps();
  ASSERT_EQ(sleeps.size(), initial_sleeps + 3);
  EXPECT_EQ(sleeps[initial_sleeps], milliseconds(100));
  EXPECT_EQ(sleeps[initial_sleeps + 1], milliseconds(50));
  EXPECT_EQ(sleeps[initial_sleeps + 2], milliseconds(500));
  EXPECT_EQ(losses, 0);
}

// A request made while a renewal is on its way is kept: the renewer, awake, reads it before it
// sleeps again (the time it last slept towards has passed, so the request wakes nobody).
TEST_F(HeartbeatTest, ARequestDuringARenewalIsKept) {
  Heartbeat* heartbeat_seen = nullptr;
  Heartbeat heartbeat(
      clock, milliseconds(1000),
      [&] {
        if (++renewals == 1) heartbeat_seen->renew_within(milliseconds(100));
        return true;
      },
      on_lost(), nullptr);
  heartbeat_seen = &heartbeat;
  advance(milliseconds(500));  // the regular renewal, which asks for another in 100 ms
  ASSERT_TRUE(eventually([&] { return renewals == 1; }));
  advance(milliseconds(99));
  ASSERT_TRUE(clock.settle(2));
  EXPECT_EQ(renewals, 1);
  advance(milliseconds(1));  // 600 ms, not the interval's 1000
  ASSERT_TRUE(eventually([&] { return renewals == 2; }));
  EXPECT_EQ(losses, 0);
}

TEST_F(HeartbeatTest, RenewsAtEachInterval) {
  Heartbeat heartbeat(clock, milliseconds(1000), counting_renewal(), on_lost(), nullptr);
  advance(milliseconds(499));
  EXPECT_EQ(renewals, 0);
  advance(milliseconds(1));
  ASSERT_TRUE(eventually([&] { return renewals == 1; }));
  advance(milliseconds(500));
  ASSERT_TRUE(eventually([&] { return renewals == 2; }));
  // Successful renewals keep re-arming the deadline: far past one TTL, still held.
  for (int expected = 3; expected <= 12; ++expected) {
    advance(milliseconds(500));
    ASSERT_TRUE(eventually([&] { return renewals == expected; }));
  }
  EXPECT_EQ(losses, 0);
}

TEST_F(HeartbeatTest, ARenewalThatMatchesNothingLosesTheLockAtOnce) {
  Heartbeat heartbeat(
      clock, milliseconds(1000),
      [&] {
        ++renewals;
        return false;
      },
      on_lost(), nullptr);
  advance(milliseconds(500));
  ASSERT_TRUE(eventually([&] { return losses == 1; }));
  EXPECT_EQ(lost_reason, "another run reclaimed it, or `unlock --force` released it");
  clock.advance(milliseconds(5000));
  ASSERT_TRUE(clock.settle(0));
  EXPECT_EQ(renewals, 1);  // the heartbeat ended
  EXPECT_EQ(losses, 1);
}

TEST_F(HeartbeatTest, FailingRenewalsLoseTheLockAtTheDeadline) {
  Heartbeat heartbeat(
      clock, milliseconds(1000),
      [&]() -> bool {
        ++renewals;
        throw std::runtime_error("connection reset");
      },
      on_lost(), nullptr);
  advance(milliseconds(500));  // the first renewal fails: only warned about
  ASSERT_TRUE(eventually([&] { return renewals == 1; }));
  advance(milliseconds(249));
  ASSERT_TRUE(clock.settle(2));
  EXPECT_EQ(losses, 0);
  advance(milliseconds(1));  // 750 ms = TTL − min(interval/2, 5 s)
  ASSERT_TRUE(eventually([&] { return losses == 1; }));
  EXPECT_EQ(lost_reason, "no successful renewal within the TTL");
}

TEST_F(HeartbeatTest, RenewWithinZeroRenewsWithoutWaitingForTheInterval) {
  Heartbeat heartbeat(clock, milliseconds(60'000), counting_renewal(), on_lost(), nullptr);
  clock.wait_for_sleepers(2);
  heartbeat.renew_within(milliseconds(0));
  ASSERT_TRUE(eventually([&] { return renewals == 1; }));
  heartbeat.renew_within(milliseconds(0));
  ASSERT_TRUE(eventually([&] { return renewals == 2; }));
}

TEST_F(HeartbeatTest, RenewNowReturnsOnceItsRenewalIsDone) {
  std::atomic<bool> renewal_done = false;
  Heartbeat heartbeat(
      clock, milliseconds(60'000),
      [&] {
        std::this_thread::sleep_for(milliseconds(20));
        renewal_done = true;
        return true;
      },
      on_lost(), nullptr);
  clock.wait_for_sleepers(2);
  heartbeat.renew_now();
  EXPECT_TRUE(renewal_done);
}

TEST_F(HeartbeatTest, RenewNowReturnsWhenTheHeartbeatHasEnded) {
  Heartbeat heartbeat(
      clock, milliseconds(1000), [] { return false; }, on_lost(), nullptr);
  heartbeat.renew_within(milliseconds(0));
  ASSERT_TRUE(eventually([&] { return losses == 1; }));
  heartbeat.renew_now();  // the lost heartbeat renews no more: this must not block
  EXPECT_EQ(losses, 1);
}

TEST_F(HeartbeatTest, StopWaitsForTheRenewalInFlight) {
  std::latch renewing(1);
  std::promise<void> finish;
  std::atomic<bool> renewal_done = false;
  auto finished = finish.get_future().share();
  Heartbeat heartbeat(
      clock, milliseconds(1000),
      [&] {
        renewing.count_down();
        finished.wait();
        renewal_done = true;
        return true;
      },
      on_lost(), nullptr);
  heartbeat.renew_within(milliseconds(0));
  renewing.wait();
  auto stopped = std::async(std::launch::async, [&] { heartbeat.stop(); });
  EXPECT_EQ(stopped.wait_for(milliseconds(50)), std::future_status::timeout);
  finish.set_value();
  stopped.get();
  EXPECT_TRUE(renewal_done);
}

// Issue 9, case 2: one thread both renewed and watched the deadline, so a renewal that hung
// kept the loss from ever firing.
TEST_F(HeartbeatTest, TheDeadlineFiresWhileARenewalHangs) {
  std::latch renewing(1);
  std::promise<void> finish;
  auto finished = finish.get_future().share();
  Heartbeat heartbeat(
      clock, milliseconds(1000),
      [&] {
        renewing.count_down();
        finished.wait();
        return true;
      },
      on_lost(), nullptr);
  advance(milliseconds(500));
  renewing.wait();  // the renewal at 500 ms hangs
  clock.wait_for_sleepers(1);
  clock.advance(milliseconds(250));  // 750 ms: the deadline
  const bool lost = eventually([&] { return losses == 1; });
  finish.set_value();
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost_reason, "no successful renewal within the TTL");
  EXPECT_FALSE(heartbeat.held());
}

// The deadline counts from when the last successful renewal was sent, not when it returned:
// the record was stamped no later than that.
TEST_F(HeartbeatTest, TheDeadlineCountsFromWhenTheRenewalWasSent) {
  std::atomic<int> calls = 0;
  Heartbeat heartbeat(
      clock, milliseconds(1000),
      [&]() -> bool {
        if (++calls == 1) {
          clock.advance(milliseconds(200));  // a slow renewal: sent at 500, back at 700
          return true;
        }
        throw std::runtime_error("connection reset");
      },
      on_lost(), nullptr);
  advance(milliseconds(500));
  ASSERT_TRUE(eventually([&] { return calls == 1; }));
  advance(milliseconds(300));  // 1000: the next renewal fails
  ASSERT_TRUE(eventually([&] { return calls == 2; }));
  advance(milliseconds(249));  // 1249
  ASSERT_TRUE(clock.settle(2));
  EXPECT_EQ(losses, 0);
  advance(milliseconds(1));  // 1250 = 500 + 750
  EXPECT_TRUE(eventually([&] { return losses == 1; }));
}

// Whoever asks after the deadline passed sees the loss, reported before the answer.
TEST_F(HeartbeatTest, HeldReportsAPassedDeadlineAtOnce) {
  Heartbeat heartbeat(
      clock, milliseconds(1000), []() -> bool { throw std::runtime_error("down"); }, on_lost(),
      nullptr);
  EXPECT_TRUE(heartbeat.held());
  clock.advance(milliseconds(750));
  EXPECT_FALSE(heartbeat.held());
  EXPECT_EQ(losses, 1);
  EXPECT_FALSE(heartbeat.renew_now());
  EXPECT_EQ(losses, 1);
}

}  // namespace
}  // namespace migronaut

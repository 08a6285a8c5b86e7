#include "core/lock_wait.hpp"

#include <gtest/gtest.h>

#include "migronaut/errors.hpp"
#include "support/fake_clock.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FakeClock;

// A refusal as the lease reports it: the holder's lockedAt and TTL, and our own TTL.
LockAlreadyHeldError refusal(std::int64_t locked_at_ms, std::int64_t holder_ttl_ms = 60'000) {
  LockInfo holder;
  holder.locked_at_ms = locked_at_ms;
  holder.ttl_ms = holder_ttl_ms;
  holder.run_id = "peer";
  holder.migration = "0002-b.sql";
  holder.step = 2;
  holder.total = 5;
  return LockAlreadyHeldError("Migration lock is already held",
                              {{"holder", holder}, {"ttlMs", 60'000}},
                              {.holder = holder, .claim_ttl_ms = 60'000});
}

class LockWaitTest : public ::testing::Test {
 protected:
  FakeClock clock{/*auto_advance=*/true};
  LockWaitOptions options() {
    LockWaitOptions o;
    o.on_lock_held = OnLockHeld::kWait;
    o.clock = &clock;
    o.random01 = [] { return 0.5; };  // no jitter unless a test asks for it
    return o;
  }
  milliseconds slept() {
    milliseconds total{0};
    for (auto d : clock.sleeps()) total += std::chrono::duration_cast<milliseconds>(d);
    return total;
  }
};

TEST(LockWaitBudget, DefaultsToNinetySecondsOrOneAndAHalfHolderTtls) {
  EXPECT_EQ(lock_wait_budget(std::nullopt, std::nullopt), seconds(90));
  EXPECT_EQ(lock_wait_budget(std::nullopt, 60'000), seconds(90));
  EXPECT_EQ(lock_wait_budget(std::nullopt, 100'000), seconds(150));
  EXPECT_EQ(lock_wait_budget(milliseconds(1234), 100'000), milliseconds(1234));
}

TEST(LockWaitBackoff, DoublesFromTheBaseUpToFiveSeconds) {
  const milliseconds base(500), budget(90'000);
  std::vector<std::int64_t> delays;
  for (int attempt = 1; attempt <= 7; ++attempt) {
    delays.push_back(lock_wait_backoff(base, attempt, budget, 0.5).count());
  }
  EXPECT_EQ(delays, (std::vector<std::int64_t>{500, 1000, 2000, 4000, 5000, 5000, 5000}));
  EXPECT_EQ(lock_wait_backoff(base, 1000, budget, 0.5), milliseconds(5000));  // no overflow
}

TEST(LockWaitBackoff, CapsAtAQuarterOfTheBudgetButNeverBelowTheBase) {
  EXPECT_EQ(lock_wait_backoff(milliseconds(500), 10, milliseconds(4000), 0.5), milliseconds(1000));
  EXPECT_EQ(lock_wait_backoff(milliseconds(2000), 10, milliseconds(4000), 0.5), milliseconds(2000));
}

TEST(LockWaitBackoff, JittersByAtMostAQuarter) {
  EXPECT_EQ(lock_wait_backoff(milliseconds(1000), 1, seconds(90), 0.0), milliseconds(750));
  EXPECT_EQ(lock_wait_backoff(milliseconds(1000), 1, seconds(90), 0.999999), milliseconds(1250));
  for (double r = 0.0; r < 1.0; r += 0.01) {
    const auto delay = lock_wait_backoff(milliseconds(4000), 3, seconds(90), r);
    EXPECT_GE(delay, milliseconds(3750));
    EXPECT_LE(delay, milliseconds(6250));
  }
}

TEST_F(LockWaitTest, GivesUpOnAStalledHolderWithinTheBudget) {
  auto o = options();
  o.timeout = seconds(10);
  int attempts = 0;
  try {
    with_lock_wait(
        [&](int) {
          ++attempts;
          throw refusal(1'000);
        },
        o);
    FAIL() << "expected the wait to time out";
  } catch (const LockAlreadyHeldError& e) {
    EXPECT_TRUE(e.context().at("timedOut").get<bool>());
    EXPECT_EQ(e.context().at("attempts").get<int>(), attempts);
    EXPECT_LE(e.context().at("waitedMs").get<std::int64_t>(), 10'000);
    EXPECT_EQ(e.context().at("holder").at("runId"), "peer");
  }
  EXPECT_GT(attempts, 2);
  EXPECT_LE(slept(), seconds(10));
}

TEST_F(LockWaitTest, KeepsWaitingWhileTheHolderHeartbeatAdvances) {
  auto o = options();
  o.timeout = seconds(10);
  std::int64_t locked_at = 1'000;
  const auto result = with_lock_wait(
      [&](int attempt) {
        if (attempt < 30) throw refusal(locked_at += 5'000);  // a live, progressing holder
      },
      o);
  EXPECT_TRUE(result.waited);
  EXPECT_EQ(result.attempts, 30);
  EXPECT_GT(result.waited_for, seconds(60));  // far past the 10 s budget: it re-armed
}

// The wait decides on the refusal's typed holder: the JSON context is output only, so renaming
// or dropping its keys cannot stop the wait re-arming.
TEST_F(LockWaitTest, ReadsTheTypedHolderNotTheContext) {
  auto o = options();
  o.timeout = seconds(10);
  std::int64_t locked_at = 1'000;
  const auto result = with_lock_wait(
      [&](int attempt) {
        if (attempt == 30) return;
        LockInfo holder;
        holder.locked_at_ms = locked_at += 5'000;
        holder.ttl_ms = 60'000;
        throw LockAlreadyHeldError("held", {}, {.holder = holder, .claim_ttl_ms = 60'000});
      },
      o);
  EXPECT_EQ(result.attempts, 30);
  EXPECT_GT(result.waited_for, seconds(60));
}

// A holder busy in the database's only write slot whose lockedAt advances (its migrations
// commit, each renewing the record) is waited for past the budget, like any live holder.
TEST_F(LockWaitTest, AWritingHolderWhoseLockedAtAdvancesKeepsTheWaitAlive) {
  auto o = options();
  o.timeout = seconds(2);
  std::int64_t locked_at = 1'000;
  const auto result = with_lock_wait(
      [&](int attempt) {
        if (attempt == 20) return;
        LockInfo holder;
        holder.locked_at_ms = locked_at += 1'000;
        holder.ttl_ms = 60'000;
        throw LockAlreadyHeldError("held", {}, {.holder = holder, .writer_busy = true});
      },
      o);
  EXPECT_EQ(result.attempts, 20);
  EXPECT_GT(slept(), seconds(2));
}

// A busy write slot is no proof of life: a holder stopped mid-migration (SIGSTOP) keeps it busy
// with its lockedAt frozen, and the wait gives up within its budget.
TEST_F(LockWaitTest, AWritingHolderWhoseLockedAtStandsStillTimesOut) {
  auto o = options();
  o.timeout = seconds(2);
  int attempts = 0;
  try {
    with_lock_wait(
        [&](int) {
          ++attempts;
          LockInfo holder;
          holder.locked_at_ms = 1'000;
          holder.ttl_ms = 60'000;
          throw LockAlreadyHeldError("held", {}, {.holder = holder, .writer_busy = true});
        },
        o);
    FAIL() << "expected the wait to time out";
  } catch (const LockAlreadyHeldError& e) {
    EXPECT_TRUE(e.context().at("timedOut").get<bool>());
  }
  EXPECT_LE(slept(), seconds(2));
  EXPECT_LT(attempts, 20);
}

// A holder whose own transaction keeps the write slot busy cannot renew: while its process runs
// here, it is waited for past the budget, until it commits and the lock is free.
TEST_F(LockWaitTest, AWritingHolderWhoseProcessRunsHereIsWaitedForPastTheBudget) {
  auto o = options();
  o.timeout = seconds(2);
  int running_asked = 0;
  o.holder_running = [&](const LockInfo& holder) {
    ++running_asked;
    return holder.pid == 4242;
  };
  bool acquired = false;
  with_lock_wait(
      [&](int) {
        if (slept() < seconds(10)) {
          LockInfo holder;
          holder.pid = 4242;
          holder.locked_at_ms = 1'000;
          holder.ttl_ms = 60'000;
          throw LockAlreadyHeldError("held", {}, {.holder = holder, .writer_busy = true});
        }
        acquired = true;
      },
      o);
  EXPECT_TRUE(acquired);
  EXPECT_GT(running_asked, 0);
  EXPECT_GE(slept(), seconds(10));
}

// A budget no longer than the poll interval still tries again, at its end: the last sleep is cut
// to the deadline instead of giving up before it.
TEST_F(LockWaitTest, TheLastSleepEndsAtTheDeadlineForOneMoreAttempt) {
  auto o = options();
  o.timeout = milliseconds(500);
  o.poll_interval = milliseconds(500);
  o.random01 = [] { return 0.99; };  // the jittered sleep a little longer than the budget
  int attempts = 0;
  EXPECT_THROW(with_lock_wait(
                   [&](int) {
                     ++attempts;
                     throw refusal(1'000);
                   },
                   o),
               LockAlreadyHeldError);
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(slept(), milliseconds(500));
}

TEST_F(LockWaitTest, TheClockStartsAtTheFirstRefusal) {
  auto o = options();
  const auto result = with_lock_wait(
      [&](int attempt) {
        if (attempt == 1) {
          clock.advance(seconds(200));  // a slow first attempt
          throw refusal(1'000);
        }
      },
      o);
  EXPECT_EQ(result.waited_for, milliseconds(500));  // only the one sleep
}

// What the attempt that got the lock then runs (the migrations) is no waiting.
TEST_F(LockWaitTest, TheClockStopsWhereTheAttemptThatGotThroughBegan) {
  auto o = options();
  milliseconds settled{-1};
  o.on_settle = [&](const LockWaitSettle& settle) { settled = settle.waited; };
  const auto result = with_lock_wait(
      [&](int attempt) {
        if (attempt == 1) throw refusal(1'000);
        clock.advance(seconds(300));  // applying under the lock
      },
      o);
  EXPECT_EQ(result.waited_for, milliseconds(500));
  EXPECT_EQ(settled, milliseconds(500));
}

TEST_F(LockWaitTest, ThrowPolicyRethrowsTheFirstRefusal) {
  auto o = options();
  o.on_lock_held = OnLockHeld::kThrow;
  EXPECT_THROW(with_lock_wait([](int) { throw refusal(1); }, o), LockAlreadyHeldError);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST_F(LockWaitTest, OtherErrorsAreNotWaitedOut) {
  int attempts = 0;
  EXPECT_THROW(with_lock_wait(
                   [&](int) {
                     ++attempts;
                     throw ConnectionFailedError("down");
                   },
                   options()),
               ConnectionFailedError);
  EXPECT_EQ(attempts, 1);
}

TEST_F(LockWaitTest, AStopBeforeAnAttemptAborts) {
  auto o = options();
  std::stop_source stop;
  stop.request_stop();
  o.stop = stop.get_token();
  int attempts = 0;
  EXPECT_THROW(with_lock_wait([&](int) { ++attempts; }, o), RunAbortedError);
  EXPECT_EQ(attempts, 0);
}

TEST_F(LockWaitTest, AStopDuringASleepAbortsAndSettlesOnce) {
  auto o = options();
  std::stop_source stop;
  o.stop = stop.get_token();
  o.sleep = [&](milliseconds, std::stop_token) { stop.request_stop(); };
  std::vector<WaitOutcome> settled;
  o.on_settle = [&](const LockWaitSettle& s) { settled.push_back(s.outcome); };
  try {
    with_lock_wait([](int) { throw refusal(1); }, o);
    FAIL() << "expected an abort";
  } catch (const RunAbortedError& e) {
    EXPECT_EQ(e.context().at("attempts").get<int>(), 1);
  }
  EXPECT_EQ(settled, std::vector<WaitOutcome>{WaitOutcome::kAborted});
}

// A stop that came while an attempt was being refused (a claim it interrupted) ends the wait as
// the stop, even past the deadline: a stopped waiter never reports a lock timeout.
TEST_F(LockWaitTest, ARefusalMetWhileStoppingEndsAsTheStopNotATimeout) {
  auto o = options();
  o.timeout = milliseconds(1000);
  std::stop_source stop;
  o.stop = stop.get_token();
  std::vector<WaitOutcome> settled;
  o.on_settle = [&](const LockWaitSettle& s) { settled.push_back(s.outcome); };
  try {
    with_lock_wait(
        [&](int attempt) {
          if (attempt == 2) {
            clock.advance(seconds(5));  // the attempt outlasted the budget…
            stop.request_stop();        // …and the stop came during it
          }
          throw refusal(1);
        },
        o);
    FAIL() << "expected an abort";
  } catch (const RunAbortedError& e) {
    EXPECT_EQ(e.context().at("attempts").get<int>(), 2);
  }
  EXPECT_EQ(settled, std::vector<WaitOutcome>{WaitOutcome::kAborted});
}

TEST_F(LockWaitTest, ReportsProgressAndIgnoresThrowingCallbacks) {
  auto o = options();
  std::vector<LockWaitProgress> seen;
  o.on_wait = [&](const LockWaitProgress& p) {
    seen.push_back(p);
    throw std::runtime_error("a broken progress reporter");
  };
  std::vector<LockWaitSettle> settled;
  o.on_settle = [&](const LockWaitSettle& s) {
    settled.push_back(s);
    throw std::runtime_error("also broken");
  };
  const auto result = with_lock_wait(
      [](int attempt) {
        if (attempt < 3) throw refusal(1);
      },
      o);
  EXPECT_EQ(result.attempts, 3);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].next_delay, milliseconds(500));
  EXPECT_EQ(seen[1].next_delay, milliseconds(1000));
  ASSERT_TRUE(seen[1].holder.has_value());
  EXPECT_EQ(seen[1].holder->migration, "0002-b.sql");
  EXPECT_EQ(seen[1].holder->step, 2);
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_EQ(settled[0].outcome, WaitOutcome::kAcquired);
  EXPECT_EQ(settled[0].attempts, 3);
}

TEST_F(LockWaitTest, NoWaitMeansNoSettle) {
  int settles = 0;
  auto o = options();
  o.on_settle = [&](const LockWaitSettle&) { ++settles; };
  const auto result = with_lock_wait([](int) {}, o);
  EXPECT_FALSE(result.waited);
  EXPECT_EQ(settles, 0);
}

TEST_F(LockWaitTest, RejectsZeroNegativeAndOversizedOptions) {
  for (auto bad : {milliseconds(0), milliseconds(-5), milliseconds(3'000'000'000LL)}) {
    auto o = options();
    o.poll_interval = bad;
    EXPECT_THROW(with_lock_wait([](int) {}, o), ConfigInvalidError) << bad.count();
  }
  for (auto bad : {milliseconds(0), milliseconds(-5)}) {
    auto o = options();
    o.timeout = bad;
    EXPECT_THROW(with_lock_wait([](int) {}, o), ConfigInvalidError) << bad.count();
  }
}

// As in the seed, a timeout above 2^31−1 ms is a valid (long) budget: the cap is on each sleep.
TEST_F(LockWaitTest, ATimeoutAboveTheTimerLimitIsAcceptedAndEachSleepCapped) {
  auto o = options();
  o.timeout = milliseconds(std::numeric_limits<std::int64_t>::max() / 4);
  o.poll_interval = kMaxLockWaitMs;
  const auto result = with_lock_wait(
      [](int attempt) {
        if (attempt < 3) throw refusal(1);
      },
      o);
  EXPECT_EQ(result.attempts, 3);
  for (auto sleep : clock.sleeps()) EXPECT_LE(sleep, kMaxLockWaitMs);
}

TEST(LockWaitBudget, AHolderTtlTooLargeToScaleIsUnusable) {
  EXPECT_EQ(lock_wait_budget(std::nullopt, std::numeric_limits<std::int64_t>::max()),
            kDefaultLockWaitTimeout);
}

ConnectionFailedError unreachable() {
  return ConnectionFailedError("cannot connect to the database", {{kBeforeLockKey, true}});
}

class RecordingLogger : public Logger {
 public:
  void log(Level, std::string_view message) override { lines.emplace_back(message); }
  std::vector<std::string> lines;
};

// A waiting run also waits for the database: a connection failure before the lock is retried
// with the same backoff, says why, and reports CONNECTION_FAILED to onWait.
TEST_F(LockWaitTest, ADatabaseNotReachableYetIsWaitedFor) {
  auto o = options();
  RecordingLogger logger;
  o.logger = &logger;
  std::vector<ErrorCode> codes;
  o.on_wait = [&](const LockWaitProgress& p) { codes.push_back(p.code); };
  const auto result = with_lock_wait(
      [](int attempt) {
        if (attempt < 3) throw unreachable();
        if (attempt < 4) throw refusal(1);
      },
      o);
  EXPECT_EQ(result.attempts, 4);
  EXPECT_TRUE(result.waited);
  EXPECT_EQ(codes,
            (std::vector<ErrorCode>{ErrorCode::kConnectionFailed, ErrorCode::kConnectionFailed,
                                    ErrorCode::kLockAlreadyHeld}));
  ASSERT_EQ(logger.lines.size(), 2u);
  EXPECT_EQ(logger.lines[0], "Waiting for the database: cannot connect to the database");
  EXPECT_NE(logger.lines[1].find("lock held by another process"), std::string::npos);
}

TEST_F(LockWaitTest, ADatabaseThatStaysUnreachableFailsWhenTheBudgetRunsOut) {
  auto o = options();
  o.timeout = seconds(10);
  try {
    with_lock_wait([](int) { throw unreachable(); }, o);
    FAIL() << "expected CONNECTION_FAILED";
  } catch (const ConnectionFailedError& error) {
    EXPECT_EQ(error.context()["timedOut"], true);
  }
  EXPECT_LE(slept(), seconds(10));
  EXPECT_GE(slept(), seconds(5));
}

// A holder seen for the first time is news, as an advancing heartbeat is: a wait that spent its
// budget reaching the database (slow, failing attempts) still gives that holder a whole budget
// before it calls it stalled.
TEST_F(LockWaitTest, AHolderSeenForTheFirstTimeGetsAWholeBudget) {
  auto o = options();
  o.timeout = seconds(10);
  const Clock::TimePoint start = clock.now();
  std::optional<Clock::TimePoint> first_seen;
  try {
    with_lock_wait(
        [&](int) {
          if (clock.now() - start < seconds(9)) {
            clock.advance(seconds(2));  // an attempt that takes long to fail
            throw unreachable();
          }
          if (!first_seen) first_seen = clock.now();
          throw refusal(1'000);  // then stalled: its lockedAt never moves
        },
        o);
    FAIL() << "expected the wait to time out";
  } catch (const LockAlreadyHeldError& e) {
    EXPECT_TRUE(e.context().at("timedOut").get<bool>());
  }
  ASSERT_TRUE(first_seen.has_value());
  EXPECT_GE(clock.now() - *first_seen, seconds(5));
  EXPECT_LE(clock.now() - *first_seen, seconds(10));
}

// Time spent connecting is time spent waiting for the database: a first attempt that hangs
// until the budget is spent ends the wait, instead of starting its clock.
TEST_F(LockWaitTest, AFirstAttemptThatCannotConnectCountsAgainstTheBudget) {
  auto o = options();
  o.timeout = seconds(3);
  try {
    with_lock_wait(
        [&](int) {
          clock.advance(seconds(3));  // connecting hung until the deadline
          throw unreachable();
        },
        o);
    FAIL() << "expected CONNECTION_FAILED";
  } catch (const ConnectionFailedError& error) {
    EXPECT_EQ(error.context()["timedOut"], true);
    EXPECT_EQ(error.context()["attempts"], 1);
    EXPECT_EQ(error.context()["waitedMs"], 3000);
  }
  EXPECT_TRUE(clock.sleeps().empty());
}

// Each attempt is told when the wait gives up: the budget from the start before any refusal,
// then the deadline, which a live holder re-arms.
TEST_F(LockWaitTest, EachAttemptIsToldWhenTheWaitGivesUp) {
  auto o = options();
  o.timeout = seconds(10);
  const Clock::TimePoint start = clock.now();
  std::vector<milliseconds> give_up_at;
  o.on_attempt = [&](Clock::TimePoint at) {
    give_up_at.push_back(std::chrono::duration_cast<milliseconds>(at - start));
  };
  with_lock_wait(
      [&](int attempt) {
        clock.advance(seconds(1));
        if (attempt == 1) throw unreachable();
        if (attempt == 2) throw refusal(1'000);  // first seen at 2.5 s: a whole budget
        if (attempt == 3) throw refusal(1'000);  // stalled
      },
      o);
  EXPECT_EQ(give_up_at, (std::vector<milliseconds>{milliseconds(10'000), milliseconds(10'000),
                                                   milliseconds(12'500), milliseconds(12'500)}));
}

TEST_F(LockWaitTest, AWaitThatDoesNotWaitSetsNoDeadline) {
  auto o = options();
  o.on_lock_held = OnLockHeld::kThrow;
  bool told = false;
  o.on_attempt = [&](Clock::TimePoint) { told = true; };
  EXPECT_THROW(with_lock_wait([](int) { throw unreachable(); }, o), ConnectionFailedError);
  EXPECT_FALSE(told);
}

TEST(ConnectDeadline, IsTheWaitsDeadlineButNeverLessThanASecondAway) {
  const Clock::TimePoint now{seconds(100)};
  EXPECT_EQ(connect_deadline(now + seconds(5), now), now + seconds(5));
  EXPECT_EQ(connect_deadline(now + milliseconds(200), now), now + seconds(1));
  EXPECT_EQ(connect_deadline(now - seconds(5), now), now + seconds(1));
}

TEST_F(LockWaitTest, AConnectionFailureAfterTheLockIsNotRetried) {
  int attempts = 0;
  EXPECT_THROW(with_lock_wait(
                   [&](int) {
                     ++attempts;
                     throw ConnectionFailedError("lost mid-run", {{kBeforeLockKey, false}});
                   },
                   options()),
               ConnectionFailedError);
  EXPECT_EQ(attempts, 1);
}

// A write slot another writer holds with no holder on record (a sqlite3 shell's BEGIN
// IMMEDIATE): the wait says what holds the database, not "another run's migration", reports it
// to onWait, and gives up within its budget.
TEST_F(LockWaitTest, ABusyWriteSlotWithNoHolderTimesOutSayingWhatHoldsIt) {
  auto o = options();
  o.timeout = seconds(2);
  RecordingLogger logger;
  o.logger = &logger;
  std::vector<bool> busy;
  o.on_wait = [&](const LockWaitProgress& p) { busy.push_back(p.writer_busy && !p.holder); };
  try {
    with_lock_wait(
        [](int) {
          throw LockAlreadyHeldError("the database file 'app.db' is locked by another writer", {},
                                     {.writer_busy = true});
        },
        o);
    FAIL() << "expected the wait to time out";
  } catch (const LockAlreadyHeldError& e) {
    EXPECT_TRUE(e.context().at("timedOut").get<bool>());
  }
  EXPECT_LE(slept(), seconds(2));
  ASSERT_FALSE(busy.empty());
  EXPECT_EQ(busy, std::vector<bool>(busy.size(), true));
  EXPECT_EQ(logger.lines, (std::vector<std::string>{
                              "the database file 'app.db' is locked by another writer — waiting "
                              "for it…"}));
}

// The seed's abortedError: an aborted wait throws the stop's own typed reason when it has one.
TEST_F(LockWaitTest, AnAbortedWaitCarriesTheStopsTypedReason) {
  auto o = options();
  std::stop_source stop;
  o.stop = stop.get_token();
  o.sleep = [&](milliseconds, std::stop_token) { stop.request_stop(); };
  o.stop_reason = [] { return std::optional<Error>(LockLostError("lost while waiting")); };
  try {
    with_lock_wait([](int) { throw refusal(1); }, o);
    FAIL() << "expected the stop's reason";
  } catch (const LockLostError& error) {
    EXPECT_EQ(error.context()["attempts"], 1);
  }
}

TEST_F(LockWaitTest, TheShortBudgetWarningNamesBothValues) {
  auto o = options();
  RecordingLogger logger;
  o.logger = &logger;
  o.timeout = milliseconds(1000);
  EXPECT_THROW(with_lock_wait([](int) { throw refusal(1, 60'000); }, o), LockAlreadyHeldError);
  ASSERT_FALSE(logger.lines.empty());
  EXPECT_NE(logger.lines[0].find("(1000 ms)"), std::string::npos) << logger.lines[0];
  EXPECT_NE(logger.lines[0].find("(30000 ms)"), std::string::npos) << logger.lines[0];
}

// A holder record that does not convert never ends the wait: the wait goes on, and onWait
// hears of it without a holder.
TEST_F(LockWaitTest, AHolderThatDoesNotConvertNeverEndsTheWait) {
  auto o = options();
  int reports = 0;
  o.on_wait = [&](const LockWaitProgress& progress) {
    ++reports;
    EXPECT_FALSE(progress.holder.has_value());
  };
  const auto result = with_lock_wait(
      [](int attempt) {
        if (attempt < 2) {
          throw LockAlreadyHeldError("held", {{"holder", {{"pid", "not a number"}}}});
        }
      },
      o);
  EXPECT_EQ(result.attempts, 2);
  EXPECT_EQ(reports, 1);
}

}  // namespace
}  // namespace migronaut

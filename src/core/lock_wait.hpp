// Waiting for the lock: run an attempt; while it is
// refused with LockAlreadyHeldError and the policy is to wait, sleep with backoff and try
// again. Each attempt is a whole locked run. The budget bounds *stall* time: it re-arms
// whenever the holder's heartbeat visibly advances, so a long, healthy migration never times
// its peers out, while a dead holder is given up on (or reclaimed once its TTL passes).
// A waiting run also waits out a database it cannot reach yet (a connection failure before the
// attempt held the lock: reconnecting with the same backoff, inside the same budget, which the
// connecting itself counts against: the store stops a connection there, kLeastConnectTime
// later at most, where it can; PostgreSQL's cannot for a host of several addresses) and one
// whose single write slot another connection holds (SQLite). A busy slot proves nothing: the
// holder's migration, a stopped holder and another tool all hold it alike, so only the holder's
// lockedAt moving, or its process seen running on this host, re-arms the budget there too.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>

#include "migronaut/config.hpp"
#include "migronaut/errors.hpp"
#include "migronaut/lock.hpp"
#include "migronaut/migration.hpp"
#include "util/clock.hpp"

namespace migronaut {

using std::chrono::milliseconds;

inline constexpr milliseconds kDefaultLockWaitTimeout{90'000};
inline constexpr milliseconds kDefaultLockPollInterval{500};
// The longest sleep between polls: a hundred waiters do not hammer the lock record, and a
// released lock is still noticed within seconds.
inline constexpr milliseconds kMaxLockPollInterval{5'000};
// The longest single sleep, and the largest poll interval accepted (the original's timer
// limit, kept for compatible configs). A timeout may be longer: each sleep is capped instead.
inline constexpr milliseconds kMaxLockWaitMs{2'147'483'647};

// A connection opened at (or just before) a waiter's deadline, as the last attempt's is, still
// gets this long to connect: a server that just came up answers well within it, and one that
// hangs overshoots the budget by no more.
inline constexpr milliseconds kLeastConnectTime{1'000};

// Set (true) in the context of a ConnectionFailedError raised before the attempt held the lock
// (connecting, the boot read, creating the tables, acquiring): a waiting run retries those.
inline constexpr const char* kBeforeLockKey = "beforeLock";

// Before each sleep.
struct LockWaitProgress {
  int attempts = 0;
  milliseconds waited{0};
  milliseconds next_delay{0};
  std::optional<LockInfo> holder;
  // What the attempt was refused with: LOCK_ALREADY_HELD, or CONNECTION_FAILED while the
  // database cannot be reached.
  ErrorCode code = ErrorCode::kLockAlreadyHeld;
  bool writer_busy = false;  // another connection holds the database's single write slot
};

enum class WaitOutcome { kAcquired, kTimeout, kAborted };

// Once, at the end of a wait that happened.
struct LockWaitSettle {
  milliseconds waited{0};
  int attempts = 0;
  WaitOutcome outcome = WaitOutcome::kAcquired;
};

struct LockWaitOptions {
  OnLockHeld on_lock_held = OnLockHeld::kThrow;
  std::optional<milliseconds> timeout;  // unset: max(90 s, 1.5 × holder's TTL)
  milliseconds poll_interval = kDefaultLockPollInterval;
  std::stop_token stop;  // checked before each attempt; ends a sleep early
  // The stop's own typed reason, which an aborted wait throws; unset or empty: RUN_ABORTED.
  std::function<std::optional<Error>()> stop_reason;
  std::function<void(const LockWaitProgress&)> on_wait;
  std::function<void(const LockWaitSettle&)> on_settle;
  // Before each attempt of a wait (policy kWait): when the wait gives up should the attempt not
  // reach the database, which bounds its connecting (see connect_deadline).
  std::function<void(Clock::TimePoint give_up_at)> on_attempt;
  Logger* logger = nullptr;
  Clock* clock = &Clock::real();
  // Sleeps up to `delay`; returns early when a release is announced (PostgreSQL NOTIFY) or
  // `stop` is requested. Unset: the clock's sleep.
  std::function<void(milliseconds delay, std::stop_token stop)> sleep;
  // Uniform in [0, 1): the jitter source. Unset: a per-thread Mersenne Twister.
  std::function<double()> random01;
  // Whether the holder's process is known to run (on this host, not stopped). A holder whose
  // migration keeps the single write slot (SQLite) cannot renew; running, it is waited for.
  // Unset: never known.
  std::function<bool(const LockInfo& holder)> holder_running;
};

struct LockWaitResult {
  bool waited = false;
  milliseconds waited_for{0};
  int attempts = 0;
};

// Throws ConfigInvalidError for a zero or negative timeout, or a zero, negative or oversized
// poll interval.
void validate_lock_wait_options(const LockWaitOptions& options);

// The budget for one refusal: the caller's, else max(90 s, 1.5 × `holder_ttl_ms`) — the TTL
// from the holder's record, else our own, since a waiter must outlast the holder's heartbeat
// and the window after which a dead holder can be reclaimed.
milliseconds lock_wait_budget(std::optional<milliseconds> timeout,
                              std::optional<std::int64_t> holder_ttl_ms);

// When a connection opened `now` gives up connecting, for a waiter that gives up at
// `give_up_at`: then, but never sooner than kLeastConnectTime from now.
Clock::TimePoint connect_deadline(Clock::TimePoint give_up_at, Clock::TimePoint now);

// Uniform in [0, 1) from a per-thread Mersenne Twister: the default jitter source.
double lock_wait_random01();

// The sleep before poll number `attempt` (1-based): base × 2^(attempt−1), capped at
// max(base, min(5 s, budget/4)), jittered by ±25% with `random01`.
milliseconds lock_wait_backoff(milliseconds base, int attempt, milliseconds budget,
                               double random01);

// Runs `attempt(n)` until it does not throw LockAlreadyHeldError (or, before the lock, a
// ConnectionFailedError), or the wait gives up (the last refusal is rethrown with attempts,
// waitedMs and timedOut in its context) or is stopped (the stop's reason, else
// RunAbortedError). Any other error propagates at once.
LockWaitResult with_lock_wait(const std::function<void(int attempt)>& attempt,
                              const LockWaitOptions& options);

}  // namespace migronaut

#include "core/lock_wait.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "fmt/format.h"
#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

constexpr double kJitterRatio = 0.25;  // N instances booting together stop polling in lockstep
constexpr double kTtlPatienceFactor = 1.5;
constexpr std::int64_t kPollsPerBudget = 4;  // enough polls to see a live heartbeat move
// The largest holder TTL whose 1.5× still fits the arithmetic.
constexpr std::int64_t kMaxUsableTtlMs = std::numeric_limits<std::int64_t>::max() / 2;

double thread_random01() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

// A reporting callback must never change how the wait ends — nor can building its argument
// (`make`), which runs inside the same guard.
template <typename Callback, typename Make>
void notify(const Callback& callback, const Make& make) {
  if (!callback) return;
  try {
    if constexpr (std::is_invocable_v<Make>) {
      callback(make());
    } else {
      callback(make);
    }
  } catch (...) {
  }
}

}  // namespace

void validate_lock_wait_options(const LockWaitOptions& options) {
  // A zero or negative interval would turn the wait into a busy loop against the lock record;
  // an oversized poll interval exceeds what the original accepts, so configs stay portable.
  // A long timeout is fine: each sleep is capped.
  if (options.timeout && *options.timeout <= milliseconds::zero()) {
    throw ConfigInvalidError("lockWaitTimeoutMs must be a positive number of milliseconds",
                             {{"key", "lockWaitTimeoutMs"}, {"value", options.timeout->count()}});
  }
  if (options.poll_interval <= milliseconds::zero() || options.poll_interval > kMaxLockWaitMs) {
    throw ConfigInvalidError(
        "lockPollIntervalMs must be a positive number of milliseconds, at most 2147483647",
        {{"key", "lockPollIntervalMs"}, {"value", options.poll_interval.count()}});
  }
}

milliseconds lock_wait_budget(std::optional<milliseconds> timeout,
                              std::optional<std::int64_t> holder_ttl_ms) {
  if (timeout) return *timeout;
  // A TTL whose 1.5× would not fit is no TTL a holder renews by: unusable, like a missing one.
  if (!holder_ttl_ms || *holder_ttl_ms <= 0 || *holder_ttl_ms > kMaxUsableTtlMs) {
    return kDefaultLockWaitTimeout;
  }
  const auto patient = milliseconds(std::llround(*holder_ttl_ms * kTtlPatienceFactor));
  return std::max(kDefaultLockWaitTimeout, patient);
}

Clock::TimePoint connect_deadline(Clock::TimePoint give_up_at, Clock::TimePoint now) {
  return std::max(give_up_at, now + kLeastConnectTime);
}

double lock_wait_random01() { return thread_random01(); }

milliseconds lock_wait_backoff(milliseconds base, int attempt, milliseconds budget,
                               double random01) {
  const milliseconds cap = std::max(
      base, std::min(kMaxLockPollInterval, milliseconds(budget.count() / kPollsPerBudget)));
  const int exponent = std::clamp(attempt - 1, 0, 30);
  // Saturate instead of overflowing: once doubling passes the cap, the cap is the answer.
  const milliseconds grown =
      base.count() > (cap.count() >> exponent) ? cap : milliseconds(base.count() << exponent);
  const double spread = static_cast<double>(grown.count()) * kJitterRatio;
  const double jittered = static_cast<double>(grown.count()) - spread + random01 * spread * 2;
  return std::clamp(milliseconds(std::llround(jittered)), milliseconds(1), kMaxLockWaitMs);
}

namespace {

// Why an attempt could not run, when that is something a waiting run waits out.
enum class Blocked { kHeld, kWriterBusy, kUnreachable };

// A refusal the wait may ride out, and what it tells about the holder.
struct Refusal {
  Blocked blocked = Blocked::kHeld;
  std::optional<LockInfo> holder = std::nullopt;
  // The budget's base: the holder's TTL, else the claimant's own (unset: neither is known).
  std::optional<std::int64_t> ttl_ms = std::nullopt;
};

Refusal held_refusal(const Error& error) {
  // An error coded LOCK_ALREADY_HELD that is not the lease's own type tells nothing more.
  const auto* held = dynamic_cast<const LockAlreadyHeldError*>(&error);
  const LockRefusal seen = held ? held->refusal() : LockRefusal{};
  std::optional<std::int64_t> ttl_ms;
  if (seen.holder && seen.holder->ttl_ms > 0) {
    ttl_ms = seen.holder->ttl_ms;
  } else if (seen.claim_ttl_ms != 0) {
    ttl_ms = seen.claim_ttl_ms;
  }
  return {seen.writer_busy ? Blocked::kWriterBusy : Blocked::kHeld, seen.holder, ttl_ms};
}

std::optional<Refusal> refusal_of(const Error& error) {
  if (error.code() == ErrorCode::kLockAlreadyHeld) return held_refusal(error);
  if (error.code() != ErrorCode::kConnectionFailed || !error.context().is_object() ||
      !error.context().value(kBeforeLockKey, false)) {
    return std::nullopt;
  }
  return Refusal{.blocked = Blocked::kUnreachable};
}

// A busy write slot is "another run's migration" only while a holder is on record; without
// one, the refusal's own message names what holds the database.
std::string waiting_line(const Refusal& refusal, const Error& error) {
  switch (refusal.blocked) {
    case Blocked::kHeld:
      return "Migration lock held by another process — waiting for it to release…";
    case Blocked::kWriterBusy:
      if (refusal.holder) {
        return "The database is busy with another run's migration — waiting for it…";
      }
      return std::string(error.what()) + " — waiting for it…";
    case Blocked::kUnreachable:
      break;
  }
  return std::string("Waiting for the database: ") + error.what();
}

// `from + by`, saturating instead of overflowing the clock's range for huge budgets.
Clock::TimePoint saturating_add(Clock::TimePoint from, milliseconds by) {
  const auto room = std::chrono::duration_cast<milliseconds>(Clock::TimePoint::max() - from);
  return by >= room ? Clock::TimePoint::max() : from + by;
}

// One wait: attempts, and between refusals the deadline, the log line and the sleep.
class LockWait {
 public:
  explicit LockWait(const LockWaitOptions& options)
      : options_(options),
        clock_(*options.clock),
        random01_(options.random01 ? options.random01 : thread_random01),
        started_(clock_.now()) {}

  LockWaitResult run(const std::function<void(int attempt)>& attempt) {
    for (;;) {
      if (options_.stop.stop_requested()) abort();
      try {
        ++result_.attempts;
        if (options_.on_lock_held == OnLockHeld::kWait && options_.on_attempt) {
          options_.on_attempt(give_up_at());
        }
        attempt_started_ = clock_.now();
        attempt(result_.attempts);
        return acquired();
      } catch (Error& error) {
        const std::optional<Refusal> refusal = refusal_of(error);
        if (!refusal || options_.on_lock_held != OnLockHeld::kWait) throw;
        // A stop that came during the attempt (a claim it interrupted) ends the wait as a stop,
        // never as a timeout whose deadline passed meanwhile.
        if (options_.stop.stop_requested()) abort();
        const std::optional<milliseconds> delay = next_delay(*refusal);
        if (!delay) {
          time_out(error);
          throw;
        }
        announce(*refusal, error, *delay);
        sleep(*delay);
      }
    }
  }

 private:
  // From the first refusal to `until` (now, or where the last attempt began).
  milliseconds waited(std::optional<Clock::TimePoint> until = std::nullopt) const {
    return wait_start_ ? std::chrono::duration_cast<milliseconds>(until.value_or(clock_.now()) -
                                                                  *wait_start_)
                       : milliseconds::zero();
  }

  // When the wait gives up on a database it cannot reach: the deadline, or before any refusal
  // set one, a budget from the start (no holder seen yet to base it on).
  Clock::TimePoint give_up_at() const {
    return deadline_ ? *deadline_
                     : saturating_add(started_, lock_wait_budget(options_.timeout, std::nullopt));
  }

  void settle(WaitOutcome outcome, milliseconds waited_for) {
    if (result_.waited) {
      notify(options_.on_settle, LockWaitSettle{waited_for, result_.attempts, outcome});
    }
  }

  // The wait ends where the attempt that got through began: what it then ran (migrations
  // applied under the lock) is no waiting.
  LockWaitResult acquired() {
    result_.waited_for = waited(attempt_started_);
    settle(WaitOutcome::kAcquired, result_.waited_for);
    return result_;
  }

  // Throws the stop's own reason, else RunAbortedError, with the wait's progress.
  [[noreturn]] void abort() {
    settle(WaitOutcome::kAborted, waited());
    const nlohmann::json progress = {{"attempts", result_.attempts},
                                     {"waitedMs", waited().count()}};
    std::optional<Error> reason;
    if (options_.stop_reason) reason = options_.stop_reason();
    if (!reason) throw RunAbortedError("Lock wait aborted", progress);
    if (reason->context().is_object()) reason->context().update(progress);
    throw_typed(*reason);
  }

  // The sleep before the next attempt, cut short to end at the deadline (a last attempt there),
  // or nothing once the deadline has passed. The clock starts at the first refusal (a slow first
  // attempt must not eat the budget) — but at the start when that refusal is a database not
  // reached, whose connecting was already waiting for it — and re-arms while the holder is
  // visibly alive.
  std::optional<milliseconds> next_delay(const Refusal& refusal) {
    const auto now = clock_.now();
    if (!wait_start_) wait_start_ = refusal.blocked == Blocked::kUnreachable ? started_ : now;
    const milliseconds budget = lock_wait_budget(options_.timeout, refusal.ttl_ms);
    warn_if_budget_short(refusal.ttl_ms);
    if (!deadline_) {
      deadline_ = saturating_add(*wait_start_, budget);
    } else if (holder_alive(refusal)) {
      deadline_ = saturating_add(now, budget);
    }
    if (refusal.holder) last_locked_at_ = refusal.holder->locked_at_ms;
    const milliseconds delay =
        lock_wait_backoff(options_.poll_interval, result_.attempts, budget, random01_());
    if (now >= *deadline_) return std::nullopt;
    return std::min(delay, std::chrono::ceil<milliseconds>(*deadline_ - now));
  }

  // The holder's heartbeat moves lockedAt every TTL/2: that proves a live, progressing holder.
  // So does a holder seen for the first time (after refusals that showed none, a database not
  // reached yet): its lease may be a moment old. A busy write slot proves nothing (see the
  // header): a stopped holder's transaction or another tool's keeps it busy as long as a live
  // migration's, and the live holder's commit moves lockedAt.
  // A holder whose own migration keeps the slot busy cannot renew: its process, seen running on
  // this host, proves it alive there (SQLite is one host's database).
  bool holder_alive(const Refusal& refusal) const {
    if (!refusal.holder) return false;
    if (!last_locked_at_ || refusal.holder->locked_at_ms > *last_locked_at_) return true;
    return refusal.blocked == Blocked::kWriterBusy && options_.holder_running &&
           options_.holder_running(*refusal.holder);
  }

  void warn_if_budget_short(std::optional<std::int64_t> holder_ttl_ms) {
    if (warned_short_budget_ || !options_.timeout || !holder_ttl_ms ||
        options_.timeout->count() * 2 > *holder_ttl_ms) {
      return;
    }
    warned_short_budget_ = true;
    if (!options_.logger) return;
    options_.logger->warn(fmt::format(
        "lockWaitTimeoutMs ({} ms) is no longer than the holder's heartbeat interval ({} ms): a "
        "healthy holder may look stalled and the wait give up",
        options_.timeout->count(), *holder_ttl_ms / 2));
  }

  // The last refusal, rethrown by the caller, tells how long the wait went on.
  void time_out(Error& refusal) {
    settle(WaitOutcome::kTimeout, waited());
    refusal.context()["attempts"] = result_.attempts;
    refusal.context()["waitedMs"] = waited().count();
    refusal.context()["timedOut"] = true;
  }

  // Logs why the run waits (once per change of reason) and reports the sleep to onWait.
  void announce(const Refusal& refusal, const Error& error, milliseconds delay) {
    const std::string line = waiting_line(refusal, error);
    if (line != last_line_ && options_.logger) options_.logger->info(line);
    last_line_ = line;
    result_.waited = true;
    notify(options_.on_wait, [&] {
      return LockWaitProgress{.attempts = result_.attempts,
                              .waited = waited(),
                              .next_delay = delay,
                              .holder = refusal.holder,
                              .code = error.code(),
                              .writer_busy = refusal.blocked == Blocked::kWriterBusy};
    });
  }

  void sleep(milliseconds delay) {
    if (options_.sleep) {
      options_.sleep(delay, options_.stop);
    } else {
      clock_.sleep_for(delay, options_.stop);
    }
  }

  const LockWaitOptions& options_;
  Clock& clock_;
  const std::function<double()> random01_;
  LockWaitResult result_;
  const Clock::TimePoint started_;              // the first attempt's start
  std::optional<Clock::TimePoint> wait_start_;  // what waited() counts from
  Clock::TimePoint attempt_started_;
  std::optional<Clock::TimePoint> deadline_;
  std::optional<std::int64_t> last_locked_at_;  // the holder's lockedAt at the last refusal
  bool warned_short_budget_ = false;
  std::string last_line_;
};

}  // namespace

LockWaitResult with_lock_wait(const std::function<void(int attempt)>& attempt,
                              const LockWaitOptions& options) {
  validate_lock_wait_options(options);
  return LockWait(options).run(attempt);
}

}  // namespace migronaut

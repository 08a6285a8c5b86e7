#include "core/lock_wait.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "store/store.hpp"

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

template <typename T>
std::optional<T> json_number(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

// The holder a refusal names, if it names one that converts: a malformed record (an older or
// foreign writer) leaves the wait on its timeout rather than ending it.
std::optional<LockInfo> holder_of(const nlohmann::json& holder) {
  if (!holder.is_object() || holder.empty()) return std::nullopt;
  try {
    return holder.get<LockInfo>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
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

std::optional<Blocked> blocked_by(const Error& error) {
  if (error.code() == ErrorCode::kLockAlreadyHeld) {
    return error.context().value(kWriterBusyKey, false) ? Blocked::kWriterBusy : Blocked::kHeld;
  }
  if (error.code() != ErrorCode::kConnectionFailed || !error.context().is_object() ||
      !error.context().value(kBeforeLockKey, false)) {
    return std::nullopt;
  }
  return is_writer_busy(error) ? Blocked::kWriterBusy : Blocked::kUnreachable;
}

std::string waiting_line(Blocked blocked, const Error& error) {
  switch (blocked) {
    case Blocked::kHeld:
      return "Migration lock held by another process — waiting for it to release…";
    case Blocked::kWriterBusy:
      return "The database is busy with another run's migration — waiting for it…";
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

}  // namespace

LockWaitResult with_lock_wait(const std::function<void(int attempt)>& attempt,
                              const LockWaitOptions& options) {
  validate_lock_wait_options(options);
  Clock& clock = *options.clock;
  const auto random01 = options.random01 ? options.random01 : thread_random01;

  LockWaitResult result;
  // The clock starts at the first refusal: a slow first attempt must not eat the budget.
  std::optional<Clock::TimePoint> first_refusal;
  std::optional<Clock::TimePoint> deadline;
  // The holder's lockedAt at the last refusal; its heartbeat moves it every TTL/2, so a change
  // is proof of a live, progressing holder.
  std::optional<std::int64_t> last_holder_locked_at;
  bool warned_short_budget = false;
  std::string last_line;

  const auto waited = [&] {
    return first_refusal ? std::chrono::duration_cast<milliseconds>(clock.now() - *first_refusal)
                         : milliseconds::zero();
  };
  const auto settle = [&](WaitOutcome outcome) {
    if (result.waited)
      notify(options.on_settle, LockWaitSettle{waited(), result.attempts, outcome});
  };
  const auto aborted = [&]() -> Error {
    settle(WaitOutcome::kAborted);
    const nlohmann::json progress = {{"attempts", result.attempts}, {"waitedMs", waited().count()}};
    std::optional<Error> reason;
    if (options.stop_reason) reason = options.stop_reason();
    if (!reason) return RunAbortedError("Lock wait aborted", progress);
    if (reason->context().is_object()) reason->context().update(progress);
    return *reason;
  };

  for (;;) {
    if (options.stop.stop_requested()) throw_typed(aborted());
    try {
      ++result.attempts;
      attempt(result.attempts);
      result.waited_for = waited();
      settle(WaitOutcome::kAcquired);
      return result;
    } catch (Error& refusal) {
      const std::optional<Blocked> blocked = blocked_by(refusal);
      if (!blocked || options.on_lock_held != OnLockHeld::kWait) throw;
      const auto now = clock.now();
      if (!first_refusal) first_refusal = now;

      const nlohmann::json& context = refusal.context();
      const nlohmann::json holder = context.value("holder", nlohmann::json::object());
      auto holder_ttl = json_number<std::int64_t>(holder, "ttlMs");
      if (!holder_ttl || *holder_ttl <= 0) holder_ttl = json_number<std::int64_t>(context, "ttlMs");
      const milliseconds budget = lock_wait_budget(options.timeout, holder_ttl);

      if (!warned_short_budget && options.timeout && holder_ttl &&
          options.timeout->count() * 2 <= *holder_ttl) {
        warned_short_budget = true;
        if (options.logger) {
          options.logger->warn(fmt::format(
              "lockWaitTimeoutMs ({} ms) is no longer than the holder's heartbeat interval ({} "
              "ms): a healthy holder may look stalled and the wait give up",
              options.timeout->count(), *holder_ttl / 2));
        }
      }

      const std::optional<LockInfo> holder_info = holder_of(holder);
      const std::optional<std::int64_t> holder_locked_at =
          holder_info ? std::optional(holder_info->locked_at_ms) : std::nullopt;
      const bool holder_advanced =
          holder_locked_at && last_holder_locked_at && *holder_locked_at > *last_holder_locked_at;
      // A busy writer slot is a live holder at work, as good as a heartbeat that moved.
      if (!deadline || holder_advanced || *blocked == Blocked::kWriterBusy) {
        deadline = saturating_add(now, budget);
      }
      if (holder_locked_at) last_holder_locked_at = holder_locked_at;

      const milliseconds delay =
          lock_wait_backoff(options.poll_interval, result.attempts, budget, random01());
      if (saturating_add(now, delay) > *deadline) {
        settle(WaitOutcome::kTimeout);
        refusal.context()["attempts"] = result.attempts;
        refusal.context()["waitedMs"] = waited().count();
        refusal.context()["timedOut"] = true;
        throw;
      }
      const std::string line = waiting_line(*blocked, refusal);
      if (line != last_line && options.logger) options.logger->info(line);
      last_line = line;
      result.waited = true;
      notify(options.on_wait, [&] {
        return LockWaitProgress{result.attempts, waited(), delay, holder_info, refusal.code()};
      });

      if (options.sleep) {
        options.sleep(delay, options.stop);
      } else {
        clock.sleep_for(delay, options.stop);
      }
      if (options.stop.stop_requested()) throw_typed(aborted());
    }
  }
}

}  // namespace migronaut

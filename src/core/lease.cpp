#include "core/lease.hpp"

#include <unistd.h>

#include <algorithm>
#include <limits>

#include "fmt/format.h"
#include "util/ids.hpp"
#include "util/process_identity.hpp"
#include "util/redact.hpp"

namespace migronaut {
namespace {

void debug(Logger* logger, const std::string& line) {
  if (logger) logger->debug(line);
}

// Taking over a dead holder's lock is worth a line in every log: its run stopped mid-way.
void warn_reclaimed(Store& store, const LockInfo& dead, Logger* logger) {
  if (!logger) return;
  const std::int64_t silent_ms = std::max<std::int64_t>(0, store.now_ms() - dead.locked_at_ms);
  std::string on = dead.migration.empty()
                       ? ""
                       : fmt::format(", on {} ({}/{})", dead.migration, dead.step, dead.total);
  logger->warn(fmt::format(
      "reclaimed the lock from {} pid {} (run {}){}, which last renewed it {} s ago (TTL {} s): "
      "presumed dead",
      dead.host, dead.pid, dead.run_id.substr(0, 8), on, silent_ms / 1000, dead.ttl_ms / 1000));
}

// Runs `step` and logs "lock <what> in N ms" (--verbose).
template <typename F>
auto timed(Clock& clock, Logger* logger, const char* what, F step) {
  const auto started = clock.now();
  auto result = step();
  debug(logger,
        fmt::format(
            "lock {} in {} ms", what,
            std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - started).count()));
  return result;
}

// The longest TTL a configuration can give (lockTTLSeconds is capped so).
constexpr std::int64_t kLongestTtlMs = std::numeric_limits<std::int32_t>::max();

// A refusal by such a row is reported with the holder and the way out instead of waited on,
// so it cannot hold the fleet silently.
void reject_unusable(const LockInfo& holder, Store& store, std::int64_t claim_ttl_ms) {
  const std::string reason = lock_row_unusable(holder, store.now_ms(), claim_ttl_ms);
  if (reason.empty()) return;
  throw LockRecordInvalidError(
      fmt::format("The lock row held by {} pid {} (run {}, user {}) cannot be trusted: {}. If no "
                  "run is active, `migronaut unlock` clears it",
                  single_line(holder.host), holder.pid, single_line(holder.run_id),
                  single_line(holder.executed_by), reason),
      {{"holder", holder}, {"reason", reason}});
}

// The refusal typed for the lock wait, and the same facts in the context for output. A write
// slot another connection holds is told in the store's words (`result.writer_busy`).
[[noreturn]] void throw_held(const AcquireResult& result, std::int64_t claim_ttl_ms) {
  const LockRefusal refusal{.holder = result.holder,
                            .claim_ttl_ms = claim_ttl_ms,
                            .writer_busy = !result.writer_busy.empty()};
  nlohmann::json context = {{"ttlMs", claim_ttl_ms}};
  if (refusal.writer_busy) context[kWriterBusyKey] = true;
  std::string message = "Migration lock is already held";
  if (refusal.holder) {
    context["holder"] = *refusal.holder;
    message += fmt::format(" by {} pid {} (run {})", single_line(refusal.holder->host),
                           refusal.holder->pid, single_line(refusal.holder->run_id));
  }
  if (refusal.writer_busy) message += ", and " + result.writer_busy;
  throw LockAlreadyHeldError(message, std::move(context), refusal);
}

// One claim, interrupted by a stop: a claim waiting for the database (SQLite's write slot behind
// a long transaction) ends at once instead of after its statement bound. A claim that failed or
// was refused while the run stopped ends as the stop: nothing was taken.
AcquireResult claim_unless_stopped(Store& store, const LockClaim& claim, RunStop& stop) {
  const std::stop_callback interrupt(stop.token(), [&store] { store.interrupt(); });
  if (stop.requested()) stop.throw_reason(nlohmann::json::array());
  AcquireResult result;
  try {
    result = store.try_acquire(claim);
  } catch (const Error&) {
    if (!stop.requested()) throw;
  }
  if (!result.acquired && stop.requested()) stop.throw_reason(nlohmann::json::array());
  return result;
}

}  // namespace

std::string lock_row_unusable(const LockInfo& holder, std::int64_t now_ms,
                              std::int64_t claim_ttl_ms) {
  if (holder.ttl_ms > kLongestTtlMs || holder.ttl_ms <= 0) {
    return fmt::format("its TTL of {} ms is {}", holder.ttl_ms,
                       holder.ttl_ms > 0 ? "beyond any configuration" : "one no holder sets");
  }
  if (holder.locked_at_ms > now_ms &&
      holder.locked_at_ms - now_ms > std::max(holder.ttl_ms, claim_ttl_ms)) {
    return fmt::format(
        "it was renewed {} s ahead of the database's clock (was the clock stepped back?)",
        (holder.locked_at_ms - now_ms) / 1000);
  }
  return "";
}

bool lease_expired(const LockInfo& holder, std::int64_t now_ms, std::int64_t claim_ttl_ms) {
  return now_ms - holder.locked_at_ms > std::max(holder.ttl_ms, claim_ttl_ms);
}

std::unique_ptr<Lease> Lease::acquire(Store& store, RunStop& stop, const LeaseOptions& options) {
  const LockClaim claim{.owner = options.run_id,
                        .nonce = new_nonce(),
                        .ttl_ms = options.ttl.count(),
                        .pid = static_cast<std::int64_t>(getpid()),
                        .host = host_name(),
                        .executed_by = options.executed_by,
                        .fail_fast = options.fail_fast};
  const auto started = options.clock->now();
  const AcquireResult result = claim_unless_stopped(store, claim, stop);
  const auto acquire_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(options.clock->now() - started);
  debug(options.logger, fmt::format("lock {} in {} ms", result.acquired ? "acquired" : "refused",
                                    acquire_ms.count()));
  if (!result.acquired) {
    if (result.holder) reject_unusable(*result.holder, store, claim.ttl_ms);
    throw_held(result, claim.ttl_ms);
  }
  if (result.reclaimed) warn_reclaimed(store, *result.reclaimed, options.logger);
  std::unique_ptr<Lease> lease(
      new Lease(store, stop, options, LockToken{claim.owner, claim.nonce}));
  if (options.emit) {
    nlohmann::json data = {{"owner", claim.owner},
                           {"ttlMs", options.ttl.count()},
                           {"acquireMs", acquire_ms.count()},
                           {"skipped", false}};
    if (result.reclaimed) data["reclaimedFrom"] = *result.reclaimed;
    options.emit({"lock:acquired", data});
  }
  return lease;
}

Lease::Lease(Store& store, RunStop& stop, const LeaseOptions& options, LockToken token)
    : store_(store), stop_(stop), options_(options), token_(std::move(token)) {
  heartbeat_ = std::make_unique<Heartbeat>(
      *options_.clock, options_.ttl, [this] { return renew(); },
      [this](const std::string& reason) { lost(reason); }, options_.logger);
}

bool Lease::renew() {
  LockProgress progress;
  {
    std::lock_guard lock(progress_mutex_);
    progress = progress_;
  }
  try {
    return timed(*options_.clock, options_.logger, "renewed",
                 [&] { return store_.renew(token_, progress); });
  } catch (const ConnectionFailedError& e) {
    if (migration_writing_ && is_writer_busy(e)) return true;
    throw;
  }
}

Lease::~Lease() { heartbeat_->stop(); }

void Lease::record_progress(const LockProgress& progress) {
  std::lock_guard lock(progress_mutex_);
  progress_ = progress;
}

bool Lease::set_progress(const LockProgress& progress) {
  record_progress(progress);
  return heartbeat_->renew_now();
}

void Lease::note_progress(const LockProgress& progress) {
  record_progress(progress);
  heartbeat_->renew_within(kProgressShownWithin);
}

void Lease::renew_now() { heartbeat_->renew_now(); }

void Lease::lost(const std::string& reason) {
  // The stop first: a log line or a listener may take time the next migration must not get.
  if (options_.on_lock_lost == OnLockLost::kAbort) {
    stop_.request(
        LockLostError("Lost the migration lock mid-run", {{"reason", reason}, {"aborted", true}}));
  }
  if (options_.logger) options_.logger->warn("Lost the migration lock: " + reason);
  if (options_.emit) options_.emit({"lock:lost", {{"reason", reason}}});
}

void Lease::release() {
  heartbeat_->stop();
  try {
    timed(*options_.clock, options_.logger, "released", [&] {
      store_.release(token_);
      return true;
    });
  } catch (const std::exception& e) {
    throw LockReleaseFailedError(fmt::format("Failed to release the migration lock: {}", e.what()),
                                 {{"error", e.what()}});
  }
  if (options_.emit) options_.emit({"lock:released", {{"early", false}, {"skipped", false}}});
}

}  // namespace migronaut

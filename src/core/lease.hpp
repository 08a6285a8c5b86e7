// The migration lock while a run holds it: acquired once per run, kept alive by the heartbeat,
// released at the end. Loss (a renewal that matched nothing, or no renewal within the
// deadline) stops the run through its RunStop — or, with onLockLost: warn, is only logged.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/heartbeat.hpp"
#include "core/run_stop.hpp"
#include "migronaut/config.hpp"
#include "migronaut/events.hpp"
#include "store/store.hpp"
#include "util/clock.hpp"

namespace migronaut {

struct LeaseOptions {
  std::string run_id;
  std::chrono::milliseconds ttl{60'000};
  std::string executed_by;
  OnLockLost on_lock_lost = OnLockLost::kAbort;
  bool fail_fast = false;  // the run will not wait for a held lock (LockClaim::fail_fast)
  Clock* clock = &Clock::real();
  Logger* logger = nullptr;
  std::function<void(const Event&)> emit;  // lock:acquired, lock:lost, lock:released
};

// Why no live holder can have written `holder`, or "": a TTL beyond any configuration or not
// positive (lockTTLSeconds is at least 1), or a lockedAt further ahead of the database's clock
// (`now_ms`) than any lease lasts (the clock stepped back). Such a row is reported, never waited
// on, and `unlock` clears it without --force.
std::string lock_row_unusable(const LockInfo& holder, std::int64_t now_ms,
                              std::int64_t claim_ttl_ms);
// Whether `holder` went unrenewed (at the database's `now_ms`) for longer than its TTL and the
// TTL a claim of ours would bring: a crashed holder's lock, which the next run takes.
bool lease_expired(const LockInfo& holder, std::int64_t now_ms, std::int64_t claim_ttl_ms);

class Lease {
 public:
  // Takes the lock in one try through `store` (which the lease then uses from its heartbeat
  // thread: it must be a connection of its own). Throws LockAlreadyHeldError with the holder
  // and our TTL (typed in its refusal(), and in its context) when another run holds it. A stop
  // interrupts the claim (Store::interrupt): one stopped before or during it throws the stop's
  // reason.
  static std::unique_ptr<Lease> acquire(Store& store, RunStop& stop, const LeaseOptions& options);
  ~Lease();  // stops the heartbeat; a lease must be release()d to delete the record

  const LockToken& token() const { return token_; }
  // Records the migration the run is on and renews now, returning once that renewal was tried:
  // waiters see the progress before the migration can keep the database busy. False when the
  // lock is lost (the loss already reported, the stop requested).
  bool set_progress(const LockProgress& progress);
  // Records the migration the run is on without a round trip, for a migration whose fenced
  // commit writes the progress itself (Store::fence_records_progress()) or that the previous
  // fenced commit announced. The heartbeat's renewals carry it from now on, and one still
  // running after kProgressShownWithin gets a renewal of its own, so waiters see a long
  // migration by name where the heartbeat can write while it runs.
  void note_progress(const LockProgress& progress);
  static constexpr std::chrono::milliseconds kProgressShownWithin{1000};
  // False once the lock is lost; a deadline passed meanwhile is reported as the loss here.
  bool held() { return heartbeat_->held(); }
  Heartbeat::Renewals renewals() { return heartbeat_->renewals(); }
  // While the run's own transactional migration holds the database's only write slot (SQLite),
  // a renewal refused as busy proves the holder alive — it is this run, and nobody can take the
  // lock without writing — and the migration's commit renews the lease in its own transaction.
  void set_migration_writing(bool writing) { migration_writing_ = writing; }
  // Renews now with the progress as it is (between tries of a migration).
  void renew_now();
  // Reports the lock lost for a reason the heartbeat cannot see — a fence found another run's
  // lock — as it reports its own losses: once, with a warning and a lock:lost event.
  void lose(const std::string& reason) { heartbeat_->lose(reason); }
  // Stops the heartbeat (after the renewal in flight), then deletes the record scoped to our
  // owner and nonce. Throws LockReleaseFailedError.
  void release();

 private:
  Lease(Store& store, RunStop& stop, const LeaseOptions& options, LockToken token);
  bool renew();
  void lost(const std::string& reason);
  void record_progress(const LockProgress& progress);

  Store& store_;
  RunStop& stop_;
  LeaseOptions options_;
  LockToken token_;
  std::mutex progress_mutex_;
  LockProgress progress_;
  std::atomic<bool> migration_writing_ = false;
  std::unique_ptr<Heartbeat> heartbeat_;
};

}  // namespace migronaut

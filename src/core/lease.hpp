// The migration lock while a run holds it: acquired once per run, kept alive by the heartbeat,
// released at the end. Loss (a renewal that matched nothing, or no renewal within the
// deadline) stops the run through its RunStop — or, with onLockLost: warn, is only logged.
#pragma once

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
  Clock* clock = &Clock::real();
  Logger* logger = nullptr;
  std::function<void(const Event&)> emit;  // lock:acquired, lock:lost, lock:released
};

class Lease {
 public:
  // Takes the lock in one try through `store` (which the lease then uses from its heartbeat
  // thread: it must be a connection of its own). Throws LockAlreadyHeldError with the holder
  // and our TTL in its context when another run holds it.
  static std::unique_ptr<Lease> acquire(Store& store, RunStop& stop, const LeaseOptions& options);
  ~Lease();  // stops the heartbeat; a lease must be release()d to delete the record

  const LockToken& token() const { return token_; }
  // Records the migration the run is on and renews now, returning once that renewal was tried:
  // waiters see the progress before the migration can keep the database busy.
  void set_progress(const std::string& migration, std::int64_t step, std::int64_t total);
  // Stops the heartbeat (after the renewal in flight), then deletes the record scoped to our
  // owner and nonce. Throws LockReleaseFailedError.
  void release();

 private:
  Lease(Store& store, RunStop& stop, const LeaseOptions& options, LockToken token);
  void lost(const std::string& reason);

  Store& store_;
  RunStop& stop_;
  LeaseOptions options_;
  LockToken token_;
  std::mutex progress_mutex_;
  LockProgress progress_;
  std::unique_ptr<Heartbeat> heartbeat_;
};

}  // namespace migronaut

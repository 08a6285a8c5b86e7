// The lock's heartbeat (DESIGN §5): renews the lease every TTL/2 on its own thread, never two
// renewals at once. A renewal that matches nothing means another run owns the lock: lost at
// once. Failing renewals are only warned about, but if none succeeds for
// TTL − min(interval/2, 5 s) the lock is lost — strictly before a peer could reclaim it at 1×TTL.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "migronaut/migration.hpp"
#include "util/clock.hpp"

namespace migronaut {

class Heartbeat {
 public:
  // `renew` returns false when the record no longer names us and throws on failure;
  // `on_lost(reason)` is called once, from the heartbeat thread, and then the heartbeat ends.
  Heartbeat(Clock& clock, std::chrono::milliseconds ttl, std::function<bool()> renew,
            std::function<void(const std::string& reason)> on_lost, Logger* logger);
  ~Heartbeat();  // stop()
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // Renew now (the holder moved to its next migration: waiters see the progress at once).
  void nudge();
  // nudge(), then wait until that renewal has been tried (or the heartbeat ended): the caller
  // is about to start work that may keep the database busy — a SQLite write transaction
  // blocks the renewal until it commits — so the progress must be written first.
  void renew_now();
  // Ends the heartbeat after the renewal in flight, if any, so nothing lands after release.
  void stop();

  static std::chrono::milliseconds interval_for(std::chrono::milliseconds ttl);
  static std::chrono::milliseconds deadline_for(std::chrono::milliseconds ttl);

 private:
  void run(std::stop_token stop);

  Clock& clock_;
  const std::chrono::milliseconds interval_;
  const std::chrono::milliseconds deadline_;
  std::function<bool()> renew_;
  std::function<void(const std::string&)> on_lost_;
  Logger* logger_;

  std::mutex mutex_;
  std::stop_source wake_;  // requested by nudge() or stop() to end the current sleep early
  bool nudged_ = false;
  // Renewal attempts begun and finished (they never overlap), for renew_now() to wait on.
  std::uint64_t renewals_started_ = 0;
  std::uint64_t renewals_finished_ = 0;
  bool ended_ = false;
  std::condition_variable renewal_done_;
  std::jthread thread_;  // last: starts once every other member is ready
};

}  // namespace migronaut

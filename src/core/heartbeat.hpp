// The lock's heartbeat: renews the lease every TTL/2 on its own thread, never two
// renewals at once. A renewal that matches nothing means another run owns the lock: lost at
// once. Failing renewals are only warned about, but if none succeeds within
// TTL − min(TTL/4, 5 s) of when it was sent, the lock is lost — strictly before a peer could
// reclaim it at 1×TTL. A watchdog thread of its own keeps that deadline, so a renewal that
// hangs cannot postpone it, and every caller that asks sees a passed deadline as a loss.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "migronaut/migration.hpp"
#include "util/clock.hpp"

namespace migronaut {

class Heartbeat {
 public:
  // `renew` returns false when the record no longer names us and throws on failure;
  // `on_lost(reason)` is called exactly once, from whichever thread notices the loss first,
  // and the heartbeat then ends. Everyone else who notices waits until it has returned.
  Heartbeat(Clock& clock, std::chrono::milliseconds ttl, std::function<bool()> renew,
            std::function<void(const std::string& reason)> on_lost, Logger* logger);
  ~Heartbeat();  // stop()
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // Renew within `delay` (0: now) unless a renewal happens first; a later call replaces the
  // time. For progress that a migration's commit writes anyway: only one still running by then
  // costs a renewal of its own.
  void renew_within(std::chrono::milliseconds delay);
  // renew_within(0), then wait until that renewal has been tried (or the heartbeat ended): the
  // caller is about to start work that may keep the database busy, so the progress must be
  // written first. False when the lock is lost, the loss already reported.
  bool renew_now();
  // False once the lock is lost; a passed deadline is reported as the loss here and now.
  bool held();
  // How many renewals have been sent and how many have returned. One sent after a moment, or in
  // flight at it, may write the lock record after anything written then.
  struct Renewals {
    std::uint64_t started = 0;
    std::uint64_t finished = 0;
  };
  Renewals renewals();
  // Ends the heartbeat after the renewal in flight, if any, so nothing lands after release.
  void stop();
  // The lock is lost for a reason found outside the heartbeat (a fence refused a commit):
  // reported through on_lost like a loss of its own, once, and the heartbeat ends.
  void lose(const std::string& reason);

  static std::chrono::milliseconds interval_for(std::chrono::milliseconds ttl);
  static std::chrono::milliseconds deadline_for(std::chrono::milliseconds ttl);
  // How long one lock statement may take, and how soon a failed renewal is retried: a quarter
  // of the interval (at least 50 ms, at most 5 s), so between a renewal and the deadline there
  // is room for a retry or two, and a renewal that waits its whole bound still returns in time.
  static std::chrono::milliseconds statement_bound_for(std::chrono::milliseconds ttl);

 private:
  void renew_loop(std::stop_token stop);
  void watch_loop(std::stop_token stop);
  enum class Renewal { kRenewed, kFailed, kLost };
  // Tries one renewal and moves the deadline on success.
  Renewal renew_once(int& failures_in_a_row);
  bool is_lost();

  Clock& clock_;
  const std::chrono::milliseconds interval_;
  const std::chrono::milliseconds deadline_;
  const std::chrono::milliseconds retry_;  // after a failed renewal
  std::function<bool()> renew_;
  std::function<void(const std::string&)> on_lost_;
  Logger* logger_;

  std::mutex mutex_;
  std::stop_source wake_;  // requested to end the current sleep early (renew_by_ sooner, stop)
  std::optional<Clock::TimePoint> renew_by_;  // set by renew_within(), cleared by any renewal
  Clock::TimePoint renewer_due_ = Clock::TimePoint::max();  // what the renewer last slept towards
  Clock::TimePoint lost_at_;  // when the last successful renewal was sent, plus the deadline
  bool lost_ = false;
  std::once_flag loss_reported_;
  // Renewal attempts begun and finished (they never overlap), for renew_now() to wait on.
  std::uint64_t renewals_started_ = 0;
  std::uint64_t renewals_finished_ = 0;
  bool ended_ = false;
  std::condition_variable renewal_done_;
  // Last: they start once every other member is ready.
  std::jthread watchdog_;
  std::jthread renewer_;
};

}  // namespace migronaut

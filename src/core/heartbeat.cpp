#include "core/heartbeat.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <utility>

#include "fmt/format.h"

namespace migronaut {

using std::chrono::milliseconds;

namespace {
constexpr const char* kDeadlinePassed = "no successful renewal within the TTL";
}  // namespace

milliseconds Heartbeat::interval_for(milliseconds ttl) {
  return std::max(milliseconds(1), ttl / 2);
}

milliseconds Heartbeat::deadline_for(milliseconds ttl) {
  return ttl - std::min(interval_for(ttl) / 2, milliseconds(5000));
}

milliseconds Heartbeat::statement_bound_for(milliseconds ttl) {
  return std::clamp(interval_for(ttl) / 4, milliseconds(50), milliseconds(5000));
}

Heartbeat::Heartbeat(Clock& clock, milliseconds ttl, std::function<bool()> renew,
                     std::function<void(const std::string&)> on_lost, Logger* logger)
    : clock_(clock),
      interval_(interval_for(ttl)),
      deadline_(deadline_for(ttl)),
      retry_(statement_bound_for(ttl)),
      renew_(std::move(renew)),
      on_lost_(std::move(on_lost)),
      logger_(logger),
      lost_at_(clock.now() + deadline_),
      watchdog_([this](std::stop_token stop) { watch_loop(stop); }),
      renewer_([this](std::stop_token stop) { renew_loop(stop); }) {}

Heartbeat::~Heartbeat() { stop(); }

void Heartbeat::renew_within(milliseconds delay) {
  std::lock_guard lock(mutex_);
  renew_by_ = clock_.now() + delay;
  // Only a sooner time needs the renewer woken. Told of a later one, it wakes at the time it
  // sleeps towards and sleeps on: a run of fast migrations, each moving the time on, would
  // otherwise cost two context switches per migration.
  if (*renew_by_ < renewer_due_) wake_.request_stop();
}

bool Heartbeat::renew_now() {
  {
    std::unique_lock lock(mutex_);
    // The renewal in flight, if any, may carry the old progress: wait for the next one.
    const std::uint64_t target = renewals_started_ + 1;
    renew_by_ = clock_.now();
    wake_.request_stop();
    renewal_done_.wait(lock, [&] { return ended_ || lost_ || renewals_finished_ >= target; });
  }
  return held();
}

bool Heartbeat::held() {
  if (!is_lost()) return true;
  lose(kDeadlinePassed);  // a no-op but for waiting when the loss was already reported
  return false;
}

Heartbeat::Renewals Heartbeat::renewals() {
  std::lock_guard lock(mutex_);
  return {renewals_started_, renewals_finished_};
}

void Heartbeat::stop() {
  watchdog_.request_stop();
  renewer_.request_stop();
  {
    std::lock_guard lock(mutex_);
    wake_.request_stop();
  }
  if (renewer_.joinable()) renewer_.join();
  if (watchdog_.joinable()) watchdog_.join();
}

bool Heartbeat::is_lost() {
  std::lock_guard lock(mutex_);
  return lost_ || clock_.now() >= lost_at_;
}

void Heartbeat::lose(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    lost_ = true;
  }
  renewal_done_.notify_all();
  // Whoever comes second waits here until the first has reported the loss.
  std::call_once(loss_reported_, [&] { on_lost_(reason); });
}

void Heartbeat::watch_loop(std::stop_token stop) {
  while (!stop.stop_requested()) {
    Clock::TimePoint until;
    {
      std::lock_guard lock(mutex_);
      if (lost_) return;
      until = lost_at_;
    }
    if (clock_.now() >= until) {
      lose(kDeadlinePassed);
      return;
    }
    clock_.sleep_until(until, stop);
  }
}

void Heartbeat::renew_loop(std::stop_token stop) {
  // However the loop ends, nobody may keep waiting in renew_now().
  struct EndNotice {
    Heartbeat& heartbeat;
    ~EndNotice() {
      {
        std::lock_guard lock(heartbeat.mutex_);
        heartbeat.ended_ = true;
      }
      heartbeat.renewal_done_.notify_all();
    }
  } end_notice{*this};
  auto next_renewal = clock_.now() + interval_;
  int failures_in_a_row = 0;
  // Under mutex_: the regular renewal's time, or sooner when renew_within() asked.
  const auto due_at = [&] { return renew_by_ ? std::min(next_renewal, *renew_by_) : next_renewal; };
  while (!stop.stop_requested()) {
    std::stop_token wake;
    Clock::TimePoint due;
    {
      std::lock_guard lock(mutex_);
      // stop() asks before it takes the mutex to wake us: looked at here, a stop that came
      // after the loop's test cannot have its wake-up replaced by a fresh source and slept on.
      if (stop.stop_requested()) return;
      if (wake_.stop_requested()) wake_ = std::stop_source();
      wake = wake_.get_token();
      due = due_at();
      renewer_due_ = due;
    }
    clock_.sleep_until(due, wake);
    if (stop.stop_requested()) return;
    {
      std::lock_guard lock(mutex_);
      due = due_at();  // renew_within() may have moved it while we slept
    }
    if (!held()) return;
    const auto now = clock_.now();
    if (now < due) continue;
    const Renewal renewal = renew_once(failures_in_a_row);
    if (renewal == Renewal::kLost) return;
    next_renewal = now + (renewal == Renewal::kRenewed ? interval_ : retry_);
  }
}

Heartbeat::Renewal Heartbeat::renew_once(int& failures_in_a_row) {
  {
    std::lock_guard lock(mutex_);
    ++renewals_started_;
    renew_by_.reset();  // this renewal carries the progress as it is now
  }
  const auto sent = clock_.now();
  std::optional<bool> matched;  // empty when the renewal failed
  try {
    matched = renew_();
  } catch (const std::exception& e) {
    ++failures_in_a_row;
    if (logger_) {
      logger_->warn(
          fmt::format("Lock renewal failed ({} in a row): {}", failures_in_a_row, e.what()));
    }
  }
  if (matched == false) {
    // The row is gone or another run's: the store cannot tell which.
    lose("another run reclaimed it, or `unlock --force` released it");
    return Renewal::kLost;
  }
  if (matched) {
    failures_in_a_row = 0;
    std::lock_guard lock(mutex_);
    // A renewal that returns after the deadline is too late: the loss stands.
    if (!lost_ && clock_.now() < lost_at_) lost_at_ = sent + deadline_;
  }
  // A failed renewal past the deadline is reported before renew_now() waiters are released.
  const bool alive = held();
  {
    std::lock_guard lock(mutex_);
    ++renewals_finished_;
  }
  renewal_done_.notify_all();
  if (!alive) return Renewal::kLost;
  return matched ? Renewal::kRenewed : Renewal::kFailed;
}

}  // namespace migronaut

#include "core/heartbeat.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <utility>

#include "fmt/format.h"

namespace migronaut {

using std::chrono::milliseconds;

milliseconds Heartbeat::interval_for(milliseconds ttl) {
  return std::max(milliseconds(1), ttl / 2);
}

milliseconds Heartbeat::deadline_for(milliseconds ttl) {
  return ttl - std::min(interval_for(ttl) / 2, milliseconds(5000));
}

Heartbeat::Heartbeat(Clock& clock, milliseconds ttl, std::function<bool()> renew,
                     std::function<void(const std::string&)> on_lost, Logger* logger)
    : clock_(clock),
      interval_(interval_for(ttl)),
      deadline_(deadline_for(ttl)),
      renew_(std::move(renew)),
      on_lost_(std::move(on_lost)),
      logger_(logger),
      thread_([this](std::stop_token stop) { run(stop); }) {}

Heartbeat::~Heartbeat() { stop(); }

void Heartbeat::nudge() {
  std::lock_guard lock(mutex_);
  nudged_ = true;
  wake_.request_stop();
}

void Heartbeat::renew_now() {
  std::unique_lock lock(mutex_);
  // The renewal in flight, if any, may carry the old progress: wait for the next one.
  const std::uint64_t target = renewals_started_ + 1;
  nudged_ = true;
  wake_.request_stop();
  renewal_done_.wait(lock, [&] { return ended_ || renewals_finished_ >= target; });
}

void Heartbeat::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  {
    std::lock_guard lock(mutex_);
    wake_.request_stop();
  }
  thread_.join();
}

void Heartbeat::run(std::stop_token stop) {
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
  auto lost_at = clock_.now() + deadline_;
  int failures_in_a_row = 0;
  while (!stop.stop_requested()) {
    std::stop_token wake;
    bool nudged = false;
    {
      std::lock_guard lock(mutex_);
      if (wake_.stop_requested()) wake_ = std::stop_source();
      wake = wake_.get_token();
      nudged = std::exchange(nudged_, false);
    }
    if (!nudged) {
      clock_.sleep_until(std::min(next_renewal, lost_at), wake);
      if (stop.stop_requested()) return;
      std::lock_guard lock(mutex_);
      nudged = std::exchange(nudged_, false);
    }
    const auto now = clock_.now();
    if (now >= lost_at) {
      on_lost_("no successful renewal within the TTL");
      return;
    }
    if (!nudged && now < next_renewal) continue;

    next_renewal = now + interval_;
    {
      std::lock_guard lock(mutex_);
      ++renewals_started_;
    }
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
    // The loss is reported before anyone waiting in renew_now() is released, so they see it.
    if (matched == false) {
      on_lost_("another run reclaimed it");
      return;
    }
    {
      std::lock_guard lock(mutex_);
      ++renewals_finished_;
    }
    renewal_done_.notify_all();
    if (!matched) continue;
    failures_in_a_row = 0;
    lost_at = clock_.now() + deadline_;
  }
}

}  // namespace migronaut

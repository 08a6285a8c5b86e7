#include "support/fake_clock.hpp"

namespace migronaut::testing {

Clock::TimePoint FakeClock::now() {
  std::lock_guard lock(mutex_);
  return now_;
}

bool FakeClock::sleep_until(TimePoint deadline, std::stop_token stop) {
  std::unique_lock lock(mutex_);
  sleeps_.push_back(deadline - now_);
  if (auto_advance_) {
    if (stop.stop_requested()) return false;
    if (deadline > now_) now_ = deadline;
    ++sleepers_;
    changed_.notify_all();
    return true;
  }
  ++sleepers_;
  const auto asleep = asleep_until_.insert(deadline);
  changed_.notify_all();
  changed_.wait(lock, stop, [&] { return now_ >= deadline; });
  --sleepers_;
  asleep_until_.erase(asleep);
  changed_.notify_all();
  return !stop.stop_requested();
}

void FakeClock::advance(Duration by) {
  std::lock_guard lock(mutex_);
  now_ += by;
  changed_.notify_all();
}

void FakeClock::wait_for_sleepers(int count) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return sleepers_ >= count; });
}

bool FakeClock::settle(int count) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, std::chrono::seconds(10), [&] {
    return static_cast<int>(asleep_until_.size()) >= count &&
           (asleep_until_.empty() || *asleep_until_.begin() > now_);
  });
}

std::vector<Clock::Duration> FakeClock::sleeps() const {
  std::lock_guard lock(mutex_);
  return sleeps_;
}

}  // namespace migronaut::testing

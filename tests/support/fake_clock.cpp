#include "support/fake_clock.hpp"

#include <stop_token>

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
  // Under the mutex, whichever comes first ends the sleep: the deadline, or a stop, whose
  // callback takes the sleeper off the list at once. settle() then never counts as asleep a
  // thread a stop has woken but that has not run yet.
  bool awake = false;
  const auto wake_up = [&] {
    if (awake) return;
    awake = true;
    --sleepers_;
    asleep_until_.erase(asleep);
    changed_.notify_all();
  };
  lock.unlock();  // a stop requested already runs the callback here, at its construction
  {
    const std::stop_callback on_stop(stop, [&] {
      std::lock_guard guard(mutex_);
      wake_up();
    });
    lock.lock();
    changed_.wait(lock, [&] { return awake || now_ >= deadline; });
    wake_up();
    lock.unlock();  // a callback running now needs the mutex to finish, and is waited for
  }
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

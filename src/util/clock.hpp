// Time, behind a seam: the engine never reads the system clock itself, so tests drive lock
// waits and heartbeats with a FakeClock instead of sleeping.
#pragma once

#include <chrono>
#include <stop_token>

namespace migronaut {

class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;

  virtual ~Clock() = default;
  virtual TimePoint now() = 0;
  // Blocks until `deadline` or until `stop` is requested; false when stopped early.
  virtual bool sleep_until(TimePoint deadline, std::stop_token stop) = 0;
  bool sleep_for(Duration duration, std::stop_token stop) {
    return sleep_until(now() + duration, std::move(stop));
  }

  // The process-wide steady clock.
  static Clock& real();
};

}  // namespace migronaut

// A Clock for tests. In auto-advance mode a sleep returns at once with time moved to its
// deadline (single-threaded code such as the lock wait); otherwise sleepers block until a test
// calls advance() (threads such as the heartbeat).
#pragma once

#include <condition_variable>
#include <mutex>
#include <set>
#include <vector>

#include "util/clock.hpp"

namespace migronaut::testing {

class FakeClock : public Clock {
 public:
  explicit FakeClock(bool auto_advance = false) : auto_advance_(auto_advance) {}

  TimePoint now() override;
  bool sleep_until(TimePoint deadline, std::stop_token stop) override;

  void advance(Duration by);
  // Blocks until `count` threads are asleep in sleep_until (or have slept that often in
  // auto-advance mode), so a test advances time only once the code under test is waiting.
  void wait_for_sleepers(int count);
  // Blocks until `count` threads are asleep and none of them is due (woken by an advance() but
  // not yet back): the code under test has acted on the time it was given, so a test can check
  // that something did not happen without sleeping on it. Bounded in real time: false when that
  // did not come about within 10 s (a thread that ended instead of sleeping again, say).
  bool settle(int count);
  // Every sleep requested so far, as durations from the time it was requested.
  std::vector<Duration> sleeps() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable_any changed_;
  TimePoint now_{};
  bool auto_advance_;
  int sleepers_ = 0;
  std::multiset<TimePoint> asleep_until_;  // the deadlines of the threads asleep now
  std::vector<Duration> sleeps_;
};

}  // namespace migronaut::testing

#include "util/clock.hpp"

#include <condition_variable>
#include <mutex>

namespace migronaut {
namespace {

class SteadyClock : public Clock {
 public:
  TimePoint now() override { return std::chrono::steady_clock::now(); }
  bool sleep_until(TimePoint deadline, std::stop_token stop) override {
    std::mutex mutex;
    std::condition_variable_any never_notified;
    std::unique_lock lock(mutex);
    // wait_until with a stop token returns early (false) when a stop is requested.
    never_notified.wait_until(lock, stop, deadline, [] { return false; });
    return !stop.stop_requested();
  }
};

}  // namespace

Clock& Clock::real() {
  static SteadyClock clock;
  return clock;
}

}  // namespace migronaut

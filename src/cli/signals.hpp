// SIGINT/SIGTERM: the first asks the run to stop after the migration in flight (exit 11); the
// second exits at once with 130/143. Signals are blocked in every thread and taken by one
// thread with sigwait, so no work happens in a signal handler.
#pragma once

#include <atomic>
#include <stop_token>

#include "cli/output.hpp"

namespace migronaut::cli {

class Signals {
 public:
  // Call before any other thread starts, so every thread inherits the blocked mask.
  Signals();
  // From now on a first signal stops gracefully (true) or exits at once (false, the default).
  void set_graceful(bool graceful) { graceful_ = graceful; }
  void set_output(Output* output) { output_ = output; }
  std::stop_token token() const { return stop_.get_token(); }

 private:
  void wait_for_signals();

  std::stop_source stop_;
  std::atomic<bool> graceful_ = false;
  std::atomic<Output*> output_ = nullptr;
};

}  // namespace migronaut::cli

// SIGINT/SIGTERM: the first asks the run to stop after the migration in flight (exit 11); the
// second exits at once with 130/143. Signals are blocked in every thread and taken by one
// thread with sigwait, so no work happens in a signal handler. That thread is detached and may
// outlive main: it owns its state, and only prints on an Output while one is attached.
#pragma once

#include <memory>
#include <stop_token>

#include "cli/output.hpp"

namespace migronaut::cli {

class Signals {
 public:
  // Call before any other thread starts, so every thread inherits the blocked mask.
  Signals();
  // From now on a first signal stops gracefully (true) or exits at once (false, the default).
  void set_graceful(bool graceful);
  std::stop_token token() const;

  // Attaches `output` for the warning a first signal prints, until the scope ends (declare it
  // after the Output, so it ends first).
  class OutputScope {
   public:
    OutputScope(Signals& signals, Output& output);
    ~OutputScope();
    OutputScope(const OutputScope&) = delete;
    OutputScope& operator=(const OutputScope&) = delete;

   private:
    Signals& signals_;
  };

 private:
  struct State;
  static void wait_for_signals(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;  // shared with the signal thread
};

}  // namespace migronaut::cli

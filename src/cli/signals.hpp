// SIGINT/SIGTERM: the first asks the run to stop after the work in flight (exit 11), or at once
// when nothing is in flight (a waiter, a prompt); the second exits at once with 130/143.
// Signals are blocked in every thread and taken by one thread with sigwait, so no work happens
// in a signal handler. That thread is detached and may outlive main: it owns its state, and only
// prints on an Output while one is attached. SIGPIPE is ignored: a write to a reader that went
// away fails, and the run goes on (output.hpp).
#pragma once

#include <memory>
#include <stop_token>
#include <string>

#include "cli/output.hpp"

namespace migronaut::cli {

class Signals {
 public:
  // Call before any other thread starts, so every thread inherits the blocked mask.
  Signals();
  // From now on a first signal stops gracefully (true) or exits at once (false, the default).
  void set_graceful(bool graceful);
  std::stop_token token() const;
  // What a first signal lets finish ("the migration in flight"), named in its warning; "" while
  // nothing is in flight, and then the stop needs no warning. Thread-safe.
  void set_in_flight(std::string what);

  // A prompt: while it lives, a first signal stops (cancelling the prompt) even in a command
  // that otherwise exits at once, so every prompt ends the same way.
  class PromptScope {
   public:
    explicit PromptScope(Signals& signals);
    ~PromptScope();
    PromptScope(const PromptScope&) = delete;
    PromptScope& operator=(const PromptScope&) = delete;

   private:
    Signals& signals_;
    bool was_graceful_;
  };

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
  [[noreturn]] static void exit_now(State& state, int signal, bool second);

  std::shared_ptr<State> state_;  // shared with the signal thread
};

}  // namespace migronaut::cli

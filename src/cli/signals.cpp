#include "cli/signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

namespace migronaut::cli {
namespace {

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

struct Signals::State {
  std::stop_source stop;
  std::atomic<bool> graceful = false;
  std::mutex output_mutex;  // held while warning, so an Output is never used as it goes
  Output* output = nullptr;
};

Signals::Signals() : state_(std::make_shared<State>()) {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // Detached: it lives as long as the process, blocked in sigwait, and keeps the state alive.
  std::thread([state = state_] { wait_for_signals(state); }).detach();
}

void Signals::set_graceful(bool graceful) { state_->graceful = graceful; }

std::stop_token Signals::token() const { return state_->stop.get_token(); }

Signals::OutputScope::OutputScope(Signals& signals, Output& output) : signals_(signals) {
  std::lock_guard lock(signals_.state_->output_mutex);
  signals_.state_->output = &output;
}

Signals::OutputScope::~OutputScope() {
  std::lock_guard lock(signals_.state_->output_mutex);
  signals_.state_->output = nullptr;
}

void Signals::wait_for_signals(const std::shared_ptr<State>& state) {
  const sigset_t set = stop_signals();
  for (int received = 0;; ++received) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (received > 0 || !state->graceful) _exit(128 + signal);
    state->stop.request_stop();
    std::lock_guard lock(state->output_mutex);
    if (state->output != nullptr) {
      state->output->warn(
          "Stopping after the migration in flight (send the signal again to exit now)");
    }
  }
}

}  // namespace migronaut::cli

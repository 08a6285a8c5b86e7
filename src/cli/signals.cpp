#include "cli/signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>
#include <utility>

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
  std::mutex mutex;  // held while warning, so an Output is never used as it goes
  Output* output = nullptr;
  std::string in_flight;
};

// Exits 128 + `signal` at once. A second signal, cutting a run short, says what it leaves, and
// under --json in the one document stdout promises (docs/JSON.md). A command that writes
// nothing (graceful off) just ends.
void Signals::exit_now(State& state, int signal, bool second) {
  std::unique_lock lock(state.mutex, std::try_to_lock);  // a warning mid-way: no words then
  if (second && lock.owns_lock() && state.output != nullptr) {
    const std::string message =
        "Stopped at once by a second signal: a lock this run held stays until its TTL runs out, "
        "and a migration it was running outside a transaction shows as interrupted";
    state.output->error(message);
    if (state.output->json_mode()) {
      state.output->document(
          {{"error",
            {{"code", "SIGNAL"}, {"message", message}, {"context", {{"signal", signal}}}}}});
    }
  }
  _exit(128 + signal);
}

Signals::Signals() : state_(std::make_shared<State>()) {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A reader that went away (`migronaut up --json | jq`, jq ended) must not kill the run
  // mid-migration, a transaction:false one half-applied: the write fails instead (EPIPE), and
  // Output stops writing there.
  std::signal(SIGPIPE, SIG_IGN);
  // Detached: it lives as long as the process, blocked in sigwait, and keeps the state alive.
  std::thread([state = state_] { wait_for_signals(state); }).detach();
}

void Signals::set_graceful(bool graceful) { state_->graceful = graceful; }

std::stop_token Signals::token() const { return state_->stop.get_token(); }

void Signals::set_in_flight(std::string what) {
  std::lock_guard lock(state_->mutex);
  state_->in_flight = std::move(what);
}

Signals::PromptScope::PromptScope(Signals& signals)
    : signals_(signals), was_graceful_(signals.state_->graceful) {
  signals_.set_graceful(true);
}

Signals::PromptScope::~PromptScope() { signals_.set_graceful(was_graceful_); }

Signals::OutputScope::OutputScope(Signals& signals, Output& output) : signals_(signals) {
  std::lock_guard lock(signals_.state_->mutex);
  signals_.state_->output = &output;
}

Signals::OutputScope::~OutputScope() {
  std::lock_guard lock(signals_.state_->mutex);
  signals_.state_->output = nullptr;
}

void Signals::wait_for_signals(const std::shared_ptr<State>& state) {
  const sigset_t set = stop_signals();
  for (int received = 0;; ++received) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (received > 0 || !state->graceful) exit_now(*state, signal, received > 0);
    state->stop.request_stop();
    std::lock_guard lock(state->mutex);
    if (state->output != nullptr && !state->in_flight.empty()) {
      state->output->warn("Stopping after " + state->in_flight +
                          " (send the signal again to exit now)");
    }
  }
}

}  // namespace migronaut::cli

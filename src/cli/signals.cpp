#include "cli/signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
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

Signals::Signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // Detached: it lives as long as the process, blocked in sigwait.
  std::thread([this] { wait_for_signals(); }).detach();
}

void Signals::wait_for_signals() {
  const sigset_t set = stop_signals();
  for (int received = 0;; ++received) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (received > 0 || !graceful_) _exit(128 + signal);
    stop_.request_stop();
    if (Output* output = output_) {
      output->warn("Stopping after the migration in flight (send the signal again to exit now)");
    }
  }
}

}  // namespace migronaut::cli

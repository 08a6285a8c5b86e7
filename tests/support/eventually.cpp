#include "support/eventually.hpp"

#include <stdexcept>
#include <thread>

namespace migronaut::testing {

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    try {
      if (condition()) return true;
    } catch (const std::runtime_error&) {
      // A query on tables the process under test has not created yet: not yet.
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace migronaut::testing

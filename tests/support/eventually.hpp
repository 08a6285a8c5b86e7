// Waiting on an event a test cannot be told about directly (another process's output, a
// database row), bounded.
#pragma once

#include <chrono>
#include <functional>

namespace migronaut::testing {

// Polls `condition` every 20 ms for up to `timeout`; true once it holds. A condition that
// throws std::runtime_error (a query on tables not created yet) counts as not holding yet.
bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace migronaut::testing

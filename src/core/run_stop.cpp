#include "core/run_stop.hpp"

namespace migronaut {

void RunStop::request(const Error& reason) {
  {
    std::lock_guard lock(mutex_);
    if (reason_) return;
    reason_ = reason;
  }
  source_.request_stop();
}

std::optional<ErrorCode> RunStop::reason_code() const {
  std::lock_guard lock(mutex_);
  if (!reason_) return std::nullopt;
  return reason_->code();
}

void RunStop::throw_reason(const nlohmann::json& results) const {
  std::lock_guard lock(mutex_);
  Error error = reason_ ? *reason_ : RunAbortedError("Run stopped");
  error.context()["results"] = results;
  throw_typed(error);
}

}  // namespace migronaut

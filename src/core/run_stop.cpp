#include "core/run_stop.hpp"

#include <fmt/format.h>

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

void RunStop::throw_reason(const nlohmann::json& results, std::size_t not_run) const {
  std::lock_guard lock(mutex_);
  const Error reason = reason_ ? *reason_ : RunAbortedError("Run stopped");
  std::string message = reason.what();
  if (not_run > 0) {
    message += fmt::format(" ({} done, {} not run)", results.size(), not_run);
  }
  Error error(reason.code(), message, reason.context());
  error.context()["results"] = results;
  if (not_run > 0) error.context()["notRun"] = not_run;
  throw_typed(error);
}

}  // namespace migronaut

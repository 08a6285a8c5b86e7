// Why a run must stop: a graceful stop (signal, Migrator::stop), a lost lock or a timeout. The
// first reason wins; the runner checks it between migrations — the only safe point — and a
// running body sees it through its stop token.
#pragma once

#include <mutex>
#include <optional>
#include <stop_token>

#include "migronaut/errors.hpp"

namespace migronaut {

class RunStop {
 public:
  // Thread-safe; later requests keep the first reason.
  void request(const Error& reason);
  bool requested() const { return source_.stop_requested(); }
  std::stop_token token() const { return source_.get_token(); }
  // The first reason's code, if a stop was requested.
  std::optional<ErrorCode> reason_code() const;
  // The first reason, with `results` (what the run applied before stopping) in its context and,
  // when `not_run` of its migrations were left, how many, in its context and its message (how to
  // run them is the caller's to say: `up` again, a `down --steps` of fewer, …).
  [[noreturn]] void throw_reason(const nlohmann::json& results, std::size_t not_run = 0) const;

 private:
  mutable std::mutex mutex_;
  std::optional<Error> reason_;
  std::stop_source source_;
};

}  // namespace migronaut

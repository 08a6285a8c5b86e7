// Events and hooks. Events report; a throwing listener is contained and never
// breaks a run. Hooks take part: a throwing hook fails the run with HookFailedError.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "migronaut/errors.hpp"
#include "migronaut/migration.hpp"

namespace migronaut {

// name: "lock:acquired", "run:start", "migration:start", "migration:success",
// "migration:error", "lock:lost" (emitted on the heartbeat's thread), "lock:released",
// "run:end".
struct Event {
  std::string name;
  nlohmann::json data;
};
using EventListener = std::function<void(const Event&)>;

struct RunResult {
  std::string name;
  std::string status;  // "applied", "reverted", "skipped"
  std::int64_t duration_ms = 0;
  std::int64_t batch = 0;
  std::string reason;  // why a migration was skipped
};
void to_json(nlohmann::json& out, const RunResult& result);

struct HookInfo {
  std::string run_id;
  Direction direction = Direction::kUp;
  std::size_t index = 0;  // 0-based position in this run
  std::size_t total = 0;
};

struct Hooks {
  std::function<void(const HookInfo&)> before_all;
  // Always runs, also when the run failed.
  std::function<void(const HookInfo&, bool success, const std::vector<RunResult>& results)>
      after_all;
  std::function<void(const std::string& name, const HookInfo&)> before_each;
  std::function<void(const std::string& name, std::int64_t duration_ms, const HookInfo&)>
      after_each;
  // Before a migration's error propagates; not for a lost lock or connection, which end the run
  // itself. A throwing on_error is only warned about: it must not mask the migration's error.
  std::function<void(const std::string& name, const Error& error, const HookInfo&)> on_error;
};

}  // namespace migronaut

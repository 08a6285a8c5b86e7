// Runs the selected migrations of one run, in order, one transaction each where they run in
// one: hooks and events around each, the stop checked between them, the changelog written by
// the store with the body (src/core/changelog.cpp decides what), a failure recorded.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/changelog.hpp"
#include "core/lease.hpp"
#include "core/plan.hpp"
#include "core/run_stop.hpp"
#include "migronaut/events.hpp"
#include "store/store.hpp"

namespace migronaut {

struct RunEnvironment {
  Store& store;
  const Config& config;
  RunStop& stop;
  Lease* lease = nullptr;  // null with --no-lock
  RecordStamp stamp;
  Logger& logger;
  const Hooks& hooks;
  std::function<void(const Event&)> emit;
  Clock* clock = &Clock::real();
};

// Calls a hook; anything it throws fails the run as HookFailedError naming the hook.
void call_hook(const char* hook, const std::function<void()>& call);

class Runner {
 public:
  explicit Runner(RunEnvironment environment) : env_(std::move(environment)) {}

  // Applies (up) or reverts (down) `targets` in order, appending to `results` as each
  // completes so a caller still has them when a later one fails.
  void run(Direction direction, const std::vector<const PlanEntry*>& targets, std::int64_t batch,
           std::vector<RunResult>& results);

 private:
  RunResult run_one(Direction direction, const Migration& migration, std::int64_t batch,
                    const HookInfo& info);
  bool transactional(const Migration& migration) const;
  void check_stop();
  // After the last migration: a lock lost during it fails the run unless everything the run
  // applied committed under the fence.
  void finish(bool all_fenced, const std::vector<RunResult>& results);
  [[noreturn]] void fail(Direction direction, const Migration& migration, std::int64_t batch,
                         const Error& error, const HookInfo& info);

  RunEnvironment env_;
};

}  // namespace migronaut

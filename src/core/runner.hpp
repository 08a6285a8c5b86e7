// Runs the selected migrations of one run, in order, one transaction each where they run in
// one: hooks and events around each, the stop checked between them, the changelog written by
// the store with the body (src/core/changelog.cpp decides what), a failure recorded.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/changelog.hpp"
#include "core/lease.hpp"
#include "core/plan.hpp"
#include "core/run_stop.hpp"
#include "migronaut/errors.hpp"
#include "migronaut/events.hpp"
#include "store/store.hpp"

namespace migronaut {

// The scripts checked in one call of up, down or redo, each (migration, direction) once: the
// targets checked before the lock are not parsed again under it, while a target that became
// pending as the run waited still is. A store's check depends on the script alone, not on the
// connection that makes it. A migration's address means nothing beyond the call that loaded it.
class ScriptChecks {
 public:
  // Has `store` check the script each target runs in `direction` before any of them runs, so a
  // refusal leaves the database as it was; refuses timeouts on a section that runs without a
  // transaction (MigrationInvalidFormatError).
  void check(const Store& store, const Config& config, Direction direction,
             const std::vector<const PlanEntry*>& targets);
  // Whether a target check() passed runs `direction` in a transaction, as it decided then.
  bool in_transaction(const Migration& migration, Direction direction) const {
    return in_transaction_.at({&migration, direction});
  }

 private:
  // Each checked (migration, direction): whether it runs in a transaction.
  std::map<std::pair<const Migration*, Direction>, bool> in_transaction_;
};

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
  ScriptChecks checks;  // those the run made before its lock
};

// The script `migration` runs in `direction`; nullptr for a C++ body or no down.
const Script* script_of(const Migration& migration, Direction direction);

// Whether `migration` runs `direction` in a transaction: its own option for that direction, else
// `by_config` (the config's useTransaction, else the backend's default); but where that runs it
// in one, a script of another tool's plain file (Script::plain_file) that can run only outside a
// transaction (`runs_outside`) runs outside one. `lint` asks it of files, without a store.
bool runs_in_transaction(const Migration& migration, Direction direction, bool by_config,
                         const std::function<bool(const Script&)>& runs_outside);
// The same, as `store` runs it (Store::runs_outside_transaction).
bool runs_in_transaction(const Store& store, const Config& config, const Migration& migration,
                         Direction direction);

// Calls a hook; anything it throws fails the run as HookFailedError naming the hook.
void call_hook(const char* hook, const std::function<void()>& call);

class Runner {
 public:
  explicit Runner(RunEnvironment environment) : env_(std::move(environment)) {}

  // Applies (up, in `batch`) or reverts (down: `batch` unused) `targets` in order, appending to
  // `results` as each completes so a caller still has them when a later one fails.
  void run(Direction direction, const std::vector<const PlanEntry*>& targets, std::int64_t batch,
           std::vector<RunResult>& results);
  // Checks the scripts `targets` run in `direction` now, ahead of a run() of them (which checks
  // them itself): for a later run() that must not be refused once an earlier one has run.
  void check(Direction direction, const std::vector<const PlanEntry*>& targets) {
    env_.checks.check(env_.store, env_.config, direction, targets);
  }

 private:
  // One migration of the run, as its steps share it.
  struct Step {
    Direction direction;
    const Migration& migration;
    std::int64_t batch;
    HookInfo info;
    LockProgress progress;  // what the lock record shows while it runs
    // What its fenced commit writes to the lock record: the migration that runs next (itself
    // when it is the last), so the record names each migration from the previous one's commit
    // on, before its beforeEach hook.
    LockProgress commit_progress;
    bool in_transaction;
  };

  // Tells the lock record which migration the run is on. Nothing to send for a transactional
  // migration that the previous fenced commit announced (unless a renewal may have written over
  // that since) or whose store folds it into its own commit (no round trip; the loss deadline
  // is checked here, locally); else the lease is renewed now, which also checks the lock.
  void report_progress(const Step& step);
  // Before re-running a migration that another run, now dead, left `applying`: that run's
  // statement may still run on the server (Store::end_sessions_of()); waits, reporting, until
  // its sessions are gone, at most the lock wait's timeout (then MigrationBlockedError).
  void wait_out_dead_run(const PlanEntry& entry);
  // The progress line before a migration (and a note when it re-runs an interrupted one).
  void announce(Direction direction, const PlanEntry& entry, const HookInfo& info);
  // Each statement of the body, for --verbose, just before it is sent.
  void log_statements(const Step& step);
  // The steps of one migration: start (beforeEach, migration:start), the stop checked, the
  // `applying` mark of a non-transactional one, execute, succeed (migration:success, afterEach).
  RunResult run_one(const Step& step);
  void start(const Step& step);
  // Runs the body with its record under its timeout; a failure is recorded and thrown (fail()).
  void execute(const Step& step, const LockToken* fence);
  // What an untransacted step's store asks between statements (Execution::still_held).
  std::function<bool()> still_held(const Step& step) const;
  RunResult succeed(const Step& step, std::int64_t duration_ms);
  // The migration's own timeout, else the config's.
  std::optional<std::chrono::milliseconds> timeout_of(const Migration& migration) const;
  // Executes; a transaction that timed out waiting for a lock rolled back whole, so it is tried
  // again (up to lockRetries more times, the lease renewed between tries). False when the run
  // was told to stop instead of trying again: nothing of the migration ran.
  bool execute_with_lock_retries(const Execution& execution, const std::string& name);
  void check_stop();
  // A fence found another run's lock: the run stops, and the loss is reported as the heartbeat
  // reports its own (Lease::lose).
  void lock_lost(const LockLostError& error);
  // After the last migration: a lock lost during it fails the run unless everything the run
  // applied committed under the fence.
  void finish(bool all_fenced, const std::vector<RunResult>& results);
  [[noreturn]] void fail(const Step& step, const Error& error);

  RunEnvironment env_;
  // Set when the previous migration's fenced commit announced this one with no renewal in
  // flight as it began: how many renewals had been sent by then (any sent since may have
  // written over the announcement). Cleared at the start of each run and of each migration.
  std::optional<std::uint64_t> announced_after_renewals_;
};

}  // namespace migronaut

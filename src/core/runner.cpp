#include "core/runner.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <random>
#include <thread>

#include "fmt/format.h"
#include "store/registry.hpp"
#include "util/redact.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;

// Fires a migration's timeout: stops its body and interrupts the store's statement in flight.
class Watchdog {
 public:
  Watchdog(Clock& clock, std::optional<milliseconds> timeout, std::stop_source& body_stop,
           Store& store) {
    if (!timeout) return;
    thread_ = std::jthread([&clock, &body_stop, &store, this, timeout](std::stop_token done) {
      if (clock.sleep_for(*timeout, done)) {
        fired_ = true;
        body_stop.request_stop();
        store.interrupt();
      }
    });
  }
  bool fired() const { return fired_; }

 private:
  std::atomic<bool> fired_ = false;
  std::jthread thread_;  // joined on destruction, after the store returned
};

// Tells the lease while a transactional migration runs (see Lease::set_migration_writing).
class MigrationWriting {
 public:
  MigrationWriting(Lease* lease, bool transactional) : lease_(transactional ? lease : nullptr) {
    if (lease_) lease_->set_migration_writing(true);
  }
  ~MigrationWriting() {
    if (lease_) lease_->set_migration_writing(false);
  }
  MigrationWriting(const MigrationWriting&) = delete;
  MigrationWriting& operator=(const MigrationWriting&) = delete;

 private:
  Lease* lease_;
};

// Adapts the run's logger for a body: its lines carry the migration's name.
class MigrationLogger : public Logger {
 public:
  MigrationLogger(Logger& sink, std::string prefix) : sink_(sink), prefix_(std::move(prefix)) {}
  void log(Level level, std::string_view message) override {
    sink_.log(level, fmt::format("[{}] {}", prefix_, message));
  }

 private:
  Logger& sink_;
  std::string prefix_;
};

// The pause before try `attempt` + 1 of a migration that hit its lock timeout: doubling from
// 100 ms up to 5 s, with jitter so that retrying peers do not fall into step.
milliseconds lock_retry_pause(std::int64_t attempt) {
  constexpr std::int64_t kFirstMs = 100;
  constexpr std::int64_t kMostMs = 5000;
  const std::int64_t full = std::min(kMostMs, kFirstMs << std::min<std::int64_t>(attempt - 1, 6));
  static thread_local std::mt19937_64 random{std::random_device{}()};
  return milliseconds(std::uniform_int_distribution<std::int64_t>(full / 2, full)(random));
}

// `text` on one line (whitespace runs collapsed), cut to `limit` bytes on a UTF-8 boundary.
std::string one_line(std::string_view text, std::size_t limit) {
  std::string out;
  for (const char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() <= limit) return out;
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  return out.substr(0, cut) + "…";
}

}  // namespace

void call_hook(const char* hook, const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& e) {
    throw HookFailedError(fmt::format("Hook {} failed: {}", hook, redact(e.what())),
                          {{"hook", hook}, {"error", redact(e.what())}});
  }
}

bool runs_in_transaction(const Config& config, const Migration& migration) {
  return migration.transactional.value_or(
      config.use_transaction.value_or(backend_for(config.uri).transactions_by_default));
}

void check_scripts(const Store& store, const Config& config, Direction direction,
                   const std::vector<const PlanEntry*>& targets) {
  for (const PlanEntry* target : targets) {
    const Migration& migration = *target->migration;
    const Work* work =
        direction == Direction::kUp ? &migration.up : (migration.down ? &*migration.down : nullptr);
    if (const Script* script = work ? std::get_if<Script>(work) : nullptr) {
      store.check_script(migration.name, *script, runs_in_transaction(config, migration));
    }
  }
}

void Runner::run(Direction direction, const std::vector<const PlanEntry*>& targets,
                 std::int64_t batch, std::vector<RunResult>& results) {
  check_scripts(env_.store, env_.config, direction, targets);
  bool all_fenced = true;  // every migration so far committed in a transaction fenced on the lock
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Migration& migration = *targets[i]->migration;
    const HookInfo info{env_.stamp.run_id, direction, i, targets.size()};
    // Announcing the next migration renews the lease, so a lock lost meanwhile is known here.
    if (env_.lease) {
      env_.lease->set_progress(migration.name, static_cast<std::int64_t>(i + 1),
                               static_cast<std::int64_t>(targets.size()));
    }
    // Between migrations is the only safe point: the previous one committed, the next has not
    // started.
    if (env_.stop.requested()) env_.stop.throw_reason(results);
    announce(direction, *targets[i], info);
    try {
      results.push_back(run_one(direction, migration, batch, info));
    } catch (...) {
      // A migration that failed because the run was told to stop (its body saw the stop
      // token) ends the run with the stop's own reason.
      if (env_.stop.requested()) env_.stop.throw_reason(results);
      throw;
    }
    all_fenced = all_fenced && env_.lease && runs_in_transaction(env_.config, migration);
  }
  finish(all_fenced, results);
}

void Runner::finish(bool all_fenced, const std::vector<RunResult>& results) {
  if (!env_.lease || env_.stop.reason_code() != ErrorCode::kLockLost) return;
  // Lost during the last migration: whatever ran unfenced may have overlapped a peer.
  if (!all_fenced) env_.stop.throw_reason(results);
  env_.logger.warn(
      "The migration lock was lost during the last migration, but every migration this run "
      "applied committed in a transaction fenced on the lock: nothing ran without it");
}

// The stop, checked just before a body starts: a loss whose deadline passed meanwhile counts.
void Runner::check_stop() {
  if (env_.lease) env_.lease->held();
  if (env_.stop.requested()) env_.stop.throw_reason(nlohmann::json::array());
}

void Runner::announce(Direction direction, const PlanEntry& entry, const HookInfo& info) {
  const bool up = direction == Direction::kUp;
  if (up && entry.record && entry.record->status == RecordStatus::kApplying) {
    env_.logger.warn(
        fmt::format("re-running {}: a previous run was interrupted while applying it (it left an "
                    "`applying` mark)",
                    entry.name));
  }
  env_.logger.info(fmt::format("{} {} ({}/{})…", up ? "applying" : "reverting", entry.name,
                               info.index + 1, info.total));
  const Migration& migration = *entry.migration;
  const Work* work = up ? &migration.up : (migration.down ? &*migration.down : nullptr);
  if (const auto* script = std::get_if<Script>(work)) {
    for (const std::string& statement : env_.store.statements_of(*script)) {
      env_.logger.debug(fmt::format("sending {}: {}", entry.name, one_line(statement, 200)));
    }
  }
}

RunResult Runner::run_one(Direction direction, const Migration& migration, std::int64_t batch,
                          const HookInfo& info) {
  if (env_.hooks.before_each) {
    call_hook("beforeEach", [&] { env_.hooks.before_each(migration.name, info); });
  }
  const nlohmann::json subject = {{"migration", migration.name},
                                  {"direction", direction_name(direction)},
                                  {"batch", batch},
                                  {"step", info.index + 1},
                                  {"total", info.total}};
  env_.emit({"migration:start", subject});

  const bool up = direction == Direction::kUp;
  const Work& work = up ? migration.up : *migration.down;
  const bool in_transaction = runs_in_transaction(env_.config, migration);
  const RecordWrite record = up ? applied_record(migration, batch, env_.stamp)
                                : reverted_record(migration.name, env_.stamp);
  const LockToken* fence = env_.lease ? &env_.lease->token() : nullptr;
  check_stop();
  if (up && !in_transaction) {
    env_.store.write_record(applying_record(migration, batch, env_.stamp), fence);
  }

  std::stop_source body_stop;
  std::stop_callback forward_run_stop(env_.stop.token(), [&] { body_stop.request_stop(); });
  MigrationLogger logger(env_.logger, migration.name);
  MigrationContext context{.run = {env_.stamp.run_id, direction, migration.name, batch, 1},
                           .stop = body_stop.get_token(),
                           .logger = logger,
                           .handle = {}};
  const std::optional<milliseconds> timeout =
      migration.timeout
          ? migration.timeout
          : (env_.config.timeout_ms ? std::optional(milliseconds(*env_.config.timeout_ms))
                                    : std::nullopt);

  const auto started = env_.clock->now();
  bool timed_out = false;
  try {
    Watchdog watchdog(*env_.clock, timeout, body_stop, env_.store);
    const auto bound = [](std::optional<milliseconds> own, std::int64_t configured) {
      return own.value_or(milliseconds(configured));
    };
    MigrationWriting writing(env_.lease, in_transaction);
    execute_with_lock_retries(
        Execution{.work = &work,
                  .transactional = in_transaction,
                  .record = &record,
                  .fence = fence,
                  .context = &context,
                  .lock_timeout = bound(migration.lock_timeout, env_.config.lock_timeout_ms),
                  .statement_timeout = bound(migration.statement_timeout, 0),
                  .time_limit = timeout},
        migration.name);
    timed_out = watchdog.fired();
  } catch (const LockLostError& e) {
    // Fencing refused the commit: nothing was written, and nothing more may be.
    env_.stop.request(e);
    throw;
  } catch (const ConnectionFailedError&) {
    throw;
  } catch (const Error& e) {
    if (timeout && body_stop.stop_requested() && !env_.stop.requested()) {
      fail(direction, migration, batch,
           MigrationTimeoutError(fmt::format("Migration {} exceeded its timeout of {} ms",
                                             migration.name, timeout->count()),
                                 {{"migration", migration.name}, {"timeoutMs", timeout->count()}}),
           info);
    }
    fail(direction, migration, batch, e, info);
  } catch (const std::exception& e) {
    fail(direction, migration, batch,
         MigrationExecutionFailedError(redact(e.what()), {{"migration", migration.name}}), info);
  }
  if (timed_out) {
    // The body finished, but past its deadline: its effects are committed, so the run stops
    // here instead of going on late.
    env_.stop.request(MigrationTimeoutError(
        fmt::format("Migration {} exceeded its timeout of {} ms", migration.name, timeout->count()),
        {{"migration", migration.name}, {"timeoutMs", timeout->count()}}));
  }

  const auto duration =
      std::chrono::duration_cast<milliseconds>(env_.clock->now() - started).count();
  env_.emit({"migration:success",
             {{"migration", migration.name},
              {"direction", direction_name(direction)},
              {"batch", batch},
              {"durationMs", duration}}});
  env_.logger.info(
      fmt::format("{} {} in {} ms", up ? "applied" : "reverted", migration.name, duration));
  if (env_.hooks.after_each) {
    call_hook("afterEach", [&] { env_.hooks.after_each(migration.name, duration, info); });
  }
  return RunResult{migration.name, up ? "applied" : "reverted", duration, batch, ""};
}

void Runner::execute_with_lock_retries(const Execution& execution, const std::string& name) {
  const std::int64_t retries = env_.config.lock_retries;
  for (std::int64_t attempt = 1;; ++attempt) {
    try {
      env_.store.execute(execution);
      return;
    } catch (const MigrationLockTimeoutError& e) {
      // The transaction rolled back whole, so trying again is safe.
      const std::string blocker = e.context().value("blockedBy", "another session");
      if (attempt > retries) {
        nlohmann::json context = e.context();
        context["tries"] = attempt;
        throw MigrationLockTimeoutError(
            fmt::format("{} could not get its locks in {} tries of {} ms; blocked by {}", name,
                        attempt, execution.lock_timeout.count(), blocker),
            context);
      }
      const milliseconds pause = lock_retry_pause(attempt);
      env_.logger.warn(fmt::format(
          "{}: lock timeout after {} ms (try {} of {}), blocked by {}; "
          "rolled back, trying again in {} ms",
          name, execution.lock_timeout.count(), attempt, retries + 1, blocker, pause.count()));
      if (env_.clock->sleep_for(pause, env_.stop.token()) == false) throw;
      if (env_.lease) env_.lease->renew_now();
      if (env_.stop.requested()) throw;
    }
  }
}

void Runner::fail(Direction direction, const Migration& migration, std::int64_t batch,
                  const Error& error, const HookInfo& info) {
  const std::string message = redact(error.what());
  if (env_.hooks.on_error) {
    try {
      env_.hooks.on_error(migration.name, error, info);
    } catch (const std::exception& e) {
      env_.logger.warn(fmt::format("onError hook failed: {}", redact(e.what())));
    }
  }
  if (direction == Direction::kUp) {
    try {
      // Fenced: once the lock is lost, only a record the lock still vouches for is written.
      env_.store.write_record(failed_record(migration, batch, message, env_.stamp),
                              env_.lease ? &env_.lease->token() : nullptr);
    } catch (const std::exception& e) {
      env_.logger.warn(
          fmt::format("Could not record the failure of {}: {}", migration.name, redact(e.what())));
    }
  }
  env_.emit({"migration:error",
             {{"migration", migration.name},
              {"direction", direction_name(direction)},
              {"batch", batch},
              {"error", message}}});
  nlohmann::json context = error.context();
  context["migration"] = migration.name;
  context["direction"] = direction_name(direction);
  if (error.code() == ErrorCode::kMigrationExecutionFailed) {
    context["error"] = message;
    throw MigrationExecutionFailedError(
        fmt::format("Migration {} failed: {}", migration.name, message), context);
  }
  throw_typed(Error(error.code(), message, context));
}

}  // namespace migronaut

#include "core/runner.hpp"

#include <atomic>
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

}  // namespace

void call_hook(const char* hook, const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& e) {
    throw HookFailedError(fmt::format("Hook {} failed: {}", hook, redact(e.what())),
                          {{"hook", hook}, {"error", redact(e.what())}});
  }
}

bool Runner::transactional(const Migration& migration) const {
  return migration.transactional.value_or(
      env_.config.use_transaction.value_or(backend_for(env_.config.uri).transactions_by_default));
}

void Runner::run(Direction direction, const std::vector<const PlanEntry*>& targets,
                 std::int64_t batch, std::vector<RunResult>& results) {
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
    results.push_back(run_one(direction, migration, batch, info));
  }
}

RunResult Runner::run_one(Direction direction, const Migration& migration, std::int64_t batch,
                          const HookInfo& info) {
  if (env_.hooks.before_each) {
    call_hook("beforeEach", [&] { env_.hooks.before_each(migration.name, info); });
  }
  const nlohmann::json subject = {
      {"migration", migration.name}, {"direction", direction_name(direction)}, {"batch", batch}};
  env_.emit({"migration:start", subject});

  const bool up = direction == Direction::kUp;
  const Work& work = up ? migration.up : *migration.down;
  const bool in_transaction = transactional(migration);
  const RecordWrite record = up ? applied_record(migration, batch, env_.stamp)
                                : reverted_record(migration.name, env_.stamp);
  if (up && !in_transaction) {
    env_.store.write_record(applying_record(migration, batch, env_.stamp));
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
    const LockToken* fence = env_.lease ? &env_.lease->token() : nullptr;
    env_.store.execute(Execution{.work = &work,
                                 .transactional = in_transaction,
                                 .record = &record,
                                 .fence = fence,
                                 .context = &context});
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
      fmt::format("{} {} ({} ms)", up ? "applied" : "reverted", migration.name, duration));
  if (env_.hooks.after_each) {
    call_hook("afterEach", [&] { env_.hooks.after_each(migration.name, duration, info); });
  }
  return RunResult{migration.name, up ? "applied" : "reverted", duration, batch, ""};
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
      env_.store.write_record(failed_record(migration, batch, message, env_.stamp));
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

#include "core/runner.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <random>
#include <thread>

#include "core/lock_wait.hpp"
#include "fmt/format.h"
#include "source/migration_set.hpp"
#include "source/sql_file.hpp"
#include "store/execution.hpp"
#include "store/registry.hpp"
#include "util/redact.hpp"

namespace migronaut {
namespace {

using std::chrono::milliseconds;

// How often a run looks again for a dead run's sessions, and tells that it still waits.
constexpr milliseconds kDeadRunPoll{200};
constexpr milliseconds kDeadRunReport{10'000};

// The marks a migration outside a transaction leaves while it runs: a crash leaves them.
bool is_mark(RecordStatus status) {
  return status == RecordStatus::kApplying || status == RecordStatus::kReverting;
}

// Each session on a line of its own, for a log line or an error.
std::string listed(const std::vector<std::string>& sessions) {
  std::string text;
  for (const std::string& session : sessions) text += "\n  " + session;
  return text;
}

// What a run reports when a dead run's sessions outlast its wait (Runner::wait_out_dead_run).
MigrationBlockedError dead_run_blocks(std::string_view name, const ChangelogRecord& mark,
                                      milliseconds waited, const LeftSessions& left) {
  return MigrationBlockedError(
      fmt::format("{} was interrupted, and run {} still runs it after {} ms:{}\nEnd those "
                  "sessions or let them finish, then run the command again",
                  name, mark.run_id.substr(0, 8), waited.count(), listed(left.sessions)),
      {{"migration", std::string(name)}, {"runId", mark.run_id}, {"sessions", left.sessions}});
}

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

// With the error the cancelled statement failed with, `cause`: outside a transaction it says
// what ran before it and stays applied (statementsApplied), which the timeout must not hide.
MigrationTimeoutError timeout_error(const std::string& migration, milliseconds timeout,
                                    const Error* cause = nullptr) {
  nlohmann::json context = {{"migration", migration}, {"timeoutMs", timeout.count()}};
  std::string message =
      fmt::format("Migration {} exceeded its timeout of {} ms", migration, timeout.count());
  // A body past its deadline fails with this error itself (work_within()).
  if (cause != nullptr && cause->code() == ErrorCode::kMigrationTimeout) {
    return MigrationTimeoutError(cause->what(), cause->context());
  }
  if (cause != nullptr) {
    message += fmt::format(": {}", redact(cause->what()));
    if (cause->context().is_object()) {
      for (const auto& [key, value] : cause->context().items()) context.emplace(key, value);
    }
  }
  return MigrationTimeoutError(message, std::move(context));
}

// Runs a caller's body. An Error of migronaut's type it throws (a call into the library, a type
// reused) is the migration's failure, as any exception of the body's is: not the run's lost
// lock or connection, nor a bad configuration, which would leave no record of the failure.
// Its context is kept (a MongoDB transient label still retries the transaction).
void run_callers_body(const MigrationBody& body, MigrationContext& context) {
  try {
    body(context);
  } catch (const MigrationExecutionFailedError&) {
    throw;
  } catch (const Error& e) {
    nlohmann::json details = e.context().is_object() ? e.context() : nlohmann::json::object();
    details["thrown"] = e.code_name();
    throw MigrationExecutionFailedError(e.what(), std::move(details));
  }
}

// The work to run: a body runs through run_callers_body(), and in a transaction with a
// timeout, one that returns after its deadline ignored the stop fails there, so that its work
// rolls back as an interrupted statement's does instead of committing a migration the run then
// reports as timed out. `wrapped` keeps the wrapper.
const Work* work_within(const Work& work, bool in_transaction,
                        const std::optional<milliseconds>& timeout, const Watchdog& watchdog,
                        const std::string& name, std::optional<Work>& wrapped) {
  const auto* body = std::get_if<MigrationBody>(&work);
  if (body == nullptr) return &work;
  const bool bounded = timeout && in_transaction;
  wrapped = MigrationBody([body, &watchdog, name, timeout, bounded](MigrationContext& context) {
    run_callers_body(*body, context);
    if (bounded && watchdog.fired()) throw timeout_error(name, *timeout);
  });
  return &*wrapped;
}

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
  bool enabled(Level level) const override { return sink_.enabled(level); }

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
  } catch (...) {
    throw HookFailedError(fmt::format("Hook {} failed: {}", hook, kNotAnException),
                          {{"hook", hook}, {"error", kNotAnException}});
  }
}

const Script* script_of(const Migration& migration, Direction direction) {
  const Work* work =
      direction == Direction::kUp ? &migration.up : (migration.down ? &*migration.down : nullptr);
  return work ? std::get_if<Script>(work) : nullptr;
}

bool runs_in_transaction(const Migration& migration, Direction direction, bool by_config,
                         const std::function<bool(const Script&)>& runs_outside) {
  const std::optional<bool> own = migration.options_for(direction).transactional;
  if (own) return *own;
  if (!by_config) return false;
  // Another tool's plain file cannot say transaction:false; its statements say it, as Flyway
  // reads them. An explicit useTransaction: true is the default they override, as Flyway's
  // executeInTransaction is: in a transaction such a file could not run at all.
  const Script* script = script_of(migration, direction);
  return !(script && script->plain_file && runs_outside(*script));
}

bool runs_in_transaction(const Store& store, const Config& config, const Migration& migration,
                         Direction direction) {
  return runs_in_transaction(
      migration, direction,
      config.use_transaction.value_or(backend_for(config.uri).transactions_by_default),
      [&store](const Script& script) { return store.runs_outside_transaction(script); });
}

namespace {

// What runs a section without a transaction when its marker does not say so.
std::string untransacted_by(const Config& config) {
  if (config.use_transaction) return "when useTransaction is false in the config";
  return fmt::format("on {}, which runs migrations without a transaction",
                     backend_for(config.uri).kind);
}

// A timeout (not off) of a section that runs without a transaction would be dropped silently.
// The file's own transaction:false is refused as the file is read, naming its line; the config
// and the backend are known only here.
void refuse_untransacted_timeouts(const Config& config, const Migration& migration,
                                  Direction direction) {
  const RunOptions& options = migration.options_for(direction);
  for (const auto& [name, timeout] : {std::pair{"lock_timeout", options.lock_timeout},
                                      std::pair{"statement_timeout", options.statement_timeout}}) {
    if (timeout.value_or(milliseconds(0)) <= milliseconds(0)) continue;
    const std::string reason = untransacted_timeout_reason(
        fmt::format("{}:{}ms", name, timeout->count()), untransacted_by(config));
    throw MigrationInvalidFormatError(
        fmt::format("Invalid migration {}, {} section: {}", migration.file_for(direction),
                    direction_name(direction), reason),
        {{"file", migration.file_for(direction)}, {"reason", reason}});
  }
}

}  // namespace

void ScriptChecks::check(const Store& store, const Config& config, Direction direction,
                         const std::vector<const PlanEntry*>& targets) {
  for (const PlanEntry* target : targets) {
    const Migration& migration = *target->migration;
    if (in_transaction_.contains({&migration, direction})) continue;
    const bool in_transaction = runs_in_transaction(store, config, migration, direction);
    if (!in_transaction) refuse_untransacted_timeouts(config, migration, direction);
    if (const Script* script = script_of(migration, direction)) {
      if (config.flyway_placeholders == FlywayPlaceholders::kRefuse) {
        refuse_flyway_placeholders(migration.file_for(direction), *script);
      }
      store.check_script(migration.file_for(direction), *script, in_transaction);
    }
    in_transaction_.emplace(std::pair{&migration, direction}, in_transaction);  // once it passed
  }
}

void Runner::run(Direction direction, const std::vector<const PlanEntry*>& targets,
                 std::int64_t batch, std::vector<RunResult>& results) {
  check(direction, targets);
  env_.store.tag_sessions(env_.stamp.run_id);
  bool all_fenced = true;  // every migration so far committed in a transaction fenced on the lock
  announced_after_renewals_.reset();
  const auto progress_of = [&](std::size_t i) {
    return LockProgress{targets[i]->migration->name, static_cast<std::int64_t>(i + 1),
                        static_cast<std::int64_t>(targets.size())};
  };
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Migration& migration = *targets[i]->migration;
    const Step step{.direction = direction,
                    .migration = migration,
                    // A revert reports the batch the migration was applied in.
                    .batch = direction == Direction::kUp ? batch : targets[i]->record->batch,
                    .info = {env_.stamp.run_id, direction, i, targets.size()},
                    .progress = progress_of(i),
                    .commit_progress = progress_of(i + 1 < targets.size() ? i + 1 : i),
                    .in_transaction = env_.checks.in_transaction(migration, direction)};
    report_progress(step);
    // Between migrations is the only safe point: the previous one committed, the next has not
    // started.
    if (env_.stop.requested()) env_.stop.throw_reason(results, targets.size() - i);
    wait_out_dead_run(*targets[i]);
    announce(direction, *targets[i], step.info);
    try {
      results.push_back(run_one(step));
    } catch (...) {
      // A migration that failed because the run was told to stop (its body saw the stop
      // token) ends the run with the stop's own reason.
      if (env_.stop.requested()) env_.stop.throw_reason(results, targets.size() - i);
      throw;
    }
    all_fenced = all_fenced && env_.lease && step.in_transaction;
  }
  finish(all_fenced, results);
}

void Runner::report_progress(const Step& step) {
  if (!env_.lease) return;
  // Only a transactional migration may skip the renewal: its fence checks the lock at commit.
  const bool folded = step.in_transaction && env_.store.fence_records_progress();
  const bool maybe_announced = step.in_transaction && announced_after_renewals_;
  if (folded || maybe_announced) {
    env_.lease->note_progress(step.progress);
    // Counted after the progress is recorded: a renewal sent from here on carries it.
    if (folded || env_.lease->renewals().started == *announced_after_renewals_) {
      // No renewal to learn of a loss from: a loss deadline passed meanwhile stops the run here,
      // and a reclaim the deadline cannot see is refused by the fence, which rolls back.
      env_.lease->held();
      return;
    }
  }
  // Renewing now also tells a lock lost meanwhile.
  env_.lease->set_progress(step.progress);
}

void Runner::lock_lost(const LockLostError& error) {
  env_.stop.request(error);
  if (env_.lease) env_.lease->lose(error.what());
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

// Only under the lock: it proves the run that left the mark no longer holds it (--no-lock
// proves nothing, and ending a live run's work is not for a development shortcut).
void Runner::wait_out_dead_run(const PlanEntry& entry) {
  const ChangelogRecord* mark = entry.record;
  if (!env_.lease || !mark || !is_mark(mark->status)) return;
  if (mark->run_id.empty() || mark->run_id == env_.stamp.run_id) return;
  const milliseconds bound(
      env_.config.lock_wait_timeout_ms.value_or(kDefaultLockWaitTimeout.count()));
  const auto deadline = env_.clock->now() + bound;
  auto report_at = env_.clock->now();
  for (LeftSessions left = env_.store.end_sessions_of(mark->run_id); !left.sessions.empty();
       left = env_.store.end_sessions_of(mark->run_id)) {
    if (env_.clock->now() >= deadline) throw dead_run_blocks(entry.name, *mark, bound, left);
    if (env_.clock->now() >= report_at) {
      env_.logger.warn(fmt::format(
          "{}: the interrupted run {} still runs it; {} before re-running it:{}", entry.name,
          mark->run_id.substr(0, 8),
          left.ending
              ? "ended its sessions, waiting for them to go"
              : fmt::format("not allowed to end them, waiting at most {} ms", bound.count()),
          listed(left.sessions)));
      report_at = env_.clock->now() + kDeadRunReport;
    }
    if (!env_.clock->sleep_for(kDeadRunPoll, env_.stop.token())) {
      env_.stop.throw_reason(nlohmann::json::array());
    }
  }
}

void Runner::announce(Direction direction, const PlanEntry& entry, const HookInfo& info) {
  const bool up = direction == Direction::kUp;
  if (entry.record && is_mark(entry.record->status)) {
    // A down that fails outside a transaction leaves its mark too; an up's failure is recorded.
    env_.logger.warn(fmt::format(
        "re-running {}{}: a previous run {} it (it left {} mark)", up ? "" : "the down of ",
        entry.name, up ? "was interrupted while applying" : "failed or was stopped while reverting",
        up ? "an `applying`" : "a `reverting`"));
  }
  env_.logger.info(fmt::format("{} {} ({}/{})…", up ? "applying" : "reverting", entry.name,
                               info.index + 1, info.total));
}

// Logged once nothing can stop the body any more, so "sending" means it is on its way.
void Runner::log_statements(const Step& step) {
  if (!env_.logger.enabled(Logger::Level::kDebug)) return;
  const Migration& migration = step.migration;
  if (const Script* script = script_of(migration, step.direction)) {
    for (const std::string& statement : env_.store.statements_of(*script)) {
      env_.logger.debug(fmt::format("sending {}: {}", migration.name, one_line(statement, 200)));
    }
  }
}

RunResult Runner::run_one(const Step& step) {
  start(step);
  const LockToken* fence = env_.lease ? &env_.lease->token() : nullptr;
  check_stop();
  if (!step.in_transaction) {
    try {
      env_.store.write_record(step.direction == Direction::kUp
                                  ? applying_record(step.migration, step.batch, env_.stamp)
                                  : reverting_record(step.migration.name, env_.stamp),
                              fence);
    } catch (const LockLostError& e) {
      lock_lost(e);  // the fenced mark found another run's lock: the body never starts
      throw;
    }
  }
  log_statements(step);
  const auto started = env_.clock->now();
  execute(step, fence);
  return succeed(step,
                 std::chrono::duration_cast<milliseconds>(env_.clock->now() - started).count());
}

void Runner::start(const Step& step) {
  if (env_.hooks.before_each) {
    call_hook("beforeEach", [&] { env_.hooks.before_each(step.migration.name, step.info); });
  }
  env_.emit({"migration:start",
             {{"migration", step.migration.name},
              {"direction", direction_name(step.direction)},
              {"batch", step.batch},
              {"step", step.info.index + 1},
              {"total", step.info.total}}});
}

std::optional<milliseconds> Runner::timeout_of(const Migration& migration) const {
  if (migration.timeout) return migration.timeout;
  if (env_.config.timeout_ms) return milliseconds(*env_.config.timeout_ms);
  return std::nullopt;
}

std::function<bool()> Runner::still_held(const Step& step) const {
  // A fenced commit suffices in a transaction; onLockLost: warn carries on after a loss.
  if (env_.lease == nullptr || step.in_transaction ||
      env_.config.on_lock_lost != OnLockLost::kAbort) {
    return nullptr;
  }
  return [lease = env_.lease] { return lease->held(); };
}

void Runner::execute(const Step& step, const LockToken* fence) {
  const Migration& migration = step.migration;
  const RunOptions& options = migration.options_for(step.direction);
  const bool up = step.direction == Direction::kUp;
  const RecordWrite record = up ? applied_record(migration, step.batch, env_.stamp)
                                : reverted_record(migration.name, env_.stamp);
  std::stop_source body_stop;
  std::stop_callback forward_run_stop(env_.stop.token(), [&] { body_stop.request_stop(); });
  MigrationLogger logger(env_.logger, migration.name);
  MigrationContext context{
      .run = {env_.stamp.run_id, step.direction, migration.name, step.batch, 1},
      .stop = body_stop.get_token(),
      .logger = logger,
      .handle = {}};
  const std::optional<milliseconds> timeout = timeout_of(migration);
  bool timed_out = false;
  bool stopped_between_tries = false;
  announced_after_renewals_.reset();
  const Heartbeat::Renewals renewals_before =
      env_.lease ? env_.lease->renewals() : Heartbeat::Renewals{};
  std::optional<Work> wrapped;
  try {
    Watchdog watchdog(*env_.clock, timeout, body_stop, env_.store);
    MigrationWriting writing(env_.lease, step.in_transaction);
    stopped_between_tries = !execute_with_lock_retries(
        Execution{.work = work_within(up ? migration.up : *migration.down, step.in_transaction,
                                      timeout, watchdog, migration.name, wrapped),
                  .transactional = step.in_transaction,
                  .record = &record,
                  .fence = fence,
                  .progress = fence ? &step.commit_progress : nullptr,
                  .context = &context,
                  .lock_timeout =
                      options.lock_timeout.value_or(milliseconds(env_.config.lock_timeout_ms)),
                  .statement_timeout = options.statement_timeout.value_or(milliseconds(0)),
                  .time_limit = timeout,
                  .still_held = still_held(step)},
        migration.name);
    timed_out = watchdog.fired();
    if (fence != nullptr && step.in_transaction &&
        renewals_before.started == renewals_before.finished) {
      announced_after_renewals_ = renewals_before.started;
    }
  } catch (const LockLostError& e) {
    // Fencing refused the commit: nothing was written, and nothing more may be.
    lock_lost(e);
    throw;
  } catch (const ConnectionFailedError&) {
    // A run that took the lock over ends a dead-looking holder's session: if the lock is no
    // longer ours, that, not the network, is what happened.
    if (env_.lease) {
      env_.lease->renew_now();
      if (!env_.lease->held() && env_.stop.reason_code() == ErrorCode::kLockLost) {
        env_.stop.throw_reason(nlohmann::json::array());
      }
    }
    throw;
  } catch (const Error& e) {
    if (timeout && body_stop.stop_requested() && !env_.stop.requested()) {
      fail(step, timeout_error(migration.name, *timeout, &e));
    }
    // Stopped by the run (a graceful stop, a lost lock) inside its transaction, the body rolled
    // back whole: an abort, not a failure, so the migration stays as it was.
    if (step.in_transaction && env_.stop.requested()) {
      env_.logger.warn(
          fmt::format("{} rolled back as the run stopped: {}", migration.name, redact(e.what())));
      env_.stop.throw_reason(nlohmann::json::array());
    }
    fail(step, e);
  } catch (const std::exception& e) {
    fail(step, MigrationExecutionFailedError(redact(e.what()), {{"migration", migration.name}}));
  }
  // Every try rolled back whole: an abort, not a failure, so the migration stays as it was.
  if (stopped_between_tries) env_.stop.throw_reason(nlohmann::json::array());
  // The body finished, but past its deadline: its effects are committed, so the run stops here
  // instead of going on late.
  if (timed_out) env_.stop.request(timeout_error(migration.name, *timeout));
}

RunResult Runner::succeed(const Step& step, std::int64_t duration_ms) {
  const bool up = step.direction == Direction::kUp;
  const std::string& name = step.migration.name;
  env_.emit({"migration:success",
             {{"migration", name},
              {"direction", direction_name(step.direction)},
              {"batch", step.batch},
              {"durationMs", duration_ms}}});
  env_.logger.info(fmt::format("{} {} in {} ms", up ? "applied" : "reverted", name, duration_ms));
  if (env_.hooks.after_each) {
    call_hook("afterEach", [&] { env_.hooks.after_each(name, duration_ms, step.info); });
  }
  return RunResult{name, up ? "applied" : "reverted", duration_ms, step.batch, ""};
}

bool Runner::execute_with_lock_retries(const Execution& execution, const std::string& name) {
  const std::int64_t retries = env_.config.lock_retries;
  for (std::int64_t attempt = 1;; ++attempt) {
    try {
      env_.store.execute(execution);
      return true;
    } catch (const MigrationLockTimeoutError& e) {
      // Outside a transaction the statements before the one that timed out stay done (a
      // lock_timeout the role or the URI sets reaches them too): trying again would repeat them.
      if (!execution.transactional) throw;
      // The transaction rolled back whole, so trying again is safe, and so is stopping: a stop
      // asked for during the try needs no more tries.
      if (env_.stop.requested()) return false;
      const std::string blocker = e.context().value("blockedBy", "another session");
      if (attempt > retries) {
        nlohmann::json context = e.context();
        context["tries"] = attempt;
        throw MigrationLockTimeoutError(
            fmt::format("{} could not get its locks in {} {} of {} ms; blocked by {}", name,
                        attempt, attempt == 1 ? "try" : "tries", execution.lock_timeout.count(),
                        blocker),
            context);
      }
      const milliseconds pause = lock_retry_pause(attempt);
      env_.logger.warn(fmt::format(
          "{}: lock timeout after {} ms (try {} of {}), blocked by {}; "
          "rolled back, trying again in {} ms",
          name, execution.lock_timeout.count(), attempt, retries + 1, blocker, pause.count()));
      if (!env_.clock->sleep_for(pause, env_.stop.token())) return false;
      if (env_.lease) env_.lease->renew_now();
      if (env_.stop.requested()) return false;
    }
  }
}

void Runner::fail(const Step& step, const Error& error) {
  const Migration& migration = step.migration;
  const Direction direction = step.direction;
  const std::int64_t batch = step.batch;
  const std::string message = redact(error.what());
  if (env_.hooks.on_error) {
    try {
      env_.hooks.on_error(migration.name, error, step.info);
    } catch (const std::exception& e) {
      env_.logger.warn(fmt::format("onError hook failed: {}", redact(e.what())));
    }
  }
  // A transactional down rolled back whole: its record stays applied, and says nothing.
  if (direction == Direction::kUp || !step.in_transaction) {
    try {
      // Fenced: once the lock is lost, only a record the lock still vouches for is written.
      env_.store.write_record(direction == Direction::kUp
                                  ? failed_record(migration, batch, message, env_.stamp)
                                  : failed_revert_record(migration.name, message, env_.stamp),
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
    // A down of its own file (golang-migrate, Flyway undo): the line the failure names is there.
    const std::string& file = migration.file_for(direction);
    std::string where;
    if (file != migration.name) {
      context["file"] = file;
      where = " in " + file;
    }
    throw MigrationExecutionFailedError(
        fmt::format("Migration {} failed{}: {}", migration.name, where, message), context);
  }
  throw_typed(Error(error.code(), message, context));
}

}  // namespace migronaut

#include "migronaut/migrator.hpp"

#include <mutex>

#include "core/audit.hpp"
#include "core/changelog.hpp"
#include "core/heartbeat.hpp"
#include "core/import_plan.hpp"
#include "core/lease.hpp"
#include "core/lock_wait.hpp"
#include "core/log.hpp"
#include "core/plan.hpp"
#include "core/runner.hpp"
#include "fmt/format.h"
#include "store/registry.hpp"
#include "util/ids.hpp"
#include "util/redact.hpp"

namespace migronaut {

using std::chrono::milliseconds;

struct Migrator::Impl {
  Config config;
  MigratorOptions options;
  std::shared_ptr<Logger> logger;
  std::unique_ptr<Store> store;
  // The lock's own connection: the heartbeat renews on it while a migration runs on `store`.
  std::unique_ptr<Store> lock_store;

  std::mutex stop_mutex;
  RunStop* current_run = nullptr;
  std::optional<std::string> pending_stop;  // a stop that came before the run reached its lock

  Impl(Config c, MigratorOptions o)
      : config(std::move(c)),
        options(std::move(o)),
        logger(options.logger ? options.logger : std::make_shared<SpdlogLogger>()) {}

  bool empty_reported = false;

  // The connection for reading: it creates nothing, not even a missing SQLite file.
  Store& reader() {
    if (store) return *store;
    store = open_store(config, {.access = Access::kRead, .statement_bound = std::nullopt});
    if (const auto missing = store->missing_database()) {
      logger->warn(fmt::format(
          "The database {} does not exist: nothing is applied yet (`migronaut up` creates it)",
          *missing));
    }
    return *store;
  }
  // The connection for writing, reopened when the one for reading cannot write.
  Store& writer() {
    if (!store || !store->writable()) store = open_store(config);
    return *store;
  }
  Store& lock_connection() {
    if (!lock_store) {
      lock_store = open_store(
          config,
          {.statement_bound = Heartbeat::statement_bound_for(milliseconds(config.lock_ttl_ms()))});
    }
    return *lock_store;
  }

  void emit(const Event& event) {
    for (const EventListener& listener : options.listeners) {
      try {
        listener(event);
      } catch (...) {
        // A listener reports; it never breaks a run.
      }
    }
  }

  std::vector<Migration> load() {
    std::vector<Migration> migrations = load_migrations(
        config.migrations_dir, backend_for(config.uri).script_extension, options.migrations);
    if (migrations.empty() && !empty_reported) {
      logger->warn(fmt::format("No migrations in {}", config.migrations_dir.string()));
      empty_reported = true;
    }
    return migrations;
  }

  Plan read_plan(const std::vector<Migration>& migrations) {
    return make_plan(migrations, reader().read_changelog());
  }

  // Records each renamed migration under its new name (the next locked run's job), so the
  // changelog follows the folder.
  void record_renames(const std::vector<Migration>& migrations, const std::string& run_id) {
    for (const PlanEntry& entry : read_plan(migrations).entries) {
      if (entry.renamed_from.empty()) continue;
      logger->info(fmt::format("{} is {} renamed: recorded under its new name", entry.name,
                               entry.renamed_from));
      writer().write_record(renamed_record(*entry.record, entry.name, stamp(run_id)));
    }
  }

  void warn_about(const UpSelection& selection) {
    for (const PlanEntry* entry : selection.drifted) {
      logger->warn(
          fmt::format("{} changed since it was applied (checksum mismatch): skipped", entry->name));
    }
    if (config.on_out_of_order == OnOutOfOrder::kWarn) {
      for (const PlanEntry* entry : selection.out_of_order) {
        logger->warn(
            fmt::format("{} is applied out of order: it sorts before the newest "
                        "applied migration",
                        entry->name));
      }
    }
  }

  RecordStamp stamp(const std::string& run_id, const std::string& requested_by = "",
                    const std::string& reason = "") const {
    return RecordStamp{run_id, config.environment, config.executed_by, requested_by, reason};
  }

  Runner runner(RunStop& stop, Lease* lease, RecordStamp stamp) {
    return Runner({.store = writer(),
                   .config = config,
                   .stop = stop,
                   .lease = lease,
                   .stamp = std::move(stamp),
                   .logger = *logger,
                   .hooks = options.hooks,
                   .emit = [this](const Event& e) { emit(e); }});
  }

  // One run under the lock (or, with no_lock, without it): run:start/run:end, beforeAll and
  // afterAll (always), the lease and its release. `work` appends to the results as it goes.
  using Work = std::function<void(RunStop&, Lease*, const std::string& run_id,
                                  std::vector<RunResult>& results)>;
  // Runs `step`, marking a connection failure in it as one before the lock (kBeforeLockKey):
  // a waiting run waits such a failure out.
  template <typename Step>
  static void before_lock(const Step& step) {
    try {
      step();
    } catch (ConnectionFailedError& error) {
      if (error.context().is_object()) error.context()[kBeforeLockKey] = true;
      throw;
    }
  }
  std::vector<RunResult> locked_run(const char* command, Direction direction, bool no_lock,
                                    const Work& work);
};

std::vector<RunResult> Migrator::Impl::locked_run(const char* command, Direction direction,
                                                  bool no_lock, const Work& work) {
  RunStop stop;
  {
    std::lock_guard lock(stop_mutex);
    if (pending_stop) stop.request(RunAbortedError(*pending_stop));
    current_run = &stop;
  }
  struct ClearCurrent {
    Impl& impl;
    ~ClearCurrent() {
      std::lock_guard lock(impl.stop_mutex);
      impl.current_run = nullptr;
      impl.pending_stop.reset();
    }
  } clear_current{*this};

  const std::string run_id = new_run_id();
  const auto emit_fn = [this](const Event& event) { emit(event); };
  const auto started = Clock::real().now();
  std::unique_ptr<Lease> lease;
  before_lock([&] {
    writer().ensure_schema();
    if (no_lock) {
      logger->warn("Running WITHOUT the migration lock (--no-lock): for development only");
      emit({"lock:acquired", {{"owner", run_id}, {"skipped", true}}});
      return;
    }
    if (stop.requested()) stop.throw_reason(nlohmann::json::array());
    lease = Lease::acquire(lock_connection(), stop,
                           LeaseOptions{.run_id = run_id,
                                        .ttl = milliseconds(config.lock_ttl_ms()),
                                        .executed_by = config.executed_by,
                                        .on_lock_lost = config.on_lock_lost,
                                        .logger = logger.get(),
                                        .emit = emit_fn});
  });
  // A run starts once it holds the lock: a refused attempt (a waiter's poll) is no run.
  emit({"run:start",
        {{"runId", run_id}, {"command", command}, {"direction", direction_name(direction)}}});

  std::vector<RunResult> results;
  const HookInfo info{run_id, direction, 0, 0};
  const auto end = [&](bool success, const std::string& error) {
    const auto duration =
        std::chrono::duration_cast<milliseconds>(Clock::real().now() - started).count();
    nlohmann::json data = {{"runId", run_id},
                           {"command", command},
                           {"success", success},
                           {"durationMs", duration},
                           {"results", results}};
    if (!error.empty()) data["error"] = error;
    emit({"run:end", data});
  };

  std::exception_ptr failure;
  try {
    if (options.hooks.before_all) call_hook("beforeAll", [&] { options.hooks.before_all(info); });
    work(stop, lease.get(), run_id, results);
  } catch (...) {
    failure = std::current_exception();
  }
  if (options.hooks.after_all) {
    if (!failure) {
      try {
        call_hook("afterAll", [&] { options.hooks.after_all(info, true, results); });
      } catch (...) {
        failure = std::current_exception();
      }
    } else {
      // afterAll always runs, but after a failure it must not replace the run's own error.
      try {
        options.hooks.after_all(info, false, results);
      } catch (const std::exception& e) {
        logger->warn(fmt::format("afterAll hook failed: {}", redact(e.what())));
      }
    }
  }
  if (failure) {
    // A release failure never hides the run's own error.
    if (lease) {
      try {
        lease->release();
      } catch (const std::exception& e) {
        logger->warn(fmt::format("Failed to release the migration lock: {}", e.what()));
      }
    }
    try {
      std::rethrow_exception(failure);
    } catch (Error& error) {
      if (!error.context().contains("results")) error.context()["results"] = results;
      end(false, error.what());
      throw;
    } catch (const std::exception& error) {
      end(false, error.what());
      throw;
    }
  }
  if (lease) {
    try {
      lease->release();
    } catch (Error& error) {
      // Everything applied; only the clean-up failed (the record heals through its TTL).
      error.context()["results"] = results;
      end(false, error.what());
      throw;
    }
  } else {
    emit({"lock:released", {{"early", false}, {"skipped", true}}});
  }
  logger->info(
      fmt::format("Done: {} migration(s) in {} ms", results.size(),
                  std::chrono::duration_cast<milliseconds>(Clock::real().now() - started).count()));
  end(true, "");
  return results;
}

Migrator::Migrator(Config config, MigratorOptions options) {
  // A Config built in code gets the checks a config file gets, before anything connects.
  validate_config(config);
  remember_secrets(config.uri);
  impl_ = std::make_unique<Impl>(std::move(config), std::move(options));
}

Migrator::~Migrator() = default;

const Config& Migrator::config() const { return impl_->config; }

void Migrator::connect() { impl_->reader(); }

void Migrator::disconnect() {
  impl_->lock_store.reset();
  impl_->store.reset();
}

void Migrator::stop(const std::string& reason) {
  std::lock_guard lock(impl_->stop_mutex);
  if (impl_->current_run != nullptr) {
    impl_->current_run->request(RunAbortedError(reason));
  } else {
    impl_->pending_stop = reason;
  }
}

std::vector<RunResult> Migrator::up(const UpOptions& options) {
  std::vector<Migration> migrations;
  bool pending = false;
  Impl::before_lock([&] {
    migrations = impl_->load();
    // The boot check: one read, and no lock when nothing is pending.
    const Plan plan = impl_->read_plan(migrations);
    const UpSelection selection = select_up(plan, options, impl_->config);
    pending = !selection.targets.empty();
    if (!pending) {
      impl_->warn_about(selection);
      return;
    }
    check_scripts(impl_->reader(), impl_->config, Direction::kUp, selection.targets);
    plan.next_batch();  // an exhausted batch counter is refused before the lock is taken
  });
  if (!pending) return {};
  return impl_->locked_run(
      "up", Direction::kUp, options.no_lock,
      [&](RunStop& stop, Lease* lease, const std::string& run_id, std::vector<RunResult>& results) {
        impl_->record_renames(migrations, run_id);
        // Under the lock, read again: a peer may have applied some while we waited.
        const Plan plan = impl_->read_plan(migrations);
        const UpSelection selection = select_up(plan, options, impl_->config);
        impl_->warn_about(selection);
        Runner runner =
            impl_->runner(stop, lease, impl_->stamp(run_id, options.requested_by, options.reason));
        runner.run(Direction::kUp, selection.targets, plan.next_batch(), results);
      });
}

std::vector<RunResult> Migrator::down(const DownOptions& options) {
  const std::vector<Migration> migrations = impl_->load();
  // Validate the selection before taking the lock, so bad input fails without touching it.
  const Plan boot_plan = impl_->read_plan(migrations);
  const std::vector<const PlanEntry*> boot_targets = select_down(boot_plan, options);
  if (boot_targets.empty()) return {};
  check_scripts(impl_->reader(), impl_->config, Direction::kDown, boot_targets);
  return impl_->locked_run(
      "down", Direction::kDown, options.no_lock,
      [&](RunStop& stop, Lease* lease, const std::string& run_id, std::vector<RunResult>& results) {
        impl_->record_renames(migrations, run_id);
        const Plan plan = impl_->read_plan(migrations);
        Runner runner =
            impl_->runner(stop, lease, impl_->stamp(run_id, options.requested_by, options.reason));
        runner.run(Direction::kDown, select_down(plan, options), 0, results);
      });
}

std::vector<RunResult> Migrator::redo(const std::optional<std::string>& file) {
  const std::vector<Migration> migrations = impl_->load();
  DownOptions down_options;
  down_options.file = file;
  if (!file) down_options.steps = 1;
  const Plan boot_plan = impl_->read_plan(migrations);
  const std::vector<const PlanEntry*> boot_targets = select_down(boot_plan, down_options);
  if (boot_targets.empty()) throw NotAppliedError("Nothing is applied: nothing to redo");
  check_scripts(impl_->reader(), impl_->config, Direction::kDown, boot_targets);
  check_scripts(impl_->reader(), impl_->config, Direction::kUp, boot_targets);
  // Both directions under one lock, the target resolved inside it.
  return impl_->locked_run(
      "redo", Direction::kDown, false,
      [&](RunStop& stop, Lease* lease, const std::string& run_id, std::vector<RunResult>& results) {
        impl_->record_renames(migrations, run_id);
        Runner runner = impl_->runner(stop, lease, impl_->stamp(run_id));
        const Plan before = impl_->read_plan(migrations);
        const std::vector<const PlanEntry*> targets = select_down(before, down_options);
        runner.run(Direction::kDown, targets, 0, results);
        const Plan after = impl_->read_plan(migrations);
        UpOptions again_options;
        again_options.file = targets.front()->name;
        const UpSelection again = select_up(after, again_options, impl_->config);
        runner.run(Direction::kUp, again.targets, after.next_batch(), results);
      });
}

std::vector<StatusRow> Migrator::status() {
  const std::vector<Migration> migrations = impl_->load();
  const Plan plan = impl_->read_plan(migrations);
  std::vector<StatusRow> rows;
  rows.reserve(plan.entries.size());
  for (const PlanEntry& entry : plan.entries) rows.push_back(status_row(entry));
  return rows;
}

namespace {

std::string script_text(const Work& work) {
  const Script* script = std::get_if<Script>(&work);
  return script != nullptr ? script->text : "";
}

}  // namespace

std::vector<StatusRow> Migrator::dry_run_up(const UpOptions& options) {
  const std::vector<Migration> migrations = impl_->load();
  const Plan plan = impl_->read_plan(migrations);
  std::vector<StatusRow> rows;
  for (const PlanEntry* entry : select_up(plan, options, impl_->config).targets) {
    rows.push_back(status_row(*entry));
    rows.back().script = script_text(entry->migration->up);
  }
  return rows;
}

std::vector<StatusRow> Migrator::dry_run_down(const DownOptions& options) {
  const std::vector<Migration> migrations = impl_->load();
  const Plan plan = impl_->read_plan(migrations);
  std::vector<StatusRow> rows;
  for (const PlanEntry* entry : select_down(plan, options)) {
    rows.push_back(status_row(*entry));
    rows.back().script = script_text(*entry->migration->down);
  }
  return rows;
}

BaselineResult Migrator::baseline(const std::optional<std::string>& to) {
  const std::vector<Migration> migrations = impl_->load();
  BaselineResult outcome;
  impl_->locked_run(
      "baseline", Direction::kUp, false,
      [&](RunStop&, Lease* lease, const std::string& run_id, std::vector<RunResult>&) {
        const Plan plan = impl_->read_plan(migrations);
        outcome.batch = plan.next_batch();
        const PlanEntry* last = to ? &find_target(plan, *to, "to") : nullptr;
        for (const PlanEntry& entry : plan.entries) {
          if (entry.migration == nullptr) continue;
          if (!entry.pending()) {
            outcome.skipped.push_back(entry.name);
          } else {
            impl_->writer().write_record(
                applied_record(*entry.migration, outcome.batch, impl_->stamp(run_id), "baseline"),
                lease ? &lease->token() : nullptr);
            outcome.baselined.push_back(entry.name);
          }
          if (&entry == last) break;
        }
      });
  return outcome;
}

AuditReport Migrator::audit() {
  std::vector<AuditCheck> checks = {{"config", "pass", "loaded"}};
  try {
    if (const auto missing = impl_->reader().missing_database()) {
      checks.push_back({"connection", "fail", "the database " + *missing + " does not exist"});
      return audit_report(std::move(checks));
    }
    checks.push_back({"connection", "pass", std::string(impl_->store->kind())});
  } catch (const Error& error) {
    checks.push_back({"connection", "fail", redact(error.what())});
    return audit_report(std::move(checks));
  }
  try {
    const std::vector<Migration> migrations = impl_->load();
    const Plan plan = impl_->read_plan(migrations);
    for (AuditCheck& check : audit_database(*impl_->store, impl_->config, plan)) {
      checks.push_back(std::move(check));
    }
  } catch (const Error& error) {
    checks.push_back({error.code() == ErrorCode::kConnectionFailed ? "connection" : "migrations",
                      "fail", redact(error.what())});
  }
  return audit_report(std::move(checks));
}

namespace {

std::vector<RepairTarget> drifted(const Plan& plan, const std::optional<std::string>& file) {
  const PlanEntry* only = file ? &find_target(plan, *file, "file") : nullptr;
  if (only != nullptr && (only->state != MigrationState::kApplied || only->migration == nullptr)) {
    throw NotAppliedError("'" + *file + "' is not applied: nothing to repair", {{"name", *file}});
  }
  std::vector<RepairTarget> targets;
  for (const PlanEntry& entry : plan.entries) {
    if (!entry.drifted || (only != nullptr && &entry != only)) continue;
    targets.push_back({entry.name, entry.record->checksum, entry.migration->checksum});
  }
  return targets;
}

}  // namespace

std::vector<RepairTarget> Migrator::repair_targets(const std::optional<std::string>& file) {
  const std::vector<Migration> migrations = impl_->load();
  return drifted(impl_->read_plan(migrations), file);
}

std::vector<RepairTarget> Migrator::repair(const std::optional<std::string>& file,
                                           const std::string& reason) {
  const std::vector<Migration> migrations = impl_->load();
  if (drifted(impl_->read_plan(migrations), file).empty()) return {};
  std::vector<RepairTarget> repaired;
  impl_->locked_run(
      "repair", Direction::kUp, false,
      [&](RunStop&, Lease*, const std::string& run_id, std::vector<RunResult>&) {
        repaired = drifted(impl_->read_plan(migrations), file);
        for (const RepairTarget& target : repaired) {
          const std::string why =
              reason.empty() ? fmt::format("repair: checksum was {}", target.recorded) : reason;
          impl_->logger->info(fmt::format("{}: checksum re-stamped", target.name));
          impl_->writer().write_record(restamped_record(
              target.name, target.current, impl_->stamp(run_id, impl_->config.executed_by, why)));
        }
      });
  return repaired;
}

ImportResult Migrator::import_history(const ImportOptions& options) {
  const std::optional<ForeignTool> tool = parse_foreign_tool(options.from);
  if (!tool) {
    throw ConfigInvalidError(
        fmt::format("import --from '{}': the tools are dbmate, golang-migrate, flyway, knex, "
                    "node-pg-migrate and migrate-mongo",
                    options.from),
        {{"key", "from"}, {"value", options.from}});
  }
  const std::vector<Migration> migrations = impl_->load();
  const auto plan_now = [&] {
    const std::optional<std::vector<ForeignRecord>> history =
        impl_->reader().read_foreign_history(*tool);
    if (!history) {
      throw ConfigInvalidError(fmt::format("No {} history in this database", options.from),
                               {{"key", "from"}, {"tool", options.from}});
    }
    const std::vector<ChangelogRecord> existing = impl_->reader().read_changelog();
    if (!existing.empty() && !options.force) {
      throw ImportTargetNotEmptyError(
          fmt::format("The changelog already holds {} record(s): import with --force to add to "
                      "it (records already applied are skipped)",
                      existing.size()),
          {{"records", existing.size()}});
    }
    ImportResult result = plan_import(*tool, *history, migrations, existing, options.trust_hash);
    return std::pair{std::move(result), make_plan(migrations, existing).next_batch()};
  };
  ImportResult result = plan_now().first;
  result.dry_run = options.dry_run;
  if (options.dry_run || result.imported.empty()) return result;
  impl_->locked_run("import", Direction::kUp, false,
                    [&](RunStop&, Lease*, const std::string& run_id, std::vector<RunResult>&) {
                      auto [planned, batch] = plan_now();
                      result = std::move(planned);
                      for (const ImportedMigration& migration : result.imported) {
                        impl_->writer().write_record(imported_record(
                            {migration.name, migration.checksum, migration.description,
                             migration.applied_at_ms, batch++, result.from},
                            impl_->stamp(run_id)));
                      }
                    });
  return result;
}

std::optional<LockInfo> Migrator::lock_info() { return impl_->reader().read_lock(); }

std::optional<LockInfo> Migrator::force_unlock() {
  // Nothing held: nothing to write, and a missing database stays missing.
  if (!impl_->reader().read_lock()) return std::nullopt;
  return impl_->writer().force_release();
}

RunMigrationsResult run_migrations(const Config& config, const RunMigrationsOptions& options) {
  Migrator migrator(config, options.migrator);
  std::stop_callback stop_run(options.stop, [&] { migrator.stop("stop requested"); });
  Migrator::Impl& impl = *migrator.impl_;

  LockWaitOptions wait;
  wait.on_lock_held = options.on_lock_held.value_or(config.on_lock_held);
  wait.timeout = options.lock_wait_timeout;
  if (!wait.timeout && config.lock_wait_timeout_ms) {
    wait.timeout = milliseconds(*config.lock_wait_timeout_ms);
  }
  wait.poll_interval =
      options.lock_poll_interval.value_or(milliseconds(config.lock_poll_interval_ms));
  wait.stop = options.stop;
  wait.stop_reason = [&]() -> std::optional<Error> {
    std::lock_guard lock(impl.stop_mutex);
    if (!impl.pending_stop) return std::nullopt;
    return RunAbortedError(*impl.pending_stop);
  };
  wait.logger = impl.logger.get();
  if (options.on_wait) {
    wait.on_wait = [&](const LockWaitProgress& progress) {
      options.on_wait(LockWaitReport{progress.attempts, progress.waited, progress.next_delay,
                                     progress.holder, progress.code});
    };
  }
  // Where the database announces releases, a release ends the sleep at once; polling stays
  // the source of truth either way — and a database not reachable yet is simply slept on.
  wait.sleep = [&](milliseconds delay, std::stop_token stop) {
    const auto until = Clock::real().now() + delay;
    try {
      Store& lock = impl.lock_connection();
      if (lock.can_push_release()) {
        lock.wait_for_release(delay, stop);
        return;
      }
    } catch (const ConnectionFailedError&) {
    }
    Clock::real().sleep_until(until, stop);
  };

  RunMigrationsResult result;
  const LockWaitResult waited =
      with_lock_wait([&](int) { result.applied = migrator.up(options.up); }, wait);
  result.up_to_date = result.applied.empty();
  result.waited = waited.waited;
  result.waited_for = waited.waited_for;
  result.attempts = waited.attempts;
  return result;
}

std::int64_t Migrator::database_now_ms() { return impl_->reader().now_ms(); }

std::vector<std::string> pending_migrations(const Config& config, const MigratorOptions& options) {
  Migrator migrator(config, options);
  std::vector<std::string> names;
  for (const StatusRow& row : migrator.status()) {
    if (needs_run(row.state)) names.push_back(row.name);
  }
  return names;
}

}  // namespace migronaut

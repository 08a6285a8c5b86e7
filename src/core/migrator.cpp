#include "migronaut/migrator.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <mutex>
#include <set>

#include "core/audit.hpp"
#include "core/changelog.hpp"
#include "core/guarded_logger.hpp"
#include "core/heartbeat.hpp"
#include "core/import_plan.hpp"
#include "core/lease.hpp"
#include "core/lock_wait.hpp"
#include "core/log.hpp"
#include "core/plan.hpp"
#include "core/runner.hpp"
#include "fmt/format.h"
#include "source/migration_set.hpp"
#include "store/registry.hpp"
#include "util/file.hpp"
#include "util/huge_pages.hpp"
#include "util/ids.hpp"
#include "util/process_identity.hpp"
#include "util/redact.hpp"
#include "util/scoped_flag.hpp"
#include "util/text.hpp"

namespace migronaut {

using std::chrono::milliseconds;

struct Migrator::Impl {
  Config config;
  MigratorOptions options;
  std::shared_ptr<Logger> logger;
  std::unique_ptr<Store> store;
  // The lock's own connection: the heartbeat renews on it while a migration runs on `store`; a
  // waiter, having closed `store`, also reads the changelog through it.
  std::unique_ptr<Store> lock_store;

  std::mutex stop_mutex;
  RunStop* current_run = nullptr;
  // A stop that came before the run reached its lock, or while a WholeOperation held it back.
  std::optional<std::string> pending_stop;
  bool stops_held = false;

  Impl(Config c, MigratorOptions o)
      : config(std::move(c)),
        options(std::move(o)),
        logger(options.logger ? std::make_shared<GuardedLogger>(options.logger)
                              : default_logger()) {}

  bool empty_reported = false;
  // The folder's near misses, named once a run however often a waiter loads it: a file meant as a
  // migration that up skips would otherwise pass in silence (source/migration_set.hpp). Debug
  // for pending_migrations, a probe asked every few seconds. The last load's warning, "" for
  // none, is audit's.
  bool ignored_reported = false;
  bool missing_table_reported = false;  // the warning of a configured history table not there
  bool missing_reported = false;        // the warning of applied migrations whose file is gone
  Logger::Level ignored_level = Logger::Level::kWarn;
  std::string ignored_warning;
  // Set while up() runs, which creates a missing database: saying it is missing is noise there
  // (and a first boot of every embedding service would log it).
  bool creates_database = false;
  // How a missing database is told otherwise: a warning for whoever reads a status, debug for
  // pending_migrations, a probe asked every few seconds whose answer (everything pending) says it.
  Logger::Level missing_database_level = Logger::Level::kWarn;
  // A connection failure before the lock is waited out (see before_lock) when the caller asked
  // to wait for the database, or once the database was reached: then it is a restart or a
  // dropped connection, not a wrong URI.
  bool wait_for_database = false;
  bool database_reached = false;
  // Whether a held lock is waited for (run_migrations with onLockHeld wait): any other run takes
  // the lock in one attempt that does not queue behind the holder.
  bool waits_for_lock = false;
  // What run_migrations' wait saw failed at its first attempt: each attempt calls up(), which
  // must not retry a failure that came later (refuse_new_failures).
  SeenFailures* wait_failures = nullptr;

  // When run_migrations' wait gives up (unset once it holds the lock).
  std::optional<Clock::TimePoint> wait_deadline;

  // Whether a connection failure before the lock is waited out (see before_lock).
  bool waits_for_database() const { return wait_for_database || database_reached; }

  // `connection`, bounded by the caller's deadline and by the wait's when it waits for the
  // database, whichever comes first: connecting is waiting for the database too.
  ConnectionOptions bounded(ConnectionOptions connection) const {
    std::optional<Clock::TimePoint> give_up_at = options.connect_by;
    if (wait_deadline && waits_for_database() && (!give_up_at || *wait_deadline < *give_up_at)) {
      give_up_at = wait_deadline;
    }
    if (give_up_at) connection.connect_by = connect_deadline(*give_up_at, Clock::real().now());
    return connection;
  }

  // The connection for reading: it creates nothing, not even a missing SQLite file.
  Store& reader() {
    if (store) return *store;
    store = open_store(config, bounded({.access = Access::kRead, .statement_bound = std::nullopt}));
    const auto missing = store->missing_database();
    database_reached = !missing;  // a stand-in for a missing SQLite file reached nothing
    if (missing && !creates_database) {
      logger->log(missing_database_level,
                  fmt::format("The database {} does not exist: nothing is applied yet (`up` "
                              "creates it)",
                              *missing));
    }
    return *store;
  }
  // The connection for writing, reopened when the one for reading cannot write.
  Store& writer() {
    if (!store || !store->writable()) store = open_store(config, bounded({}));
    database_reached = true;
    return *store;
  }
  Store& lock_connection() {
    if (!lock_store) {
      lock_store = open_store(config, bounded({.statement_bound = Heartbeat::statement_bound_for(
                                                   milliseconds(config.lock_ttl_ms())),
                                               .durable = false}));
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
    const std::string_view extension = backend_for(config.uri).script_extension;
    std::vector<std::string> ignored;
    std::vector<Migration> migrations =
        load_migrations(config.migrations_dir, extension, options.migrations, &ignored);
    if (migrations.empty() && !empty_reported) {
      logger->warn(fmt::format("No migrations in {}", config.migrations_dir.string()));
      empty_reported = true;
    }
    ignored_warning = ignored.empty() ? "" : ignored_files_warning(ignored, extension);
    if (!ignored_warning.empty() && !ignored_reported) {
      logger->log(ignored_level, ignored_warning);
      ignored_reported = true;
    }
    return migrations;
  }

  // A waiter, between its attempts, keeps only the lock's connection (see sleep_until_release):
  // until it holds the lock it reads, checks scripts and makes sure of the tables through it.
  bool waiting() const { return !store && lock_store; }
  Store& reader_or_waiters() { return waiting() ? *lock_store : reader(); }

  // The changelog. Should the lock connection's tight bounds cut a waiter's read short, a main
  // connection reads it again (and reports a failure that recurs).
  std::vector<ChangelogRecord> read_changelog() {
    if (waiting()) {
      try {
        return lock_store->read_changelog();
      } catch (const Error&) {
      }
    }
    return reader().read_changelog();
  }
  Plan read_plan(const std::vector<Migration>& migrations) {
    return make_plan(migrations, read_changelog());
  }
  // A plan to show: an interrupted migration whose run still holds a live lock is being
  // applied (or reverted). The lock is read only when some migration shows interrupted; an unusable
  // lock row leaves them interrupted (`lock` and `audit` report the row).
  void mark_live_run(Plan& plan) {
    if (!has_interrupted(plan)) return;
    try {
      Store& store = reader();
      const std::optional<LockInfo> holder = store.read_lock();
      if (holder && !lease_expired(*holder, store.now_ms(), config.lock_ttl_ms())) {
        mark_in_progress(plan, holder->run_id);
      }
    } catch (const Error&) {
    }
  }
  // load() into `migrations`, and read_plan() of them, side by side: another thread reads the
  // files while this one connects and reads the changelog, so the database's round trips and
  // the files' system calls overlap. The database is the usual laggard, and this way its work
  // starts without a new thread's start-up and ends without waking a thread that waits for it.
  // A file load() refuses is still the error reported, as when the load came first (once the
  // read has ended, though).
  Plan load_and_plan(std::vector<Migration>& migrations) {
    std::future<std::vector<Migration>> loaded = std::async(std::launch::async, [this] {
      prefer_huge_pages_in_this_thread();
      return load();
    });
    std::vector<ChangelogRecord> records;
    std::exception_ptr read_failure;
    try {
      records = read_changelog();
    } catch (...) {
      read_failure = std::current_exception();
    }
    migrations = loaded.get();
    if (read_failure) std::rethrow_exception(read_failure);
    return make_plan(migrations, std::move(records));
  }

  // The plan under the lock, once each renamed migration is recorded under its new name and its
  // former record retired (the next locked run's job, so the changelog follows the folder): one
  // read, two after a rename. Both in one transaction (MongoDB: the new name first, so a run
  // stopped between the two leaves both applied, which the next run's plan pairs again).
  Plan locked_plan(const std::vector<Migration>& migrations, const std::string& run_id) {
    Plan plan = read_plan(migrations);
    bool renamed = false;
    for (const PlanEntry& entry : plan.entries) {
      if (entry.to_retire.empty()) continue;
      logger->info(fmt::format("{} is {} renamed: recorded under its new name", entry.name,
                               entry.renamed_from));
      const std::string name(entry.name);
      std::vector<RecordWrite> writes;
      if (entry.record->name != name) {
        writes.push_back(renamed_record(*entry.record, name, stamp(run_id)));
      }
      for (std::string_view former : entry.to_retire) {
        writes.push_back(retired_record(std::string(former), name, stamp(run_id)));
      }
      writer().write_records(writes);
      renamed = true;
    }
    if (renamed) return read_plan(migrations);
    return plan;
  }

  // A migration reverted though its file changed since it was applied runs the down section the
  // file has now: refused with strict, as `up` refuses any drift, else said.
  // A file renamed and edited, target or not, is refused as `up` refuses it: the locked plan
  // would record it under its new name, which only `repair` may decide.
  void check_drift(const Plan& plan, const std::vector<const PlanEntry*>& targets) {
    std::vector<const PlanEntry*> checked = targets;
    for (const PlanEntry& entry : plan.entries) {
      if (entry.drifted && !entry.renamed_from.empty() &&
          std::find(targets.begin(), targets.end(), &entry) == targets.end()) {
        checked.push_back(&entry);
      }
    }
    refuse_drift(checked, config);
    for (const PlanEntry* entry : targets) {
      if (!entry->drifted) continue;
      logger->warn(fmt::format(
          "{} changed since it was applied (checksum mismatch): reverting it as the file is now",
          entry->name));
    }
  }

  // Where `tool` may keep its history: the table the configuration names for it (importFrom,
  // importTable) first, then its default; one configuration serves environments where the tool
  // ran under either.
  std::vector<std::string> history_tables(ForeignTool tool) const {
    std::vector<std::string> tables;
    if (configured(tool, config.import_table)) tables.push_back(config.import_table);
    if (tables.empty() || tables.front() != foreign_tool_table(tool)) {
      tables.emplace_back(foreign_tool_table(tool));
    }
    return tables;
  }

  // Whether the configuration names `table` as `tool`'s history (importFrom, importTable).
  bool configured(ForeignTool tool, const std::string& table) const {
    return !table.empty() && table == config.import_table &&
           parse_foreign_tool(config.import_from) == tool;
  }

  // `tool`'s history in `table`: none when there is no such table. A table the configuration
  // names is the user's word that it is the tool's, so what keeps it from being read is thrown;
  // elsewhere that means another application's table, or a tool this backend does not hold.
  std::optional<std::vector<ForeignRecord>> foreign_history(ForeignTool tool,
                                                            const std::string& table) {
    try {
      return reader_or_waiters().read_foreign_history(tool, table);
    } catch (const Error&) {
      if (configured(tool, table)) throw;
    }
    return std::nullopt;
  }

  // A configured history table that is not there leaves a first run unguarded by it: said, as a
  // misspelt name would otherwise pass without a word.
  std::optional<std::string> missing_table_warning(
      ForeignTool tool, const std::string& table,
      const std::optional<std::vector<ForeignRecord>>& history, const Plan& plan) const {
    if (history || !plan.records.empty() || !configured(tool, table)) return std::nullopt;
    return fmt::format(
        "importTable {}: no such table in {}, so nothing {} applied there is looked for in it",
        table, redact_uri(config.uri), foreign_tool_name(tool));
  }

  // What the histories of other tools show `up` would run again, and a history that could not be
  // read for it: one `import` would refuse (a dirty golang-migrate version, a failed Flyway row:
  // the tool at work, or failed). `up` refuses over either; the read-only commands warn of the
  // second and go on.
  struct HistoryLook {
    struct Unreadable {
      ForeignTool tool;
      std::string table;
      std::exception_ptr error;
    };
    std::optional<UnimportedHistory> unimported;
    std::optional<Unreadable> unreadable;
    std::optional<std::string> missing_table;  // the warning of a configured table not there
  };

  // A first run (no changelog yet) on a database another tool migrated: `up` would run again
  // what that tool applied. Found when the tool's history covers files of this folder, as
  // `import` would record them; a history of other files (a Rails app's schema_migrations)
  // stands aside. On a database with a changelog, what a tool's history shows applied that the
  // changelog does not record (applied_since_import()): one read for each tool's table. A
  // history that cannot be read for it (a dirty version, a failed row) is refused over on a first
  // run, or from a tool the changelog was imported from; beside a changelog that holds nothing
  // from it, it may be another application's, and stands aside.
  HistoryLook unimported_history(const Plan& plan, const std::vector<Migration>& migrations) {
    HistoryLook look;
    for (const ForeignTool tool : foreign_tools()) {
      for (const std::string& table : history_tables(tool)) {
        try {
          const std::optional<std::vector<ForeignRecord>> history = foreign_history(tool, table);
          if (auto missing = missing_table_warning(tool, table, history, plan)) {
            if (!missing_table_reported) logger->warn(*missing);
            missing_table_reported = true;  // once a run, as `baseline` looks twice
            look.missing_table = std::move(missing);
          }
          if (!history || history->empty()) continue;
          look.unimported = unimported_by(tool, table, *history, plan, migrations);
          if (look.unimported) return look;
        } catch (const MigrationFileNotFoundError&) {
          continue;  // none of its versions is a file here
        } catch (const Error&) {
          if (!look.unreadable && (plan.records.empty() || configured(tool, table) ||
                                   imported_from(tool, plan.records))) {
            look.unreadable = {tool, table, std::current_exception()};
          }
        }
      }
    }
    return look;
  }

  static std::optional<UnimportedHistory> unimported_by(ForeignTool tool, std::string table,
                                                        const std::vector<ForeignRecord>& history,
                                                        const Plan& plan,
                                                        const std::vector<Migration>& migrations) {
    UnimportedHistory found{std::string(foreign_tool_name(tool)), std::move(table), 0, {}};
    if (plan.records.empty()) {
      found.covered = plan_import(tool, history, migrations, {}, false).imported.size();
    } else {
      found.since_import = applied_since_import(tool, history, migrations, plan.records);
      found.covered = found.since_import.size();
    }
    if (found.covered == 0) return std::nullopt;  // nothing `up` would run again
    return found;
  }

  // As `status` and `audit` look: only when something is pending (a boot check with nothing to
  // do reads no other tool's table), an unreadable history warned of.
  HistoryLook history_if_pending(const Plan& plan, const std::vector<Migration>& migrations) {
    if (std::none_of(plan.entries.begin(), plan.entries.end(),
                     [](const PlanEntry& entry) { return entry.pending(); })) {
      return {};
    }
    HistoryLook look = unimported_history(plan, migrations);
    if (const std::optional<std::string> why = unread_history(look)) logger->warn(*why);
    return look;
  }

  // Why another tool's history was not read, if it was not.
  static std::optional<std::string> unread_history(const HistoryLook& look) {
    if (!look.unreadable) return std::nullopt;
    try {
      std::rethrow_exception(look.unreadable->error);
    } catch (const Error& error) {
      return fmt::format("{}'s history ({}) was not read for what it applied: {}",
                         foreign_tool_name(look.unreadable->tool), look.unreadable->table,
                         error.what());
    }
  }

  // Why `up` would refuse `plan` before its lock, as it would say it (none when it would run, or
  // find nothing to do), with `look` for what other tools' histories show. A database that was
  // not there to ask is no refusal: that error goes on.
  std::optional<Error> up_refusal(const Plan& plan, const std::vector<Migration>& migrations,
                                  const HistoryLook& look) {
    try {
      ScriptChecks checks;
      checked_up(plan, {}, migrations, checks, &look);
    } catch (const ConnectionFailedError&) {
      throw;
    } catch (const Error& error) {
      return error;
    }
    return std::nullopt;
  }

  // Over what a tool applied since its import, only `targets` are refused: an `up --to` short of
  // such a migration runs nothing twice.
  static void refuse_unimported(HistoryLook look, const std::vector<const PlanEntry*>& targets) {
    if (look.unreadable) std::rethrow_exception(look.unreadable->error);
    if (!look.unimported) return;
    UnimportedHistory& found = *look.unimported;
    if (!found.since_import.empty()) {
      std::erase_if(found.since_import, [&](const std::string& name) {
        return std::none_of(targets.begin(), targets.end(),
                            [&](const PlanEntry* entry) { return entry->name == name; });
      });
      found.covered = found.since_import.size();
      if (found.covered == 0) return;
    }
    throw unimported_history_error(found);
  }

  // What `up` checks before its lock, in its order: the selection's rules, other tools'
  // histories (read only now that something is to run, unless `known`), the scripts, the batch
  // counter. One place, so that `status --check` and `dry-run up` refuse what `up` refuses.
  UpSelection checked_up(const Plan& plan, const UpOptions& options,
                         const std::vector<Migration>& migrations, ScriptChecks& checks,
                         const HistoryLook* known = nullptr) {
    UpSelection selection = select_up(plan, options, config);
    if (selection.targets.empty()) return selection;
    refuse_unimported(known != nullptr ? *known : unimported_history(plan, migrations),
                      selection.targets);
    checks.check(reader_or_waiters(), config, Direction::kUp, selection.targets);
    plan.next_batch();  // an exhausted batch counter is refused before the lock is taken
    return selection;
  }

  // Once a run (a waiter looks again at each attempt): a boot check that finds applied files
  // gone would otherwise say up to date.
  void warn_about_missing(const Plan& plan) {
    if (missing_reported) return;
    if (const auto warning = missing_files_warning(plan, config.migrations_dir.string())) {
      logger->warn(*warning);
      missing_reported = true;
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

  // What a down leaves applied, told before the lock is taken: `down <file>` may revert a
  // migration that newer applied ones rely on (allowed, as asked for by name), and `down --all`
  // keeps the repeatables it cannot revert.
  void warn_about_kept(const Plan& plan, const DownOptions& options,
                       const std::vector<const PlanEntry*>& targets) {
    if (options.all) {
      if (const std::optional<std::string> note = repeatables_left_applied(plan)) {
        logger->info(*note);
      }
    }
    if (!options.file || targets.empty()) return;
    if (const std::optional<std::string> warning = newer_left_applied(plan, *targets.front())) {
      logger->warn(*warning);
    }
  }

  // Who runs this: the OS user unless configured, looked up by a run that writes and never by a
  // boot check (a passwd lookup reads NSS's files, or asks a directory over the network).
  const std::string& executed_by() {
    if (!config.executed_by.empty()) return config.executed_by;
    if (os_user.empty()) os_user = os_user_name();
    return os_user;
  }
  std::string os_user;  // looked up by executed_by()

  RecordStamp stamp(const std::string& run_id, const std::string& requested_by = "",
                    const std::string& reason = "") {
    return RecordStamp{run_id, config.environment, executed_by(), requested_by, reason};
  }

  Runner runner(RunStop& stop, Lease* lease, RecordStamp stamp, ScriptChecks checks) {
    return Runner({.store = writer(),
                   .config = config,
                   .stop = stop,
                   .lease = lease,
                   .stamp = std::move(stamp),
                   .logger = *logger,
                   .hooks = options.hooks,
                   .emit = [this](const Event& e) { emit(e); },
                   .checks = std::move(checks)});
  }

  // One run under the lock (or, with no_lock, without it): run:start/run:end, beforeAll and
  // afterAll (always), the lease and its release. `work` appends to the results as it goes.
  using Work = std::function<void(RunStop&, Lease*, const std::string& run_id,
                                  std::vector<RunResult>& results)>;
  std::vector<RunResult> locked_run(const char* command, Direction direction, bool no_lock,
                                    const Work& work);

  // How run_migrations waits for a peer's lock: the config's policy unless `options` overrides
  // it, ended by a stop.
  LockWaitOptions lock_wait_options(const RunMigrationsOptions& options);
  void sleep_until_release(milliseconds delay, std::stop_token stop);

  // Holds back the stops Migrator::stop asks for while it lives, so that work which must not be
  // cut in two (redo's revert and re-apply) finishes; one held back is passed on to the run as it
  // ends. A lost lock or a timeout still stops the run: they do not come through Migrator::stop.
  class WholeOperation {
   public:
    explicit WholeOperation(Impl& impl) : impl_(impl) {
      std::lock_guard lock(impl_.stop_mutex);
      impl_.stops_held = true;
    }
    ~WholeOperation() {
      std::lock_guard lock(impl_.stop_mutex);
      impl_.stops_held = false;
      if (impl_.pending_stop && impl_.current_run != nullptr) {
        impl_.current_run->request(RunAbortedError(*impl_.pending_stop));
      }
    }
    WholeOperation(const WholeOperation&) = delete;
    WholeOperation& operator=(const WholeOperation&) = delete;

   private:
    Impl& impl_;
  };

  // What baseline() would mark, found before its lock (defined beside it).
  BaselineResult baseline_before_lock(const std::optional<std::string>& to,
                                      std::vector<Migration>& migrations);

  // Runs `step`, marking a connection failure in it as one before the lock (kBeforeLockKey),
  // which a waiting run waits out — unless nothing asked to wait for a database that was never
  // reached (a plain `up` against a wrong or dead URI fails at once), or waiting cannot mend it
  // (is_lasting: a file that is not a database). A write slot another connection holds (SQLite)
  // is no lost database but a lock on it no holder on record accounts for: refused as held.
  template <typename Step>
  void before_lock(const Step& step) {
    try {
      step();
    } catch (ConnectionFailedError& error) {
      if (is_writer_busy(error)) {
        throw LockAlreadyHeldError(error.what(), error.context(), {.writer_busy = true});
      }
      if (error.context().is_object() && !is_lasting(error) && waits_for_database()) {
        error.context()[kBeforeLockKey] = true;
      }
      throw;
    }
  }

 private:
  // What a locked run's events name.
  struct RunInfo {
    const char* command;
    Direction direction;
    std::string run_id;
    Clock::TimePoint started;
    std::int64_t elapsed_ms() const {
      return std::chrono::duration_cast<milliseconds>(Clock::real().now() - started).count();
    }
  };

  // Makes `stop` the run Migrator::stop reaches, for as long as this lives; a stop requested
  // before the run began is passed on at once.
  class CurrentRun {
   public:
    CurrentRun(Impl& impl, RunStop& stop) : impl_(impl) {
      std::lock_guard lock(impl_.stop_mutex);
      if (impl_.pending_stop) stop.request(RunAbortedError(*impl_.pending_stop));
      impl_.current_run = &stop;
    }
    ~CurrentRun() {
      std::lock_guard lock(impl_.stop_mutex);
      impl_.current_run = nullptr;
      impl_.pending_stop.reset();
    }
    CurrentRun(const CurrentRun&) = delete;
    CurrentRun& operator=(const CurrentRun&) = delete;

   private:
    Impl& impl_;
  };

  std::unique_ptr<Lease> take_lock(RunStop& stop, const std::string& run_id, bool no_lock);
  std::exception_ptr run_work(const Work& work, RunStop& stop, Lease* lease, const RunInfo& run,
                              std::vector<RunResult>& results);
  std::exception_ptr run_after_all(const HookInfo& info, std::exception_ptr failure,
                                   const std::vector<RunResult>& results);
  std::exception_ptr release_lock(Lease* lease, std::exception_ptr failure);
  [[noreturn]] void fail_run(const RunInfo& run, std::exception_ptr failure,
                             const std::vector<RunResult>& results);
  void emit_run_end(const RunInfo& run, const std::vector<RunResult>& results, bool success,
                    const std::string& error);
};

std::vector<RunResult> Migrator::Impl::locked_run(const char* command, Direction direction,
                                                  bool no_lock, const Work& work) {
  RunStop stop;
  const CurrentRun current(*this, stop);
  const RunInfo run{command, direction, new_run_id(), Clock::real().now()};
  const std::unique_ptr<Lease> lease = take_lock(stop, run.run_id, no_lock);
  // A run starts once it holds the lock: a refused attempt (a waiter's poll) is no run.
  emit({"run:start",
        {{"runId", run.run_id}, {"command", command}, {"direction", direction_name(direction)}}});
  std::vector<RunResult> results;
  std::exception_ptr failure = run_work(work, stop, lease.get(), run, results);
  failure = release_lock(lease.get(), failure);
  if (failure) fail_run(run, failure, results);
  // Only a run that ran migrations counts them: baseline, import and repair report what they did.
  if (!results.empty()) {
    logger->info(fmt::format("Done: {} migration(s) in {} ms", results.size(), run.elapsed_ms()));
  }
  emit_run_end(run, results, true, "");
  return results;
}

// Creates the tables and takes the lock (none with no_lock): all of it before the lock.
std::unique_ptr<Lease> Migrator::Impl::take_lock(RunStop& stop, const std::string& run_id,
                                                 bool no_lock) {
  std::unique_ptr<Lease> lease;
  before_lock([&] {
    // A waiter uses its lock connection; run_work reopens the main one once the lock is ours.
    (waiting() ? *lock_store : writer()).ensure_schema();
    if (no_lock) {
      logger->warn("Running WITHOUT the migration lock (--no-lock): for development only");
      emit({"lock:acquired", {{"owner", run_id}, {"skipped", true}}});
      return;
    }
    lease = Lease::acquire(lock_connection(), stop,
                           LeaseOptions{.run_id = run_id,
                                        .ttl = milliseconds(config.lock_ttl_ms()),
                                        .executed_by = executed_by(),
                                        .on_lock_lost = config.on_lock_lost,
                                        .fail_fast = !waits_for_lock,
                                        .logger = logger.get(),
                                        .emit = [this](const Event& event) { emit(event); }});
  });
  // The wait is over: the run's own connections keep the store's connect timeout.
  wait_deadline.reset();
  return lease;
}

// beforeAll, the work, afterAll: the run's failure, or null.
std::exception_ptr Migrator::Impl::run_work(const Work& work, RunStop& stop, Lease* lease,
                                            const RunInfo& run, std::vector<RunResult>& results) {
  const HookInfo info{run.run_id, run.direction, 0, 0};
  std::exception_ptr failure;
  try {
    // The lock connection is the heartbeat's once the lease is taken: a waiter, which closed
    // its main connection (sleep_until_release), reopens it before the run reads a thing.
    if (waiting()) writer();
    if (options.hooks.before_all) call_hook("beforeAll", [&] { options.hooks.before_all(info); });
    work(stop, lease, run.run_id, results);
  } catch (...) {
    failure = std::current_exception();
  }
  if (!options.hooks.after_all) return failure;
  return run_after_all(info, failure, results);
}

// afterAll always runs, but after a failure it must not replace the run's own error.
std::exception_ptr Migrator::Impl::run_after_all(const HookInfo& info, std::exception_ptr failure,
                                                 const std::vector<RunResult>& results) {
  if (failure) {
    try {
      options.hooks.after_all(info, false, results);
    } catch (const std::exception& e) {
      logger->warn(fmt::format("afterAll hook failed: {}", redact(e.what())));
    }
    return failure;
  }
  try {
    call_hook("afterAll", [&] { options.hooks.after_all(info, true, results); });
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

// The one release path: the run's failure after releasing, or the release's own. A release
// failure never hides the run's error (it is only logged then); after a clean run it is the
// failure — everything applied, only the clean-up failed, and the record heals through its TTL.
std::exception_ptr Migrator::Impl::release_lock(Lease* lease, std::exception_ptr failure) {
  if (!lease) {
    if (!failure) emit({"lock:released", {{"early", false}, {"skipped", true}}});
    return failure;
  }
  try {
    lease->release();
  } catch (const std::exception& e) {
    if (!failure) return std::current_exception();
    logger->warn(e.what());  // "Failed to release the migration lock: …"
  }
  return failure;
}

// Reports the failed run (run:end) and rethrows its failure with the results so far.
void Migrator::Impl::fail_run(const RunInfo& run, std::exception_ptr failure,
                              const std::vector<RunResult>& results) {
  try {
    std::rethrow_exception(failure);
  } catch (Error& error) {
    if (!error.context().contains("results")) error.context()["results"] = results;
    emit_run_end(run, results, false, error.what());
    throw;
  } catch (const std::exception& error) {
    emit_run_end(run, results, false, error.what());
    throw;
  }
}

void Migrator::Impl::emit_run_end(const RunInfo& run, const std::vector<RunResult>& results,
                                  bool success, const std::string& error) {
  nlohmann::json data = {{"runId", run.run_id},
                         {"command", run.command},
                         {"success", success},
                         {"durationMs", run.elapsed_ms()},
                         {"results", results}};
  if (!error.empty()) data["error"] = error;
  emit({"run:end", data});
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
  if (impl_->current_run != nullptr && !impl_->stops_held) {
    impl_->current_run->request(RunAbortedError(reason));
  } else {
    impl_->pending_stop = reason;
  }
}

std::vector<RunResult> Migrator::up(const UpOptions& options) {
  const ScopedFlag creating(impl_->creates_database);
  std::vector<Migration> migrations;
  ScriptChecks checks;
  SeenFailures own_look;
  SeenFailures& failures = impl_->wait_failures != nullptr ? *impl_->wait_failures : own_look;
  bool pending = false;
  impl_->before_lock([&] {
    // The boot check: one read, and no lock when nothing is pending. A down that a live run is
    // making outside a transaction is waited for like any run, not refused as half-reverted.
    Plan plan = impl_->load_and_plan(migrations);
    impl_->mark_live_run(plan);
    const UpSelection selection = impl_->checked_up(plan, options, migrations, checks);
    impl_->warn_about_missing(plan);
    pending = !selection.targets.empty();
    if (!pending) {
      impl_->warn_about(selection);
      return;
    }
    note_failures(selection.targets, failures);
  });
  if (!pending) return {};
  return impl_->locked_run(
      "up", Direction::kUp, options.no_lock,
      [&](RunStop& stop, Lease* lease, const std::string& run_id, std::vector<RunResult>& results) {
        // Under the lock, read again: a peer may have applied some while we waited.
        const Plan plan = impl_->locked_plan(migrations, run_id);
        const UpSelection selection = select_up(plan, options, impl_->config);
        refuse_new_failures(selection.targets, failures);
        impl_->warn_about(selection);
        Runner runner =
            impl_->runner(stop, lease, impl_->stamp(run_id, options.requested_by, options.reason),
                          std::move(checks));
        runner.run(Direction::kUp, selection.targets, plan.next_batch(), results);
      });
}

std::vector<RunResult> Migrator::down(const DownOptions& options) {
  const std::vector<Migration> migrations = impl_->load();
  // Validate the selection before taking the lock, so bad input fails without touching it.
  const Plan boot_plan = impl_->read_plan(migrations);
  const std::vector<const PlanEntry*> boot_targets = select_down(boot_plan, options);
  impl_->warn_about_kept(boot_plan, options, boot_targets);
  if (boot_targets.empty()) return {};
  impl_->check_drift(boot_plan, boot_targets);
  ScriptChecks checks;
  checks.check(impl_->reader(), impl_->config, Direction::kDown, boot_targets);
  return impl_->locked_run(
      "down", Direction::kDown, options.no_lock,
      [&](RunStop& stop, Lease* lease, const std::string& run_id, std::vector<RunResult>& results) {
        const Plan plan = impl_->locked_plan(migrations, run_id);
        Runner runner =
            impl_->runner(stop, lease, impl_->stamp(run_id, options.requested_by, options.reason),
                          std::move(checks));
        runner.run(Direction::kDown, select_down(plan, options), 0, results);
      });
}

namespace {

// The migration redo reverts and re-applies, as `options` select it from `plan`; its up half is
// checked too, since a refusal after the down half would leave it reverted.
const PlanEntry& redo_target(const Plan& plan, const DownOptions& options, const Config& config) {
  const std::vector<const PlanEntry*> targets = select_down(plan, options);
  if (targets.empty()) throw NotAppliedError("Nothing is applied: nothing to redo");
  refuse_redo_up(plan, *targets.front(), config);
  return *targets.front();
}

}  // namespace

std::vector<RunResult> Migrator::redo(const std::optional<std::string>& file) {
  const std::vector<Migration> migrations = impl_->load();
  DownOptions down_options;
  down_options.file = file;
  if (!file) down_options.steps = 1;
  const Plan boot_plan = impl_->read_plan(migrations);
  const std::vector<const PlanEntry*> boot_target = {
      &redo_target(boot_plan, down_options, impl_->config)};
  impl_->check_drift(boot_plan, boot_target);
  ScriptChecks checks;
  checks.check(impl_->reader(), impl_->config, Direction::kDown, boot_target);
  checks.check(impl_->reader(), impl_->config, Direction::kUp, boot_target);
  impl_->warn_about_kept(boot_plan, down_options, boot_target);
  // Both directions under one lock, the target resolved inside it (a peer may have changed which
  // is newest meanwhile). A stop that comes once the run holds the lock waits for the re-apply:
  // a redo stopped halfway would leave the migration reverted, which nobody asked for.
  return impl_->locked_run(
      "redo", Direction::kDown, false,
      [&](RunStop& stop, Lease* lease, const std::string& run_id, std::vector<RunResult>& results) {
        const Impl::WholeOperation whole(*impl_);
        Runner runner = impl_->runner(stop, lease, impl_->stamp(run_id), std::move(checks));
        const Plan before = impl_->locked_plan(migrations, run_id);
        const std::vector<const PlanEntry*> target = {
            &redo_target(before, down_options, impl_->config)};
        runner.check(Direction::kUp, target);
        runner.run(Direction::kDown, target, 0, results);
        const Plan after = impl_->read_plan(migrations);
        UpOptions again_options;
        again_options.file = std::string(target.front()->name);
        const UpSelection again = select_up(after, again_options, impl_->config);
        runner.run(Direction::kUp, again.targets, after.next_batch(), results);
      });
}

void to_json(nlohmann::json& out, const UnimportedHistory& history) {
  out = {{"tool", history.tool}, {"table", history.table}, {"covered", history.covered}};
  if (!history.since_import.empty()) out["sinceImport"] = history.since_import;
}

MigrationBlockedError unimported_history_error(const UnimportedHistory& history) {
  if (!history.since_import.empty()) {
    return MigrationBlockedError(
        fmt::format("{}'s history ({}) shows {} migration(s) of this folder applied that "
                    "migronaut's changelog does not record as applied ({}): `up` would run them "
                    "again. Import them: `migronaut import --from {} --force`",
                    history.tool, history.table, history.covered,
                    fmt::join(history.since_import, ", "), history.tool),
        history);
  }
  return MigrationBlockedError(
      fmt::format("This database has no migronaut changelog but {}'s history ({}), which applied "
                  "{} migration(s) of this folder: `up` would run them again. Import it first: "
                  "`migronaut import --from {}`",
                  history.tool, history.table, history.covered, history.tool),
      history);
}

// Running the up of a half-reverted migration would apply it over what its down left, which
// neither script was written for. As golang-migrate's dirty flag, it waits for a person; the way
// out is the down again (run from the top, as an interrupted up is).
MigrationBlockedError half_reverted_error(const std::vector<std::string>& names) {
  return MigrationBlockedError(
      fmt::format("{} was being reverted outside a transaction when its run failed or stopped: "
                  "part of its down may have run. Finish the revert with `migronaut down {}` "
                  "(it runs the down again), then run up",
                  names.front(), names.front()),
      {{"names", names}});
}

namespace {

// The rows of `plan`, which they spend (see status_row).
std::vector<StatusRow> rows_of(Plan& plan, std::vector<Migration>& migrations) {
  std::vector<StatusRow> rows;
  rows.reserve(plan.entries.size());
  for (const PlanEntry& entry : plan.entries) rows.push_back(status_row(entry, migrations, plan));
  return rows;
}

}  // namespace

std::vector<StatusRow> Migrator::status() {
  std::vector<Migration> migrations;
  Plan plan = impl_->load_and_plan(migrations);
  impl_->mark_live_run(plan);
  return rows_of(plan, migrations);
}

StatusReport Migrator::status_report() {
  std::vector<Migration> migrations;
  Plan plan = impl_->load_and_plan(migrations);
  impl_->mark_live_run(plan);
  StatusReport report;
  // Before the rows spend the plan.
  const Impl::HistoryLook look = impl_->history_if_pending(plan, migrations);
  report.unimported = look.unimported;
  report.up_refusal = impl_->up_refusal(plan, migrations, look);
  report.rows = rows_of(plan, migrations);
  return report;
}

namespace {

std::string script_text(const Work& work) {
  const Script* script = std::get_if<Script>(&work);
  return script != nullptr ? script->text : "";
}

}  // namespace

std::vector<StatusRow> Migrator::dry_run_up(const UpOptions& options) {
  std::vector<Migration> migrations = impl_->load();
  Plan plan = impl_->read_plan(migrations);
  impl_->mark_live_run(plan);
  // What `up` would do: refused as `up` refuses it.
  ScriptChecks checks;
  const std::vector<const PlanEntry*> targets =
      impl_->checked_up(plan, options, migrations, checks).targets;
  std::vector<StatusRow> rows;
  for (const PlanEntry* entry : targets) {
    rows.push_back(status_row(*entry, migrations, plan));
    rows.back().script = script_text(entry->migration->up);
  }
  return rows;
}

std::vector<StatusRow> Migrator::dry_run_down(const DownOptions& options) {
  std::vector<Migration> migrations = impl_->load();
  Plan plan = impl_->read_plan(migrations);
  std::vector<StatusRow> rows;
  const std::vector<const PlanEntry*> targets = select_down(plan, options);
  impl_->check_drift(plan, targets);  // as `down` refuses before it runs
  impl_->warn_about_kept(plan, options, targets);
  for (const PlanEntry* entry : targets) {
    rows.push_back(status_row(*entry, migrations, plan));
    rows.back().script = script_text(*entry->migration->down);
  }
  return rows;
}

namespace {

// What baseline marks: the pending migrations up to and including `to`, each handed to `mark`;
// the applied ones it skips.
template <typename Mark>
BaselineResult baseline_of(const Plan& plan, const std::optional<std::string>& to,
                           const Mark& mark) {
  BaselineResult outcome;
  outcome.batch = plan.next_batch();
  const PlanEntry* last = to ? &require_migration(plan, *to, "to") : nullptr;
  std::vector<const PlanEntry*> targets;
  for (const PlanEntry& entry : plan.entries) {
    if (entry.migration == nullptr) continue;
    // Recorded applied, it would hide that part of its down ran, and `down` would refuse it.
    if (entry.half_reverted()) throw half_reverted_error({std::string(entry.name)});
    if (entry.pending()) {
      targets.push_back(&entry);
    } else {
      outcome.skipped.emplace_back(entry.name);
    }
    if (&entry == last) break;
  }
  refuse_empty(targets);
  for (const PlanEntry* entry : targets) {
    mark(*entry, outcome.batch);
    outcome.baselined.emplace_back(entry->name);
  }
  if (outcome.baselined.empty()) outcome.batch = 0;  // no record is in the batch
  return outcome;
}

}  // namespace

// As `up`'s boot check: no lock, and nothing created. As `up`, it refuses over another tool's
// history it would cover: `import` carries that history as it is.
BaselineResult Migrator::Impl::baseline_before_lock(const std::optional<std::string>& to,
                                                    std::vector<Migration>& migrations) {
  BaselineResult outcome;
  before_lock([&] {
    const Plan plan = load_and_plan(migrations);
    std::vector<const PlanEntry*> targets;
    outcome =
        baseline_of(plan, to, [&](const PlanEntry& entry, auto) { targets.push_back(&entry); });
    if (!targets.empty()) refuse_unimported(unimported_history(plan, migrations), targets);
  });
  return outcome;
}

std::vector<std::string> Migrator::baseline_targets(const std::optional<std::string>& to) {
  std::vector<Migration> migrations;
  return impl_->baseline_before_lock(to, migrations).baselined;
}

BaselineResult Migrator::baseline(const std::optional<std::string>& to) {
  std::vector<Migration> migrations;
  BaselineResult outcome = impl_->baseline_before_lock(to, migrations);
  if (outcome.baselined.empty()) return outcome;
  impl_->locked_run(
      "baseline", Direction::kUp, false,
      [&](RunStop&, Lease* lease, const std::string& run_id, std::vector<RunResult>&) {
        const RecordStamp stamp = impl_->stamp(run_id);
        std::vector<RecordWrite> writes;
        outcome = baseline_of(
            impl_->read_plan(migrations), to, [&](const PlanEntry& entry, std::int64_t batch) {
              writes.push_back(applied_record(*entry.migration, batch, stamp, "baseline"));
            });
        impl_->writer().write_records(writes, lease ? &lease->token() : nullptr);
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
    checks.push_back({"connection", "pass", std::string(impl_->reader().kind())});
  } catch (const Error& error) {
    checks.push_back({"connection", "fail", redact(error.what())});
    return audit_report(std::move(checks));
  }
  try {
    // The `ignored` and `import` checks name what their warnings would: none besides, and a
    // later run of this Migrator warns as before.
    const ScopedFlag quiet_ignored(impl_->ignored_reported);
    const ScopedFlag quiet_missing_table(impl_->missing_table_reported);
    const std::vector<Migration> migrations = impl_->load();
    Plan plan = impl_->read_plan(migrations);
    impl_->mark_live_run(plan);
    const Impl::HistoryLook look = impl_->history_if_pending(plan, migrations);
    const UpOutlook outlook{look.unimported, Impl::unread_history(look), look.missing_table,
                            impl_->up_refusal(plan, migrations, look), impl_->ignored_warning};
    for (AuditCheck& check : audit_database(impl_->reader(), impl_->config, plan, outlook)) {
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
  if (only != nullptr && only->state == MigrationState::kMissing) {
    throw MigrationFileNotFoundError(
        "'" + *file + "' is applied, but its file is gone: there is no checksum to re-stamp",
        {{"name", *file}});
  }
  if (only != nullptr && (only->state != MigrationState::kApplied || only->migration == nullptr)) {
    throw NotAppliedError("'" + *file + "' is not applied: nothing to repair", {{"name", *file}});
  }
  std::vector<RepairTarget> targets;
  for (const PlanEntry& entry : plan.entries) {
    if (!entry.drifted || (only != nullptr && &entry != only)) continue;
    targets.push_back({std::string(entry.name), entry.record->checksum, entry.migration->checksum});
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
        // Renames first: a renamed file's checksum is re-stamped on the record of its new name.
        repaired = drifted(impl_->locked_plan(migrations, run_id), file);
        for (const RepairTarget& target : repaired) {
          const std::string why =
              reason.empty() ? fmt::format("repair: checksum was {}", target.recorded) : reason;
          impl_->logger->info(fmt::format("{}: checksum re-stamped", target.name));
          impl_->writer().write_record(restamped_record(
              target.name, target.current, impl_->stamp(run_id, impl_->executed_by(), why)));
        }
      });
  return repaired;
}

namespace {

// Why an imported record is applied, or shows drift, when its row does not say so itself.
std::string import_reason(const ImportedMigration& migration, const std::string& tool) {
  if (migration.checksum_source == "changed") {
    return fmt::format("the file changed since {} applied it: its checksum is {}'s", tool, tool);
  }
  if (migration.baseline.empty()) return "";
  return "covered by the Flyway baseline at version " + migration.baseline;
}

// The texts of the migration files, for a tool that checksums them its own way (Flyway); a
// migration from code has none.
FileTexts texts_to_check(ForeignTool tool, const std::filesystem::path& dir,
                         const std::vector<Migration>& migrations) {
  FileTexts texts;
  if (tool != ForeignTool::kFlyway) return texts;
  for (const Migration& migration : migrations) {
    if (std::optional<std::string> text = read_whole_file(dir / migration.name)) {
      texts.emplace(migration.name, std::move(*text));
    }
  }
  return texts;
}

// The tables `import` looks for its tool's history in: --table, checked before it reaches SQL,
// else `otherwise` (the configured one, then the tool's default).
std::vector<std::string> import_tables(const std::string& table,
                                       std::vector<std::string> otherwise) {
  if (table.empty()) return otherwise;
  if (!is_qualified_identifier(table)) {
    throw ConfigInvalidError(
        fmt::format(
            "import --table '{}': a table is a name matching ^[A-Za-z_][A-Za-z0-9_]{{0,62}}$, "
            "or two such as schema.table",
            table),
        {{"key", "table"}, {"value", table}});
  }
  return {table};
}

// Where an imported record comes from: the tool, or "baseline" for one a Flyway baseline covers
// — never run by anyone, so forward-only as Flyway has it, and `down` refuses it like migronaut's
// own baseline.
std::string import_origin(const ImportedMigration& migration, const std::string& tool) {
  return migration.baseline.empty() ? tool : "baseline";
}

// The tool `import` adopts from: --from, else the configuration's importFrom.
ForeignTool import_tool(const ImportOptions& options, const Config& config) {
  const std::string& from = options.from.empty() ? config.import_from : options.from;
  if (from.empty()) {
    throw ConfigInvalidError(
        fmt::format("import needs the tool to adopt from: --from, or importFrom in the "
                    "configuration ({})",
                    foreign_tool_list()),
        {{"key", "from"}});
  }
  const std::optional<ForeignTool> tool = parse_foreign_tool(from);
  if (!tool) {
    throw ConfigInvalidError("import --from " + unknown_foreign_tool(from),
                             {{"key", "from"}, {"value", from}});
  }
  return *tool;
}

}  // namespace

ImportResult Migrator::import_history(const ImportOptions& options) {
  const ForeignTool tool = import_tool(options, impl_->config);
  const std::string from(foreign_tool_name(tool));
  const std::vector<std::string> tables = import_tables(options.table, impl_->history_tables(tool));
  const std::vector<Migration> migrations = impl_->load();
  const FileTexts texts = texts_to_check(tool, impl_->config.migrations_dir, migrations);
  const auto plan_now = [&] {
    // The changelog first: a database its store cannot read at all (PostgreSQL: no schema of the
    // search_path exists) is refused as that, not as one without the tool's history.
    const std::vector<ChangelogRecord> existing = impl_->reader().read_changelog();
    // The first table whose history holds something to import, else the first there: `up`
    // refuses over whichever of them shows what it would run again.
    std::optional<ImportResult> result;
    for (const std::string& table : tables) {
      if (result && !result->imported.empty()) break;
      const std::optional<std::vector<ForeignRecord>> history =
          impl_->reader().read_foreign_history(tool, table);
      if (!history) continue;
      ImportResult candidate =
          plan_import(tool, *history, migrations, existing, options.trust_hash, texts);
      candidate.table = table;
      if (!result || !candidate.imported.empty()) result = std::move(candidate);
    }
    if (!result) {
      const bool by_default = tables.back() == foreign_tool_table(tool) && options.table.empty();
      throw ConfigInvalidError(
          fmt::format("No {} history in {}: it has no table {}{}", from,
                      redact_uri(impl_->config.uri), fmt::join(tables, " nor "),
                      by_default ? fmt::format(" (if {} was configured with another table, name "
                                               "that with --table or importTable)",
                                               from)
                                 : ""),
          {{"key", "from"}, {"tool", from}, {"table", tables.front()}});
    }
    if (!existing.empty() && !options.force) {
      throw ImportTargetNotEmptyError(
          fmt::format("The changelog already holds {} record(s): import with --force to add to "
                      "it (records already applied are skipped)",
                      existing.size()),
          {{"records", existing.size()}});
    }
    return std::pair{std::move(*result), make_plan(migrations, existing).next_batch()};
  };
  ImportResult result = plan_now().first;
  result.dry_run = options.dry_run;
  if (options.dry_run || result.imported.empty()) return result;
  impl_->locked_run(
      "import", Direction::kUp, false,
      [&](RunStop&, Lease* lease, const std::string& run_id, std::vector<RunResult>&) {
        auto [planned, batch] = plan_now();
        result = std::move(planned);
        // All or none: an import cut short would leave the rest pending, for `up` to run again.
        std::vector<RecordWrite> writes;
        for (const ImportedMigration& migration : result.imported) {
          writes.push_back(imported_record(
              {migration.name, migration.checksum, migration.description, migration.applied_at_ms,
               batch++, import_origin(migration, result.from)},
              impl_->stamp(run_id, "", import_reason(migration, result.from))));
        }
        impl_->writer().write_records(writes, lease ? &lease->token() : nullptr);
      });
  return result;
}

std::optional<LockInfo> Migrator::lock_info() { return impl_->reader().read_lock(); }

std::optional<LockInfo> Migrator::force_unlock(std::string_view owner,
                                               std::optional<std::int64_t> locked_at_ms) {
  // Nothing held: nothing to write, and a missing database stays missing.
  if (!impl_->reader().read_lock()) return std::nullopt;
  return impl_->writer().force_release({owner, locked_at_ms});
}

LockWaitOptions Migrator::Impl::lock_wait_options(const RunMigrationsOptions& options) {
  LockWaitOptions wait;
  wait.on_lock_held = options.on_lock_held.value_or(config.on_lock_held);
  wait.timeout = options.lock_wait_timeout;
  if (!wait.timeout && config.lock_wait_timeout_ms) {
    wait.timeout = milliseconds(*config.lock_wait_timeout_ms);
  }
  wait.poll_interval =
      options.lock_poll_interval.value_or(milliseconds(config.lock_poll_interval_ms));
  wait.stop = options.stop;
  wait.stop_reason = [this]() -> std::optional<Error> {
    std::lock_guard lock(stop_mutex);
    if (!pending_stop) return std::nullopt;
    return RunAbortedError(*pending_stop);
  };
  wait.logger = logger.get();
  if (options.on_wait) {
    wait.on_wait = [&on_wait = options.on_wait](const LockWaitProgress& progress) {
      on_wait(LockWaitReport{progress.attempts, progress.waited, progress.next_delay,
                             progress.holder, progress.code, progress.writer_busy});
    };
  }
  wait.on_attempt = [this](Clock::TimePoint give_up_at) { wait_deadline = give_up_at; };
  wait.sleep = [this](milliseconds delay, std::stop_token stop) {
    sleep_until_release(delay, stop);
  };
  wait.holder_running = [](const LockInfo& holder) {
    return process_running_here(holder.pid, holder.host, holder.locked_at_ms);
  };
  return wait;
}

// Sleeps `delay`, or less where the database announces releases: a release ends the sleep at
// once. Polling stays the source of truth either way, and a database not reachable yet is simply
// slept on.
void Migrator::Impl::sleep_until_release(milliseconds delay, std::stop_token stop) {
  const auto until = Clock::real().now() + delay;
  // A waiter keeps one connection, the lock's, idle between its attempts (see waiting()). A fleet
  // waiting out one run then holds one connection per instance, not two, and half as many
  // server processes end when the holder's release wakes them. No lease lives here: the run
  // reopens `store` through writer() only once it holds the lock. From the first sleep on, even
  // when the refusal came before the lock connection was opened (SQLite: creating the tables met
  // another writer), so the next attempts wait only the lock connection's bounded busy timeout.
  try {
    Store& lock = lock_connection();
    store.reset();
    if (lock.can_push_release()) {
      lock.wait_for_release(delay, stop);
      return;
    }
  } catch (const ConnectionFailedError&) {
  }
  Clock::real().sleep_until(until, stop);
}

RunMigrationsResult run_migrations(const Config& config, const RunMigrationsOptions& options) {
  SeenFailures failures;  // outlives the migrator that points to it
  Migrator migrator(config, options.migrator);
  std::stop_callback stop_run(options.stop, [&] { migrator.stop("stop requested"); });
  migrator.impl_->wait_for_database = options.wait_for_database;
  const LockWaitOptions wait = migrator.impl_->lock_wait_options(options);
  migrator.impl_->waits_for_lock = wait.on_lock_held == OnLockHeld::kWait;
  migrator.impl_->wait_failures = &failures;
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
  migrator.impl_->missing_database_level = Logger::Level::kDebug;
  migrator.impl_->ignored_level = Logger::Level::kDebug;
  std::vector<std::string> names;
  for (const StatusRow& row : migrator.status()) {
    if (needs_run(row.state)) names.push_back(row.name);
  }
  return names;
}

}  // namespace migronaut

// The library's entry points: Migrator for every command, run_migrations for boot, and
// pending_migrations as a readiness probe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/config.hpp"
#include "migronaut/errors.hpp"
#include "migronaut/events.hpp"
#include "migronaut/lock.hpp"
#include "migronaut/migration.hpp"

namespace migronaut {

// Where a migration stands, in the plan and in `status`.
enum class MigrationState {
  kPending,  // never applied
  kApplied,
  kFailed,        // its last run failed
  kReverted,      // applied once, then rolled back
  kInterrupted,   // an `applying` mark a crash left
  kMissing,       // applied, but no file or code migration has this name any more
  kApplying,      // being applied now by the run that holds the lock (`applying` mark, live run)
  kHalfReverted,  // a `reverting` mark a stopped down left: part of its down may have run
  kReverting,     // being reverted now by the run that holds the lock (`reverting` mark)
};
// "pending", "applied", "failed", "reverted", "interrupted", "missing", "applying",
// "half-reverted", "reverting": how JSON and the CLI spell a state.
std::string_view migration_state_name(MigrationState state);
void to_json(nlohmann::json& out, MigrationState state);
// Whether a migration in `state` is still to do (all but applied and missing): what `status`
// counts as pending, what `wait` waits for and what pending_migrations lists. `up` runs it, but
// for kHalfReverted, which it refuses (half_reverted_error).
bool needs_run(MigrationState state);

// One row of `status`: a migration on disk or in code, or a record whose file is gone.
struct StatusRow {
  std::string name;
  MigrationState state = MigrationState::kPending;
  std::optional<bool> checksum_ok;  // absent when never applied
  bool out_of_order = false;        // pending, yet sorts before the newest applied migration
  bool reversible = false;
  bool invalid_name = false;  // a record whose name is not a bare file name (tampered)
  bool up_empty = false;      // its up section is empty (just created): `up` refuses it
  std::string description;
  std::optional<ChangelogRecord> record;
  std::string checksum;  // of the file or code migration on hand
  std::string version;   // "" for a repeatable migration
  bool repeatable = false;
  // The former name of a renamed migration whose new name the changelog does not record yet.
  std::string renamed_from;
  // dry-run only: the script the database would receive (an SQL section, or MongoDB's commands
  // as a JSON array); empty for a C++ body.
  std::string script;
};
void to_json(nlohmann::json& out, const StatusRow& row);

// Another tool's history on a database with no migronaut changelog, covering `covered`
// migrations of the folder; or, on a database with a changelog, migrations of the folder the
// tool applied that the changelog does not record as applied (`since_import`: since the import,
// or ever, for a tool never imported). `up` would run them again, so it refuses (as do `dry-run
// up`, `wait` and `baseline`) until `import --from <tool>` records them.
struct UnimportedHistory {
  std::string tool;   // as `import --from` spells it
  std::string table;  // where the tool keeps it (a MongoDB collection for migrate-mongo)
  std::size_t covered = 0;
  std::vector<std::string> since_import;  // their names, in the order the tool applied them
};
void to_json(nlohmann::json& out, const UnimportedHistory& history);
// What `up` refuses `history` with (MIGRATION_BLOCKED), naming the import that lifts it.
MigrationBlockedError unimported_history_error(const UnimportedHistory& history);
// Why `up` refuses half-reverted migrations (MigrationState::kHalfReverted), the first of
// `names` named: only a `down` of it may run it again.
MigrationBlockedError half_reverted_error(const std::vector<std::string>& names);

// `status`: the rows, the other tool's history `up` refuses over, if any, and whether `up`
// would refuse to run now.
struct StatusReport {
  std::vector<StatusRow> rows;
  std::optional<UnimportedHistory> unimported;
  // The error `up` (no target) would stop with before its lock, as it would say it: drift it
  // refuses, a half-reverted migration, another tool's history, an invalid script... Its code()
  // is `up`'s exit status. None when `up` would run, or find nothing to do.
  std::optional<Error> up_refusal;
};

struct UpOptions {
  // Targets are a migration's name or its version ("20260101120000", "3", "1.2").
  std::optional<std::string> file;    // only this migration
  std::optional<std::string> to;      // pending migrations up to and including this one
  std::optional<std::int64_t> steps;  // at most the next n pending migrations
  bool no_lock = false;               // development only
  std::string requested_by;
  std::string reason;
};

struct DownOptions {
  std::optional<std::string> file;
  std::optional<std::int64_t> steps;  // the last n applied, newest first
  std::optional<std::int64_t> batch;  // one batch
  std::optional<std::string> to;      // every applied one that runs after it (version order)
  bool all = false;  // every applied one, newest first (repeatables without a down section stay)
  bool no_lock = false;
  std::string requested_by;
  std::string reason;
};

struct BaselineResult {
  std::vector<std::string> baselined;
  std::vector<std::string> skipped;  // already applied
  std::int64_t batch = 0;            // 0 when nothing was baselined
};

// One check of `audit`: "pass", "warn" or "fail", with what it found.
struct AuditCheck {
  std::string name;
  std::string status;
  std::string detail;
};
struct AuditReport {
  bool ok = true;  // no check failed (warnings allowed)
  int failed = 0;
  int warnings = 0;
  std::vector<AuditCheck> checks;
};
void to_json(nlohmann::json& out, const AuditReport& report);

// What `repair` re-stamps: an applied migration whose file changed, the checksums before and
// after.
struct RepairTarget {
  std::string name;
  std::string recorded;
  std::string current;
};

// `import --from <tool>`: adopts another tool's history without running anything.
struct ImportOptions {
  // dbmate, golang-migrate, flyway, knex, node-pg-migrate, sql-migrate or migrate-mongo.
  std::string from;
  // The tool's history table (MongoDB: collection) when it was configured with another name than
  // its default (dbmate's --migrations-table, Flyway's table, sql-migrate's table: …);
  // PostgreSQL takes schema.table. "" for the default.
  std::string table;
  bool dry_run = false;
  bool force = false;       // import into a changelog that already has records
  bool trust_hash = false;  // migrate-mongo: keep its fileHash even when the file differs
};
struct ImportedMigration {
  std::string name;
  std::optional<std::int64_t> applied_at_ms;  // the tool's time; absent when it keeps none
  std::string checksum;
  // "disk" (the file's), "verified" (the file's, the tool's own checksum of it agreeing),
  // "changed" (the tool's, which the file no longer matches: drift), "reused" (the tool's hash,
  // migrate-mongo's) or "missing" (no file).
  std::string checksum_source;
  std::string description;
  std::string baseline;  // Flyway: the baseline version that covers it, when no row of its own does
};
struct ImportResult {
  std::string from;
  std::string table;  // the history table (collection) it was read from
  bool dry_run = false;
  std::vector<ImportedMigration> imported;
  std::vector<std::string> skipped;  // already recorded in migronaut's changelog
  // What the history holds but is not imported, with why (failed rows, versions no file has).
  std::vector<std::pair<std::string, std::string>> not_imported;
};
void to_json(nlohmann::json& out, const ImportResult& result);

struct MigratorOptions {
  std::vector<CodeMigration> migrations;  // mixed with the files into one ordered plan
  Hooks hooks;
  std::vector<EventListener> listeners;
  // Where log lines go; null: spdlog's logger named "migronaut" (one on stderr unless the host
  // registered its own). Called from more than one thread (the lock's heartbeat, the file load
  // beside the changelog read): it must be thread-safe.
  std::shared_ptr<Logger> logger;
  // A waiter's deadline (a polling loop of the caller's, as `migronaut wait` is): connections
  // opened from now on give up connecting by then, though never in less than a second, instead
  // of hanging as long as the database's own connect timeout lets them. run_migrations bounds
  // the connecting of its wait by the wait's budget by itself.
  std::optional<std::chrono::steady_clock::time_point> connect_by;
};

struct RunMigrationsOptions;
struct RunMigrationsResult;

// Used by one thread at a time (stop() excepted): its commands share its connections. A thread
// that reads the status while another applies migrations needs a Migrator of its own.
class Migrator {
 public:
  explicit Migrator(Config config, MigratorOptions options = {});
  ~Migrator();
  Migrator(const Migrator&) = delete;
  Migrator& operator=(const Migrator&) = delete;

  // Opens the connection (idempotent); every command connects on first use.
  void connect();
  void disconnect();

  std::vector<RunResult> up(const UpOptions& options = {});
  std::vector<RunResult> down(const DownOptions& options = {});
  // Reverts and re-applies the newest applied migration (or `file`) under one lock.
  std::vector<RunResult> redo(const std::optional<std::string>& file = std::nullopt);

  std::vector<StatusRow> status();
  // status(), and whether `up` would refuse: another tool's history is read only when something
  // is pending, so a boot check's database with nothing to do pays nothing for it.
  StatusReport status_report();
  // The rows `up` or `down` would run, without taking the lock or writing anything.
  std::vector<StatusRow> dry_run_up(const UpOptions& options = {});
  std::vector<StatusRow> dry_run_down(const DownOptions& options = {});
  // The migrations baseline() would mark applied (pending ones up to `to`), without taking the
  // lock or writing anything; refused as baseline() refuses.
  std::vector<std::string> baseline_targets(const std::optional<std::string>& to = std::nullopt);
  // Marks pending migrations (up to `to`) applied without running them.
  BaselineResult baseline(const std::optional<std::string>& to = std::nullopt);

  // Read-only health checks; never throws for a database that cannot be reached (that is a
  // failed check).
  AuditReport audit();
  // Applied migrations whose file changed (only `file`, when given), and re-stamping them
  // under the lock with who asked and why. Nothing runs, nothing else is written.
  std::vector<RepairTarget> repair_targets(const std::optional<std::string>& file = std::nullopt);
  std::vector<RepairTarget> repair(const std::optional<std::string>& file = std::nullopt,
                                   const std::string& reason = "");
  ImportResult import_history(const ImportOptions& options);

  std::optional<LockInfo> lock_info();
  // Releases the lock whoever holds it, or only if the run `owner` does (the holder a caller
  // showed and was told to release) and, with `locked_at_ms`, has not renewed it since it was
  // shown with that stamp; returns the holder it removed.
  std::optional<LockInfo> force_unlock(std::string_view owner = {},
                                       std::optional<std::int64_t> locked_at_ms = std::nullopt);
  // The database's clock in ms since the epoch: what a holder's lockedAt is judged against.
  std::int64_t database_now_ms();

  // Stops the current (or next) run at the next migration boundary with RunAbortedError (a
  // migration between lock timeout retries stops at once, left pending); a redo that holds the
  // lock finishes first, its revert and re-apply being one operation. Thread-safe; the
  // signal-handler path of the CLI.
  void stop(const std::string& reason = "stop requested");

  const Config& config() const;

 private:
  friend RunMigrationsResult run_migrations(const Config&, const RunMigrationsOptions&);
  friend std::vector<std::string> pending_migrations(const Config&, const MigratorOptions&);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct LockWaitReport {
  int attempts = 0;
  std::chrono::milliseconds waited{0};
  std::chrono::milliseconds next_delay{0};
  std::optional<LockInfo> holder;
  // Why the run waits: LOCK_ALREADY_HELD, or CONNECTION_FAILED while the database cannot be
  // reached yet.
  ErrorCode code = ErrorCode::kLockAlreadyHeld;
  // Another connection holds the database's single write slot (SQLite): the holder's migration,
  // or, with no holder, another writer such as a sqlite3 shell.
  bool writer_busy = false;
};

struct RunMigrationsOptions {
  MigratorOptions migrator;
  UpOptions up;
  // Override the config's onLockHeld / lockWaitTimeoutMs / lockPollIntervalMs.
  std::optional<OnLockHeld> on_lock_held;
  std::optional<std::chrono::milliseconds> lock_wait_timeout;
  std::optional<std::chrono::milliseconds> lock_poll_interval;
  std::stop_token stop;  // wire it to SIGTERM: a dying pod neither waits nor takes the lock
  std::function<void(const LockWaitReport&)> on_wait;  // before each sleep while waiting
  // Also wait, within the same budget, for a database that cannot be reached yet (a pod that
  // starts before its database). Unset, a first connection that fails fails the run
  // (CONNECTION_FAILED); a connection lost after the database was reached is waited out anyway.
  bool wait_for_database = false;
};

struct RunMigrationsResult {
  std::vector<RunResult> applied;
  bool up_to_date = false;  // nothing was pending (possibly after waiting for a peer)
  bool waited = false;
  std::chrono::milliseconds waited_for{0};
  int attempts = 0;
};

// Boot: connects, returns at once when nothing is pending, otherwise applies under the lock —
// waiting for a peer's lock as configured — and always disconnects.
RunMigrationsResult run_migrations(const Config& config, const RunMigrationsOptions& options = {});

// Readiness probe: the names of pending migrations. Read-only: takes no lock, writes nothing.
std::vector<std::string> pending_migrations(const Config& config,
                                            const MigratorOptions& options = {});

}  // namespace migronaut

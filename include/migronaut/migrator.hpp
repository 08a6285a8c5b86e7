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
#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/config.hpp"
#include "migronaut/events.hpp"
#include "migronaut/lock.hpp"
#include "migronaut/migration.hpp"

namespace migronaut {

// One row of `status`: a migration on disk or in code, or a record whose file is gone.
struct StatusRow {
  std::string name;
  // "applied", "pending", "failed", "reverted", "interrupted" (an `applying` mark a crash left),
  // "missing" (applied, but no file or code migration has this name any more).
  std::string state;
  std::optional<bool> checksum_ok;  // absent when never applied
  bool out_of_order = false;        // pending, yet sorts before the newest applied migration
  bool reversible = false;
  bool invalid_name = false;  // a record whose name is not a bare file name (tampered)
  std::string description;
  std::optional<ChangelogRecord> record;
  std::string checksum;  // of the file or code migration on hand
};
void to_json(nlohmann::json& out, const StatusRow& row);

struct UpOptions {
  std::optional<std::string> file;  // only this migration
  std::optional<std::string> to;    // pending migrations up to and including this one
  bool no_lock = false;             // development only
  std::string requested_by;
  std::string reason;
};

struct DownOptions {
  std::optional<std::string> file;
  std::optional<std::int64_t> steps;  // the last n applied, newest first
  std::optional<std::int64_t> batch;  // one batch
  std::optional<std::string> to;      // everything applied after this one (exclusive)
  bool no_lock = false;
  std::string requested_by;
  std::string reason;
};

struct BaselineResult {
  std::vector<std::string> baselined;
  std::vector<std::string> skipped;  // already applied
  std::int64_t batch = 0;
};

struct MigratorOptions {
  std::vector<CodeMigration> migrations;  // mixed with the files into one ordered plan
  Hooks hooks;
  std::vector<EventListener> listeners;
  // Where log lines go; null: spdlog's default logger on stderr.
  std::shared_ptr<Logger> logger;
};

struct RunMigrationsOptions;
struct RunMigrationsResult;

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
  // The rows `up` or `down` would run, without taking the lock or writing anything.
  std::vector<StatusRow> dry_run_up(const UpOptions& options = {});
  std::vector<StatusRow> dry_run_down(const DownOptions& options = {});
  // Marks pending migrations (up to `to`) applied without running them.
  BaselineResult baseline(const std::optional<std::string>& to = std::nullopt);

  std::optional<LockInfo> lock_info();
  std::optional<LockInfo> force_unlock();

  // Stops the current (or next) run at the next migration boundary with RunAbortedError.
  // Thread-safe; the signal-handler path of the CLI.
  void stop(const std::string& reason = "stop requested");

  const Config& config() const;

 private:
  friend RunMigrationsResult run_migrations(const Config&, const RunMigrationsOptions&);
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

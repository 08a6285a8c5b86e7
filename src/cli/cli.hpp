// What every command shares: the global flags, the output channels and the graceful stop.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "cli/output.hpp"
#include "cli/signals.hpp"
#include "migronaut/config.hpp"
#include "migronaut/migrator.hpp"

namespace migronaut::cli {

struct GlobalFlags {
  std::optional<std::string> uri;
  std::optional<std::string> db;
  std::optional<std::string> dir;
  std::optional<std::string> config_file;
  std::optional<std::string> env_file;
  bool no_env = false;
  bool verbose = false;
  bool quiet = false;
  bool no_color = false;
  bool json = false;
};

// The work a first signal lets a run finish before it stops.
enum class StopsAfter {
  kMigration,  // the migration in flight (up, down)
  kRedo,       // the whole redo: its revert and its re-apply are one operation
};

class Context {
 public:
  Context(const GlobalFlags& flags, Output& output, Signals& signals)
      : flags_(flags), output_(output), signals_(signals) {}

  const GlobalFlags& flags() const { return flags_; }
  Output& out() { return output_; }
  Signals& signals() { return signals_; }
  std::stop_token stop() const { return signals_.token(); }

  // The resolved configuration; `extra` adds flag-layer keys of the command (e.g. the lock wait
  // options of `up --wait`). `require_uri` false for commands that need no database.
  Config config(const nlohmann::json& extra = nlohmann::json::object(), bool require_uri = true);
  // Migrator options wired to this CLI: its logger, and events telling the signal warning what
  // is in flight.
  MigratorOptions migrator_options(StopsAfter stops_after = StopsAfter::kMigration);

 private:
  const GlobalFlags& flags_;
  Output& output_;
  Signals& signals_;
  bool variables_checked_ = false;  // unknown MIGRONAUT_* variables are warned of once
};

// A command: its subcommand (with its own options bound) and what running it does. `run`
// returns the exit status of a run that did not fail (status --check returns 2 when pending);
// failures are migronaut::Errors, which main() turns into their exit codes.
struct Command {
  CLI::App* app = nullptr;
  std::function<int(Context&)> run;
  // A first SIGINT/SIGTERM lets a run finish its migration in flight (exit 11); commands that
  // change nothing just exit.
  bool graceful_stop = false;
  // Whether it can wait for a held lock (--wait-timeout): what a lock-held error suggests.
  bool waits_for_lock = false;
};

Command add_init(CLI::App& app);
Command add_create(CLI::App& app);
Command add_up(CLI::App& app);
Command add_down(CLI::App& app);
Command add_redo(CLI::App& app);
Command add_status(CLI::App& app);
Command add_list(CLI::App& app);
Command add_dry_run(CLI::App& app);
Command add_baseline(CLI::App& app);
Command add_lock(CLI::App& app);
Command add_unlock(CLI::App& app);
Command add_wait(CLI::App& app);
Command add_audit(CLI::App& app);
Command add_repair(CLI::App& app);
Command add_import(CLI::App& app);
Command add_lint(CLI::App& app);

// The files of the migrations `up` with `options` would apply (the database decides which).
std::vector<std::filesystem::path> pending_files(Context& context, const Config& config,
                                                 const UpOptions& options);

// Asks y/N on the terminal; with --json (non-interactive) a destructive command needs --yes. A
// first signal cancels the prompt (false) at once, even while stdin stays open.
bool confirm(Context& context, const std::string& question, bool yes);

}  // namespace migronaut::cli

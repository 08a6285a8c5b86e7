// `migronaut up [file] [--to f] [--steps n] [--no-wait] [--wait-timeout d] [--lint]`: applies
// pending migrations under the lock, waiting out a peer's lock by default (the boot path of
// run_migrations).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "cli/cli.hpp"
#include "cli/duration.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "cli/lint_files.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"

namespace migronaut::cli {
namespace {

using std::chrono::steady_clock;

// A non-terminal (pod log, CI) gets one status line this often while waiting.
constexpr auto kStatusLineInterval = std::chrono::seconds(10);

struct UpFlags {
  std::optional<std::string> file;
  std::optional<std::string> to;
  std::optional<std::string> steps;
  bool wait = false;
  bool no_wait = false;
  std::optional<std::string> wait_timeout;  // "" is refused, never read as no timeout
  bool no_lock = false;
  std::string reason;
  bool lint = false;
};

// `up --lint`: the pending migrations linted first; any error refuses the run untouched.
void lint_pending(Context& context, const Config& config, const UpOptions& options) {
  LintResult result = lint_files(pending_files(context, config, options), config);
  lint_ignored_files(config.migrations_dir, result);
  nlohmann::json findings = nlohmann::json::array();
  for (const FileFinding& finding : result.findings) {
    if (finding.rule->severity != LintSeverity::kError) continue;
    context.out().error(describe(finding));
    findings.push_back(to_json(finding));
  }
  if (findings.empty()) return;
  const FileFinding& first =
      *std::find_if(result.findings.begin(), result.findings.end(),
                    [](const FileFinding& f) { return f.rule->severity == LintSeverity::kError; });
  throw LintFailedError(
      fmt::format("lint found {} error(s) in the pending migrations, first {} [{}]; nothing "
                  "was applied",
                  findings.size(), location(first), first.rule->id),
      {{"findings", findings}});
}

// What a waiter shows: who holds the lock, what it is on, how recently it renewed and how long
// we have waited. A terminal gets a live line redrawn every second; anything else a status
// line at the first refusal and every 10 s.
class WaitLine {
 public:
  explicit WaitLine(Output& out) : out_(out) {}
  ~WaitLine() {
    ticker_ = {};
    out_.clear_live();
  }

  void update(const LockWaitReport& report) {
    {
      std::lock_guard lock(mutex_);
      if (!started_) started_ = steady_clock::now() - report.waited;
      holder_ = report.holder;
      code_ = report.code;
      writer_busy_ = report.writer_busy;
    }
    if (out_.terminal()) {
      if (!ticker_.joinable()) ticker_ = std::jthread([this](std::stop_token stop) { tick(stop); });
      return;
    }
    const auto now = steady_clock::now();
    if (!last_status_line_ || now - *last_status_line_ >= kStatusLineInterval) {
      last_status_line_ = now;
      out_.info(text());
    }
  }

 private:
  void tick(std::stop_token stop) {
    while (!stop.stop_requested()) {
      out_.live(text());
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      cv.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
    }
  }

  std::string text() {
    std::lock_guard lock(mutex_);
    const auto waited =
        std::chrono::duration_cast<std::chrono::seconds>(steady_clock::now() - *started_);
    // Before the lock a run also waits for a database it cannot reach: no holder to name then.
    if (code_ == ErrorCode::kConnectionFailed && !holder_) {
      return fmt::format("⏳ waiting for the database — waited {} s", waited.count());
    }
    // A write slot taken with no holder on record: another writer (a sqlite3 shell, a tool).
    if (writer_busy_ && !holder_) {
      return fmt::format("⏳ waiting for another writer to release the database — waited {} s",
                         waited.count());
    }
    return fmt::format("⏳ waiting for the lock held by {} — waited {} s",
                       holder_ ? describe_holder(*holder_, wall_clock_ms()) : "another run",
                       waited.count());
  }

  Output& out_;
  std::mutex mutex_;
  std::optional<steady_clock::time_point> started_;
  std::optional<LockInfo> holder_;
  ErrorCode code_ = ErrorCode::kLockAlreadyHeld;
  bool writer_busy_ = false;
  std::optional<steady_clock::time_point> last_status_line_;
  std::jthread ticker_;
};

}  // namespace

Command add_up(CLI::App& app) {
  auto* sub = app.add_subcommand("up", "Apply pending migrations (waits for a peer's lock)");
  auto flags = std::make_shared<UpFlags>();
  sub->add_option("file", flags->file, "Apply only this migration (a name or a version)")
      ->type_name("FILE");
  sub->add_option("--to", flags->to,
                  "Apply pending migrations up to and including this one (a name or a version)")
      ->type_name("FILE");
  sub->add_option("--steps", flags->steps, "Apply at most the next n pending migrations")
      ->type_name("N");
  sub->add_flag(
      "--wait", flags->wait,
      "Wait while another run holds the lock (the default), and for a database not reachable yet");
  sub->add_flag("--no-wait", flags->no_wait, "Fail at once (exit 3) when the lock is held");
  sub->add_option("--wait-timeout", flags->wait_timeout,
                  "Give up after this long without progress from the holder")
      ->type_name("DURATION");
  sub->add_flag("--no-lock", flags->no_lock, "Take no lock (development only)");
  sub->add_option("--reason", flags->reason, "Why: stamped on the changelog records")
      ->type_name("TEXT");
  sub->add_flag("--lint", flags->lint, "Lint the pending migrations first; refuse on errors");
  document(sub, "migronaut up --wait-timeout 5m --reason 'release 1.4'",
           "0 applied or up to date, 3 lock held (--no-wait) or its holder stalled, 4 an applied "
           "file changed (strict, or renamed with other content), 5 connection failed, 6 a bad "
           "flag or config, 7 a migration failed, 8 an unknown file or --to, 10 lock lost, 11 "
           "stopped by a signal, 14 a migration exceeded its timeout, 19 a bad migration name, 20 "
           "an empty up section or a statement refused before anything runs, 23 a late arrival "
           "with onOutOfOrder error (not for a single file), 24 another tool's history not "
           "imported or a half-reverted migration, 35/36 the folder or a file cannot be read, 37 "
           "an unreadable changelog record, 45 lint failed (--lint), 46 a lock_timeout ran out "
           "(see `migronaut help exit-codes`)");
  return {
      sub,
      [flags](Context& context) {
        if (flags->wait && flags->no_wait) {
          throw ConfigInvalidError("up takes --wait or --no-wait, not both",
                                   {{"option", "--no-wait"}});
        }
        nlohmann::json extra = nlohmann::json::object();
        if (flags->wait) extra["onLockHeld"] = "wait";
        if (flags->no_wait) extra["onLockHeld"] = "throw";
        if (flags->wait_timeout) {
          extra["lockWaitTimeoutMs"] = parse_duration_ms(*flags->wait_timeout, "--wait-timeout");
        }
        const Config config = context.config(extra);

        RunMigrationsOptions options;
        // Waiting for the lock is the default; waiting for the database takes --wait.
        options.wait_for_database = flags->wait;
        options.migrator = context.migrator_options();
        options.up.file = named_migration(flags->file, "the migration to apply");
        options.up.to = named_migration(flags->to, "--to");
        options.up.steps = positive_flag(flags->steps, "--steps");
        options.up.no_lock = flags->no_lock;
        options.up.reason = flags->reason;
        options.stop = context.stop();
        if (flags->lint) lint_pending(context, config, options.up);
        WaitLine line(context.out());
        options.on_wait = [&line](const LockWaitReport& report) { line.update(report); };

        const RunMigrationsResult result = run_migrations(config, options);
        Output& out = context.out();
        out.clear_live();
        if (result.up_to_date) {
          const bool selected = options.up.file || options.up.to || options.up.steps.has_value();
          out.success(result.waited ? "Up to date (a peer applied the pending migrations)"
                      : selected    ? "Nothing to apply in the selection"
                                    : "Up to date: nothing to apply");
        } else {
          out.success(fmt::format("{} migration(s) applied", result.applied.size()));
        }
        if (out.json_mode()) {
          out.document({{"results", result.applied},
                        {"upToDate", result.up_to_date},
                        {"waited", result.waited},
                        {"waitedMs", result.waited_for.count()},
                        {"attempts", result.attempts},
                        {"stopRequested", context.stop().stop_requested()}});
        }
        return 0;
      },
      /*graceful_stop=*/true,
      /*waits_for_lock=*/true};
}

}  // namespace migronaut::cli

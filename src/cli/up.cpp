// `migronaut up [file] [--to f] [--steps n] [--wait] [--wait-timeout ms]`: applies pending
// migrations under the lock, optionally waiting out a peer's lock (the boot path of
// run_migrations).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/lint_files.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"

namespace migronaut::cli {
namespace {

struct UpFlags {
  std::string file;
  std::string to;
  std::string steps;
  bool wait = false;
  std::string wait_timeout;
  bool no_lock = false;
  std::string reason;
  bool lint = false;
};

// `up --lint`: the pending migrations linted first; any error refuses the run untouched.
void lint_pending(Context& context, const Config& config, const UpOptions& options) {
  const LintResult result = lint_files(pending_files(context, config, options), config);
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
      fmt::format("lint found {} error(s) in the pending migrations, first "
                  "{}:{}:{} [{}]; nothing was applied",
                  findings.size(), first.file, first.line, first.column, first.rule->id),
      {{"findings", findings}});
}

// The live line a terminal shows while waiting: who holds the lock, what it is on, and how
// long we have waited. Redrawn every second between polls.
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
      if (!started_) started_ = std::chrono::steady_clock::now() - report.waited;
      holder_ = report.holder;
    }
    if (out_.terminal() && !ticker_.joinable()) {
      ticker_ = std::jthread([this](std::stop_token stop) {
        while (!stop.stop_requested()) {
          draw();
          std::mutex m;
          std::condition_variable_any cv;
          std::unique_lock lock(m);
          cv.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
        }
      });
    }
    if (!out_.terminal()) out_.debug(text());
  }

 private:
  std::string text() {
    std::lock_guard lock(mutex_);
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::steady_clock::now() - *started_);
    return fmt::format("⏳ Waiting for the lock held by {} — waited {}s",
                       holder_ ? describe_holder(*holder_) : "another run", waited.count());
  }
  void draw() { out_.live(text()); }

  Output& out_;
  std::mutex mutex_;
  std::optional<std::chrono::steady_clock::time_point> started_;
  std::optional<LockInfo> holder_;
  std::jthread ticker_;
};

}  // namespace

Command add_up(CLI::App& app) {
  auto* sub = app.add_subcommand("up", "Apply pending migrations");
  auto flags = std::make_shared<UpFlags>();
  sub->add_option("file", flags->file, "Apply only this migration (a name or a version)");
  sub->add_option("--to", flags->to,
                  "Apply pending migrations up to and including this one (a name or a version)");
  sub->add_option("--steps", flags->steps, "Apply at most the next n pending migrations");
  sub->add_flag("--wait", flags->wait, "Wait while another run holds the lock");
  sub->add_option("--wait-timeout", flags->wait_timeout,
                  "Give up after this many ms without progress from the holder");
  sub->add_flag("--no-lock", flags->no_lock, "Take no lock (development only)");
  sub->add_option("--reason", flags->reason, "Why: stamped on the changelog records");
  sub->add_flag("--lint", flags->lint, "Lint the pending migrations first; refuse on errors");
  return {sub,
          [flags](Context& context) {
            nlohmann::json extra = nlohmann::json::object();
            if (flags->wait) extra["onLockHeld"] = "wait";
            if (!flags->wait_timeout.empty()) {
              extra["lockWaitTimeoutMs"] = flag_number(flags->wait_timeout);
            }
            const Config config = context.config(extra);

            RunMigrationsOptions options;
            options.migrator = context.migrator_options();
            if (!flags->file.empty()) options.up.file = flags->file;
            if (!flags->to.empty()) options.up.to = flags->to;
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
              out.success(result.waited ? "Up to date (a peer applied the pending migrations)"
                                        : "Up to date: nothing to apply");
            } else {
              out.success(fmt::format("{} migration(s) applied", result.applied.size()));
            }
            if (out.json_mode()) {
              out.document({{"applied", result.applied},
                            {"upToDate", result.up_to_date},
                            {"waited", result.waited},
                            {"waitedMs", result.waited_for.count()},
                            {"attempts", result.attempts}});
            }
            return 0;
          },
          /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

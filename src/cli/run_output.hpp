// How the commands that run migrations report their results.
#pragma once

#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace migronaut::cli {

// A Migrator for a locked command, stopped gracefully by the CLI's first signal.
class StoppableMigrator {
 public:
  StoppableMigrator(Context& context, Config config,
                    StopsAfter stops_after = StopsAfter::kMigration)
      : migrator_(std::move(config), context.migrator_options(stops_after)),
        on_signal_(context.stop(), [this] { migrator_.stop("interrupted by a signal"); }) {}
  Migrator& operator*() { return migrator_; }
  Migrator* operator->() { return &migrator_; }

 private:
  Migrator migrator_;
  std::stop_callback<std::function<void()>> on_signal_;
};

// "✔ 2 reverted, 1 applied" and, with --json, {"results": [results], "stopRequested": …}.
void report_results(Context& context, const std::vector<RunResult>& results);

}  // namespace migronaut::cli

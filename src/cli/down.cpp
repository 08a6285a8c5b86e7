// `migronaut down [file] [--steps n | --batch n | --to f | --all]`: reverts the last batch by
// default.
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "cli/run_output.hpp"
#include "fmt/format.h"

namespace migronaut::cli {

namespace {

struct DownFlags {
  std::optional<std::string> file;
  std::optional<std::string> steps;
  std::optional<std::string> batch;
  std::optional<std::string> to;
  bool all = false;
  bool no_lock = false;
  std::string reason;
};

}  // namespace

Command add_down(CLI::App& app) {
  auto* sub = app.add_subcommand("down", "Revert migrations (the last batch by default)");
  auto flags = std::make_shared<DownFlags>();
  sub->add_option("file", flags->file, "Revert only this migration")->type_name("FILE");
  sub->add_option("--steps", flags->steps, "Revert the last n applied migrations")->type_name("N");
  sub->add_option("--batch", flags->batch, "Revert this batch")->type_name("N");
  sub->add_option("--to", flags->to,
                  "Revert every applied migration that runs after this one (by version, not by "
                  "when it was applied)")
      ->type_name("FILE");
  sub->add_flag("--all", flags->all,
                "Revert every applied migration, newest first (a repeatable one without a down "
                "section stays)");
  sub->add_flag("--no-lock", flags->no_lock, "Take no lock (development only)");
  sub->add_option("--reason", flags->reason, "Why: stamped on the changelog records")
      ->type_name("TEXT");
  document(sub, "migronaut down --steps 2 --reason rollback",
           "0 reverted or nothing to do, 3 lock held, 5 connection failed, 6 more than one of a "
           "file, --steps, --batch, --to and --all, 7 a down section failed, 8 an unknown file or "
           "--to target, or the file of a migration to revert is gone, 9 not applied, 11 stopped "
           "by a signal, 13 irreversible, 37 (no selector) an applied record has no batch");
  return {sub,
          [flags](Context& context) {
            DownOptions options;
            options.file = named_migration(flags->file, "the migration to revert");
            options.to = named_migration(flags->to, "--to");
            options.steps = positive_flag(flags->steps, "--steps");
            options.batch = positive_flag(flags->batch, "--batch");
            options.all = flags->all;
            options.no_lock = flags->no_lock;
            options.reason = flags->reason;
            StoppableMigrator migrator(context, context.config());
            report_results(context, migrator->down(options));
            return 0;
          },
          /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

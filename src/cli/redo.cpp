// `migronaut redo [file]`: reverts and re-applies the newest applied migration under one lock.
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "cli/run_output.hpp"

namespace migronaut::cli {

Command add_redo(CLI::App& app) {
  auto* sub = app.add_subcommand("redo", "Revert and re-apply the newest applied migration");
  auto file = std::make_shared<std::optional<std::string>>();
  sub->add_option("file", *file, "Redo this migration instead")->type_name("FILE");
  document(sub, "migronaut redo",
           "0 done (a first signal during the redo lets it finish, revert and re-apply), 3 lock "
           "held, 4 its file changed (strict), 5 connection failed, 7 a migration failed, 8 an "
           "unknown file, 9 nothing applied, 10 lock lost, 11 stopped by a signal before the "
           "redo began, 13 irreversible, 14 a migration timed out, 20 a script refused (its up "
           "section holds no statement, say), 24 a dead run's statement still runs (PostgreSQL), "
           "46 lock timeout (PostgreSQL)");
  return {sub,
          [file](Context& context) {
            StoppableMigrator migrator(context, context.config(), StopsAfter::kRedo);
            report_results(context,
                           migrator->redo(named_migration(*file, "the migration to redo")));
            return 0;
          },
          /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

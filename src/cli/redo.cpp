// `migronaut redo [file]`: reverts and re-applies the newest applied migration under one lock.
#include "cli/help.hpp"
#include "cli/run_output.hpp"

namespace migronaut::cli {

Command add_redo(CLI::App& app) {
  auto* sub = app.add_subcommand("redo", "Revert and re-apply the newest applied migration");
  auto file = std::make_shared<std::string>();
  sub->add_option("file", *file, "Redo this migration instead")->type_name("FILE");
  document(sub, "migronaut redo",
           "0 done, 3 lock held, 5 connection failed, 7 a migration failed, 9 nothing applied, 13 "
           "irreversible");
  return {sub,
          [file](Context& context) {
            StoppableMigrator migrator(context, context.config());
            report_results(context.out(),
                           migrator->redo(file->empty() ? std::nullopt : std::optional(*file)));
            return 0;
          },
          /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

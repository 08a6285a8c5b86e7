// `migronaut redo [file]`: reverts and re-applies the newest applied migration under one lock.
#include "cli/run_output.hpp"

namespace migronaut::cli {

Command add_redo(CLI::App& app) {
  auto* sub = app.add_subcommand("redo", "Revert and re-apply the newest applied migration");
  auto file = std::make_shared<std::string>();
  sub->add_option("file", *file, "Redo this migration instead");
  return {sub,
          [file](Context& context) {
            StoppableMigrator migrator(context, context.config());
            report_results(context.out(), "results",
                           migrator->redo(file->empty() ? std::nullopt : std::optional(*file)));
            return 0;
          },
          /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

// `migronaut baseline [--to f] [--yes]`: marks migrations applied without running them, for a
// database that already has their effects. The records are forward-only.
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "cli/run_output.hpp"
#include "fmt/format.h"

namespace migronaut::cli {

Command add_baseline(CLI::App& app) {
  auto* sub =
      app.add_subcommand("baseline", "Mark pending migrations applied without running them");
  auto to = std::make_shared<std::optional<std::string>>();
  auto yes = std::make_shared<bool>(false);
  sub->add_option("--to", *to, "Only up to and including this migration")->type_name("FILE");
  sub->add_flag("-y,--yes", *yes, "Do not ask for confirmation");
  document(
      sub, "migronaut baseline --to 20260101090100-create-orders.sql --yes",
      "0 baselined, 3 lock held, 5 connection failed, 6 no answer to the prompt (use --yes), 8 an "
      "unknown --to target, 11 declined or cancelled by a signal, 20 an empty up section, 24 "
      "another tool's history not imported (or "
      "dirty), or a half-reverted migration");
  return {
      sub,
      [to, yes](Context& context) {
        const Config config = context.config();
        const std::optional<std::string> target = named_migration(*to, "--to");
        StoppableMigrator migrator(context, config);
        Output& out = context.out();
        // What is marked is listed before the question, as repair lists what it re-stamps.
        const std::vector<std::string> marked =
            *yes ? std::vector<std::string>() : migrator->baseline_targets(target);
        if (!marked.empty()) {
          for (const std::string& name : marked) out.info("  " + name);
          if (!confirm(context,
                       fmt::format("Mark these {} migration(s) applied WITHOUT running them?",
                                   marked.size()),
                       false)) {
            throw RunAbortedError("baseline cancelled");
          }
        }
        const BaselineResult result = migrator->baseline(target);
        if (result.baselined.empty()) {
          out.success(
              fmt::format("Nothing to baseline: {} already applied", result.skipped.size()));
        } else {
          out.success(fmt::format("{} baselined in batch {}, {} already applied",
                                  result.baselined.size(), result.batch, result.skipped.size()));
        }
        if (out.json_mode()) {
          out.document({{"baselined", result.baselined},
                        {"skipped", result.skipped},
                        {"batch", result.batch}});
        }
        return 0;
      },
      /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

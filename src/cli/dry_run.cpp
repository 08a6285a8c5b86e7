// `migronaut dry-run <up|down> [file] [--to f] [--steps n] [--batch n]`: what the real command
// would run, with the same selection rules; no lock, no writes.
#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "fmt/format.h"

namespace migronaut::cli {
namespace {

struct DryRunFlags {
  std::string direction;
  std::string file;
  std::string to;
  std::string steps;
  std::string batch;
};

}  // namespace

Command add_dry_run(CLI::App& app) {
  auto* sub = app.add_subcommand("dry-run", "Preview what up or down would run");
  auto flags = std::make_shared<DryRunFlags>();
  sub->add_option("direction", flags->direction, "up or down")
      ->required()
      ->check(CLI::IsMember({"up", "down"}))
      ->type_name("up|down");
  sub->add_option("file", flags->file, "Only this migration")->type_name("FILE");
  sub->add_option("--to", flags->to, "Up to (up) or after (down) this migration")
      ->type_name("FILE");
  sub->add_option("--steps", flags->steps, "down: the last n applied")->type_name("N");
  sub->add_option("--batch", flags->batch, "down: this batch")->type_name("N");
  document(sub, "migronaut dry-run down --steps 2",
           "0 shown, 5 connection failed, 8 an unknown file or --to target");
  return {sub, [flags](Context& context) {
            Migrator migrator(context.config(), context.migrator_options());
            std::vector<StatusRow> rows;
            if (flags->direction == "up") {
              UpOptions options;
              if (!flags->file.empty()) options.file = flags->file;
              if (!flags->to.empty()) options.to = flags->to;
              rows = migrator.dry_run_up(options);
            } else {
              DownOptions options;
              if (!flags->file.empty()) options.file = flags->file;
              if (!flags->to.empty()) options.to = flags->to;
              options.steps = positive_flag(flags->steps, "--steps");
              options.batch = positive_flag(flags->batch, "--batch");
              rows = migrator.dry_run_down(options);
            }
            Output& out = context.out();
            out.report(rows.empty() ? "Nothing would run"
                                    : fmt::format("{} would run {} migration(s):", flags->direction,
                                                  rows.size()));
            for (const StatusRow& row : rows) out.report("  " + row.name);
            if (out.json_mode()) {
              out.document({{"direction", flags->direction}, {"migrations", rows}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

// `migronaut repair [file] [--reason r] [--yes]`: accepts changed files of applied migrations
// by re-stamping their checksums under the lock, after listing them and asking. Runs nothing.
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "cli/run_output.hpp"
#include "fmt/format.h"

namespace migronaut::cli {
namespace {

struct RepairFlags {
  std::optional<std::string> file;
  std::string reason;
  bool yes = false;
};

nlohmann::json targets_json(const std::vector<RepairTarget>& targets) {
  nlohmann::json out = nlohmann::json::array();
  for (const RepairTarget& target : targets) {
    out.push_back({{"name", target.name}, {"from", target.recorded}, {"to", target.current}});
  }
  return out;
}

}  // namespace

Command add_repair(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "repair", "Re-stamp the checksums of applied migrations whose files changed");
  auto flags = std::make_shared<RepairFlags>();
  sub->add_option("file", flags->file, "Only this migration (a name or a version)");
  sub->add_option("--reason", flags->reason, "Why: stamped on the changelog records");
  sub->add_flag("-y,--yes", flags->yes, "Do not ask for confirmation");
  document(
      sub, "migronaut repair 20260101090100-create-orders.sql --reason 'comment only' --yes",
      "0 re-stamped (or nothing to repair), 3 lock held, 5 connection failed, 6 no answer to the "
      "prompt (use --yes), 8 an unknown "
      "file or one whose file is gone, 9 not applied, 11 declined or cancelled by a signal");
  return {sub,
          [flags](Context& context) {
            const std::optional<std::string> file =
                named_migration(flags->file, "the migration to repair");
            StoppableMigrator migrator(context, context.config());
            Output& out = context.out();
            const std::vector<RepairTarget> targets = migrator->repair_targets(file);
            if (targets.empty()) {
              out.success(file ? "Nothing to repair: " + *file + " matches its checksum"
                               : "Nothing to repair: every applied file matches its checksum");
              if (out.json_mode()) out.document({{"repaired", nlohmann::json::array()}});
              return 0;
            }
            for (const RepairTarget& target : targets) {
              out.info(fmt::format("  {}  {} → {}", target.name, target.recorded.substr(0, 12),
                                   target.current.substr(0, 12)));
            }
            if (!confirm(context,
                         fmt::format("Accept the current files of these {} migration(s)?",
                                     targets.size()),
                         flags->yes)) {
              throw RunAbortedError("repair cancelled");
            }
            const std::vector<RepairTarget> repaired = migrator->repair(file, flags->reason);
            out.success(fmt::format("{} checksum(s) re-stamped", repaired.size()));
            if (out.json_mode()) out.document({{"repaired", targets_json(repaired)}});
            return 0;
          },
          /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

// `migronaut dry-run <up|down> [file] [--to f] [--steps n] [--batch n] [--all] [--sql
// [--output f]]`: what the real command would run, with the same selection rules; no lock, no
// writes. With --sql, the scripts themselves, each under a header line, for a DBA to review.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "fmt/format.h"

namespace migronaut::cli {
namespace {

struct DryRunFlags {
  std::string direction;
  std::optional<std::string> file;
  std::optional<std::string> to;
  std::optional<std::string> steps;
  std::optional<std::string> batch;
  bool all = false;
  bool sql = false;
  std::string output;
};

// The script as the database receives it; MongoDB's command array pretty-printed.
std::string shown_script(const StatusRow& row) {
  if (row.script.empty()) return "-- a C++ migration: its code runs, no script is sent\n";
  if (!row.script.starts_with('['))
    return row.script.ends_with('\n') ? row.script : row.script + "\n";
  return nlohmann::json::parse(row.script).dump(2) + "\n";
}

std::string scripts(const std::string& direction, const std::vector<StatusRow>& rows) {
  std::string text;
  for (const StatusRow& row : rows) {
    text += fmt::format("-- migronaut {} {}\n", direction, row.name);
    text += shown_script(row);
  }
  return text;
}

constexpr std::string_view kScriptsStart = "-- migronaut ";

// --output writes a new file or replaces a dry-run's own scripts: never the database, a
// migration or anything else a mistyped path names, and nothing in the migrations folder,
// where it would be read as a migration.
void refuse_unsafe_output(const std::filesystem::path& path,
                          const std::filesystem::path& migrations_dir) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::weakly_canonical(migrations_dir);
  const fs::path target = fs::weakly_canonical(path);
  const char* problem = nullptr;
  if (std::mismatch(folder.begin(), folder.end(), target.begin(), target.end()).first ==
      folder.end()) {
    problem = "is in the migrations folder, where it would be read as a migration";
  } else if (fs::exists(target)) {
    std::string start(kScriptsStart.size(), '\0');
    std::ifstream existing(target, std::ios::binary);
    existing.read(start.data(), static_cast<std::streamsize>(start.size()));
    start.resize(static_cast<std::size_t>(existing.gcount()));
    if (!start.empty() && start != kScriptsStart) {
      problem = "names an existing file that is not a dry-run's scripts";
    }
  }
  if (problem == nullptr) return;
  throw ConfigInvalidError(
      fmt::format("--output {} {}: give a new path, or remove it first", path.string(), problem),
      {{"option", "--output"}, {"path", path.string()}});
}

// --sql: the scripts on stdout, or in `path`.
void write_scripts(Output& out, const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  if (!file.flush()) {
    throw ConfigInvalidError("Cannot write " + path, {{"option", "--output"}, {"path", path}});
  }
  out.success("Scripts written to " + path);
}

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
  sub->add_option("--steps", flags->steps, "down: the last n applied; up: the next n pending")
      ->type_name("N");
  sub->add_option("--batch", flags->batch, "down: this batch")->type_name("N");
  sub->add_flag("--all", flags->all, "down: every applied migration");
  sub->add_flag("--sql", flags->sql, "Print the scripts that would be sent, in order");
  sub->add_option("--output", flags->output, "With --sql: write them to this file")
      ->type_name("FILE");
  document(sub, "migronaut dry-run down --steps 2",
           "0 shown, 5 connection failed, 6 conflicting flags (two of down's selectors, --all "
           "or --batch with up), 8 an unknown file or --to target; for up, what `up` "
           "would refuse with: 4 drift it refuses, 20 an invalid script, 23 out of order, 24 "
           "another tool's history not imported or a half-reverted migration");
  return {sub, [flags](Context& context) {
            const Config config = context.config();
            if (!flags->output.empty()) refuse_unsafe_output(flags->output, config.migrations_dir);
            Migrator migrator(config, context.migrator_options());
            std::vector<StatusRow> rows;
            if (flags->direction == "up") {
              // `up` applies every pending migration already; --all and --batch are down's.
              if (flags->all) {
                throw ConfigInvalidError("--all goes with down", {{"option", "--all"}});
              }
              if (flags->batch) {
                throw ConfigInvalidError("--batch goes with down", {{"option", "--batch"}});
              }
              UpOptions options;
              options.file = named_migration(flags->file, "the migration");
              options.to = named_migration(flags->to, "--to");
              options.steps = positive_flag(flags->steps, "--steps");
              rows = migrator.dry_run_up(options);
            } else {
              DownOptions options;
              options.file = named_migration(flags->file, "the migration");
              options.to = named_migration(flags->to, "--to");
              options.steps = positive_flag(flags->steps, "--steps");
              options.batch = positive_flag(flags->batch, "--batch");
              options.all = flags->all;
              rows = migrator.dry_run_down(options);
            }
            Output& out = context.out();
            if (!flags->output.empty() && !flags->sql) {
              throw ConfigInvalidError("--output goes with --sql", {{"option", "--output"}});
            }
            if (flags->sql && !out.json_mode()) {
              write_scripts(out, flags->output, scripts(flags->direction, rows));
              return 0;
            }
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

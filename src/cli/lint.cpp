// `migronaut lint [file…] [--pending]`: PostgreSQL migrations checked by PostgreSQL's own
// parser for operations that block or break a running application. No database needed: the
// folder's migrations, read as up reads them (any tool's naming), or the files named; --pending
// asks the database which are pending. Either way, a file of the folder named like a migration
// that up skips ("3_x.sql.txt") is an error: it would never run.
// Exits LINT_FAILED (45) when any finding is an error.
#include "cli/cli.hpp"
#include "cli/help.hpp"
#include "cli/lint_files.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "source/migration_set.hpp"

namespace migronaut::cli {
namespace {

namespace fs = std::filesystem;

struct LintFlags {
  std::vector<std::string> files;
  bool pending = false;
};

// The folder's migration files as up lists them, one naming for all (source/migration_set.hpp).
// Down and undo files are left out: lint checks what up runs, as of a dbmate file its up section.
std::vector<fs::path> folder_files(const fs::path& dir) {
  std::vector<NamedFile> listed = list_migration_files(dir, ".sql", /*missing_ok=*/false);
  folder_naming(listed);
  std::vector<fs::path> files;
  for (const NamedFile& file : listed) {
    if (file.naming.role != FileRole::kDown) files.push_back(dir / file.name);
  }
  return files;
}

std::vector<fs::path> chosen_files(Context& context, const LintFlags& flags, const Config& config) {
  if (flags.pending) return pending_files(context, config, UpOptions{});
  if (flags.files.empty()) return folder_files(config.migrations_dir);
  return {flags.files.begin(), flags.files.end()};
}

}  // namespace

std::vector<fs::path> pending_files(Context& context, const Config& config,
                                    const UpOptions& options) {
  Migrator migrator(config, context.migrator_options());
  std::vector<fs::path> files;
  for (const StatusRow& row : migrator.dry_run_up(options)) {
    const fs::path path = config.migrations_dir / row.name;
    if (has_extension(row.name, ".sql") && fs::exists(path)) files.push_back(path);
  }
  return files;
}

Command add_lint(CLI::App& app) {
  auto* sub = app.add_subcommand("lint", "Check PostgreSQL migrations for unsafe operations");
  auto flags = std::make_shared<LintFlags>();
  sub->add_option("file", flags->files, "Lint these files (default: the folder's migrations)");
  sub->add_flag("--pending", flags->pending, "Lint the migrations pending on the database");
  document(sub, "migronaut lint --pending",
           "0 no error (warnings allowed), 5 connection failed (--pending), 6 a bad flag or a URI "
           "that is not PostgreSQL's, 19 a file named after no tool's naming or a folder mixing "
           "namings, 20 a file that does not parse, 35 the migrations folder is missing, 45 an "
           "error found (a file named like a migration that up skips among them)");
  return {sub, [flags](Context& context) {
            const Config config =
                context.config(nlohmann::json::object(), /*require_uri=*/flags->pending);
            LintResult result = lint_files(chosen_files(context, *flags, config), config);
            // Files named on the command line are what was asked for; a folder may hide more.
            if (flags->files.empty()) lint_ignored_files(config.migrations_dir, result);
            Output& out = context.out();
            for (const FileFinding& finding : result.findings) {
              if (finding.rule->severity == LintSeverity::kError) {
                out.error(describe(finding));
              } else {
                out.warn(describe(finding));
              }
            }
            const std::size_t errors = result.count(LintSeverity::kError);
            const std::size_t warnings = result.count(LintSeverity::kWarning);
            const std::string summary = fmt::format("{} file(s): {} error(s), {} warning(s)",
                                                    result.files, errors, warnings);
            if (errors == 0) {
              out.success(summary);
            } else {
              out.error(summary);
            }
            if (out.json_mode()) {
              nlohmann::json findings = nlohmann::json::array();
              for (const FileFinding& finding : result.findings)
                findings.push_back(to_json(finding));
              out.document({{"files", result.files},
                            {"errors", errors},
                            {"warnings", warnings},
                            {"findings", findings}});
            }
            return errors == 0 ? 0 : exit_status(ErrorCode::kLintFailed);
          }};
}

}  // namespace migronaut::cli

// `migronaut import [--from <tool>] [--table <name>] [--dry-run] [--force] [--trust-hash]`: adopts
// a database another tool manages, recording what it applied without running anything.
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "cli/run_output.hpp"
#include "fmt/format.h"

namespace migronaut::cli {
namespace {

// Where an imported record's checksum comes from, in words.
std::string_view checksum_origin(const std::string& source) {
  if (source == "verified") return "the file's, as the tool's checksum agrees";
  if (source == "changed") return "the tool's: the file changed since it ran (drift)";
  if (source == "reused") return "the tool's";
  if (source == "missing") return "none: no file";
  return "the file's";
}

// One imported record, as the report lists it.
std::string imported_line(const ImportedMigration& migration) {
  return fmt::format(
      "  {}  applied {}  checksum {}{}", migration.name,
      migration.applied_at_ms ? format_time(*migration.applied_at_ms) : "(time not kept)",
      checksum_origin(migration.checksum_source),
      migration.baseline.empty() ? "" : "  (Flyway baseline " + migration.baseline + ")");
}

}  // namespace

Command add_import(CLI::App& app) {
  auto* sub = app.add_subcommand("import", "Adopt another tool's history without running anything");
  auto options = std::make_shared<ImportOptions>();
  sub->add_option("--from", options->from,
                  "dbmate, golang-migrate, flyway, knex, node-pg-migrate, sql-migrate or "
                  "migrate-mongo (default: importFrom from the configuration)");
  sub->add_option("--table", options->table,
                  "The tool's history table when it was configured with another name "
                  "(PostgreSQL: schema.table; MongoDB: the collection; default: importTable)");
  sub->add_flag("--dry-run", options->dry_run, "Show what would be imported; write nothing");
  sub->add_flag("--force", options->force, "Import into a changelog that has records");
  sub->add_flag("--trust-hash", options->trust_hash,
                "migrate-mongo: keep its fileHash even when the file differs");
  document(sub, "migronaut import --from dbmate --dry-run",
           "0 imported (or nothing to import), 3 lock held, 5 connection failed, 6 no tool, an "
           "unknown tool or no history of it, 8 no version of the history has a file here, 17 the "
           "changelog has "
           "records (use --force), 20 its table is not "
           "that tool's, 24 a dirty golang-migrate version or a failed Flyway row");
  return {
      sub,
      [options](Context& context) {
        StoppableMigrator migrator(context, context.config());
        const ImportResult result = migrator->import_history(*options);
        Output& out = context.out();
        // The records are the report (stdout, kept by --quiet); the verdict is a progress line.
        for (const ImportedMigration& migration : result.imported) {
          out.report(imported_line(migration));
        }
        for (const auto& [name, reason] : result.not_imported) {
          out.report(fmt::format("  {}  not imported ({})", name, reason));
        }
        out.success(fmt::format("{} {} from {} ({}), {} already recorded", result.imported.size(),
                                result.dry_run ? "would be imported" : "imported", result.from,
                                result.table, result.skipped.size()));
        if (out.json_mode()) out.document(result);
        return 0;
      },
      /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

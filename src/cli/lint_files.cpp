#include "cli/lint_files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/runner.hpp"
#include "migronaut/errors.hpp"
#include "source/migration_set.hpp"
#include "source/naming.hpp"
#include "sql/pg/transaction_rules.hpp"
#include "sql/text_position.hpp"

namespace migronaut::cli {
namespace {

// Not among lint_rules(): those judge statements, each with its corpus of scripts.
const LintRule kIgnoredFile{
    "ignored-migration-file", LintSeverity::kError,
    "the file is named like a migration, but up does not read it, so it never runs",
    "rename it to end in .sql, as the folder's migrations do, or move it out of the migrations "
    "folder"};

const LintRule kFlywayPlaceholder{
    "flyway-placeholder", LintSeverity::kError,
    "Flyway replaces this placeholder before it runs the file; migronaut runs it as written, so "
    "up refuses the file",
    "write its value; where Flyway ran with placeholderReplacement=false, set flywayPlaceholders "
    "to \"literal\""};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) {
    throw MigrationFileNotFoundError("Cannot read the migration file " + path.string(),
                                     {{"file", path.string()}});
  }
  return content.str();
}

// As migronaut will run the direction: in a transaction or not, with the timeouts it sets there.
LintOptions options_for(const Migration& migration, Direction direction, const Config& config) {
  const RunOptions& run = migration.options_for(direction);
  const bool transactional = runs_in_transaction(
      migration, direction, config.use_transaction.value_or(true),
      [](const Script& script) { return runs_only_outside_transaction(script.text); });
  const auto lock_timeout =
      run.lock_timeout.value_or(std::chrono::milliseconds(config.lock_timeout_ms));
  const auto statement_timeout = run.statement_timeout.value_or(std::chrono::milliseconds(0));
  return LintOptions{
      .transactional = transactional,
      .runner_sets_lock_timeout = transactional && lock_timeout.count() > 0,
      .runner_sets_statement_timeout = transactional && statement_timeout.count() > 0};
}

// Lints the file at `path` read as up loads it (source/migration_set.hpp), by its name's naming;
// a name of no tool's naming (a file given on the command line) as migronaut's own. A down or
// undo file's script is its down; any other file's, the up that `up` runs.
void lint_file(const std::filesystem::path& path, const Config& config, LintResult& result) {
  const std::string name = path.filename().string();
  const NamedFile file{name, parse_file_name(name, ".sql").value_or(FileName{})};
  const Migration migration = read_migration_file(file, read_text(path), ".sql");
  const Direction direction =
      file.naming.role == FileRole::kDown ? Direction::kDown : Direction::kUp;
  if (const Script* script = script_of(migration, direction)) {
    const auto add = [&](std::size_t offset, const LintRule* rule, std::string detail) {
      const TextPosition position = position_at(script->text, offset);
      result.findings.push_back({path.string(), script->first_line + position.line - 1,
                                 position.column, rule, std::move(detail)});
    };
    const std::optional<std::string_view> placeholder =
        config.flyway_placeholders == FlywayPlaceholders::kRefuse
            ? flyway_placeholder(name, script->text)
            : std::nullopt;
    if (placeholder) {
      add(placeholder->data() - script->text.data(), &kFlywayPlaceholder,
          std::string(*placeholder));
    }
    for (const LintFinding& finding :
         lint_pg_script(script->text, options_for(migration, direction, config))) {
      add(finding.offset, finding.rule, finding.detail);
    }
  }
  ++result.files;
}

}  // namespace

std::size_t LintResult::count(LintSeverity severity) const {
  return static_cast<std::size_t>(std::count_if(
      findings.begin(), findings.end(),
      [&](const FileFinding& finding) { return finding.rule->severity == severity; }));
}

LintResult lint_files(const std::vector<std::filesystem::path>& files, const Config& config) {
  if (!config.uri.empty() && !config.uri.starts_with("postgres")) {
    throw ConfigInvalidError("lint checks PostgreSQL migrations, and the URI is not PostgreSQL's",
                             {{"key", "uri"}});
  }
  LintResult result;
  for (const std::filesystem::path& path : files) lint_file(path, config, result);
  return result;
}

void lint_ignored_files(const std::filesystem::path& dir, LintResult& result) {
  std::vector<std::string> ignored;
  list_migration_files(dir, ".sql", /*missing_ok=*/false, /*subfolders=*/nullptr, &ignored);
  for (const std::string& name : ignored) {
    result.findings.push_back({(dir / name).string(), 0, 0, &kIgnoredFile, ""});
  }
}

std::string location(const FileFinding& finding) {
  if (finding.line == 0) return finding.file;
  return fmt::format("{}:{}:{}", finding.file, finding.line, finding.column);
}

std::string describe(const FileFinding& finding) {
  std::string text =
      fmt::format("{}: {} [{}] {}", location(finding), lint_severity_name(finding.rule->severity),
                  finding.rule->id, finding.rule->why);
  if (!finding.detail.empty()) text += " (" + finding.detail + ")";
  return text + "\n    help: " + std::string(finding.rule->help);
}

nlohmann::json to_json(const FileFinding& finding) {
  return {{"path", finding.file},
          {"line", finding.line},
          {"column", finding.column},
          {"rule", finding.rule->id},
          {"severity", lint_severity_name(finding.rule->severity)},
          {"message", finding.rule->why},
          {"detail", finding.detail},
          {"help", finding.rule->help}};
}

}  // namespace migronaut::cli

#include "cli/lint_files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "migronaut/errors.hpp"
#include "source/sql_file.hpp"
#include "sql/text_position.hpp"

namespace migronaut::cli {
namespace {

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

// As migronaut will run its up: in a transaction or not, with the timeouts it sets there.
LintOptions options_for(const Migration& migration, const Config& config) {
  const RunOptions& up = migration.options;
  const bool transactional = up.transactional.value_or(config.use_transaction.value_or(true));
  const auto lock_timeout =
      up.lock_timeout.value_or(std::chrono::milliseconds(config.lock_timeout_ms));
  const auto statement_timeout = up.statement_timeout.value_or(std::chrono::milliseconds(0));
  return LintOptions{
      .transactional = transactional,
      .runner_sets_lock_timeout = transactional && lock_timeout.count() > 0,
      .runner_sets_statement_timeout = transactional && statement_timeout.count() > 0};
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
  for (const std::filesystem::path& path : files) {
    const Migration migration = parse_sql_migration(path.filename().string(), read_text(path));
    const Script& up = std::get<Script>(migration.up);
    for (const LintFinding& finding : lint_pg_script(up.text, options_for(migration, config))) {
      const TextPosition position = position_at(up.text, finding.offset);
      result.findings.push_back({path.string(), up.first_line + position.line - 1, position.column,
                                 finding.rule, finding.detail});
    }
    ++result.files;
  }
  return result;
}

std::string describe(const FileFinding& finding) {
  std::string text =
      fmt::format("{}:{}:{}: {} [{}] {}", finding.file, finding.line, finding.column,
                  lint_severity_name(finding.rule->severity), finding.rule->id, finding.rule->why);
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

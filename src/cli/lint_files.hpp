// Lint over migration files, shared by `migronaut lint` and `up --lint`: each file read as up
// loads it (dbmate's sections, golang-migrate's or Flyway's plain SQL), its up script (a down or
// undo file's down) linted as migronaut will run it (in a transaction or not, with the timeouts
// migronaut sets), each finding placed at its file, line and column.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "migronaut/config.hpp"
#include "sql/pg/lint.hpp"

namespace migronaut::cli {

struct FileFinding {
  std::string file;
  std::size_t line = 0;
  std::size_t column = 0;
  const LintRule* rule = nullptr;
  std::string detail;
};

struct LintResult {
  std::vector<FileFinding> findings;
  std::size_t files = 0;
  std::size_t count(LintSeverity severity) const;
};

// Lints `files`; a file that is not a migration throws MigrationInvalidFormatError, a URI that
// is not PostgreSQL's (none is fine) ConfigInvalidError.
LintResult lint_files(const std::vector<std::filesystem::path>& files, const Config& config);

// Adds an error (ignored-migration-file) for each file of the migrations folder `dir` that is
// named like a migration but not read as one (source/migration_set.hpp): it would never run.
// Such a finding is about the file's name: its line and column are 0.
void lint_ignored_files(const std::filesystem::path& dir, LintResult& result);

// "migrations/0002-x.sql:3:1", or the file alone for a finding about its name.
std::string location(const FileFinding& finding);
// "migrations/0002-x.sql:3:1: error [require-concurrent-index-creation] why (detail)".
std::string describe(const FileFinding& finding);
nlohmann::json to_json(const FileFinding& finding);

}  // namespace migronaut::cli

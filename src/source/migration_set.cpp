#include "source/migration_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "migronaut/errors.hpp"
#include "source/json_file.hpp"
#include "source/names.hpp"
#include "source/sql_file.hpp"
#include "util/checksum.hpp"

namespace migronaut {
namespace {

namespace fs = std::filesystem;

using Parser = Migration (*)(std::string_view name, std::string_view text);

Parser parser_for(std::string_view extension) {
  if (extension == ".sql") return parse_sql_migration;
  if (extension == ".json") return parse_json_migration;
  throw std::invalid_argument(
      fmt::format("no parser for migration files ending in '{}'", extension));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) {
    throw MigrationFileNotFoundError("Cannot read the migration file " + path.string(),
                                     {{"file", path.string()}});
  }
  return content.str();
}

// Whether the entry is a migration file: a regular file (or a link to one) ending in
// `extension`, not hidden.
bool is_candidate(const fs::directory_entry& entry, std::string_view extension) {
  const std::string name = entry.path().filename().string();
  return !name.starts_with('.') && name.ends_with(extension) && entry.is_regular_file();
}

std::vector<Migration> load_files(const fs::path& dir, std::string_view extension) {
  std::vector<Migration> migrations;
  if (!fs::exists(dir)) return migrations;
  if (!fs::is_directory(dir)) {
    throw ConfigInvalidError("The migrations folder " + dir.string() + " is not a directory",
                             {{"key", "migrationsDir"}, {"path", dir.string()}});
  }
  const Parser parse = parser_for(extension);
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (!is_candidate(entry, extension)) continue;
    const std::string name = entry.path().filename().string();
    validate_migration_name(name);
    const std::string text = read_file(entry.path());
    Migration migration = parse(name, text);
    migration.checksum = checksum_hex(text);
    migrations.push_back(std::move(migration));
  }
  return migrations;
}

Migration from_code(const CodeMigration& code) {
  validate_migration_name(code.name);
  Migration migration;
  migration.name = code.name;
  migration.description = code.description;
  migration.checksum = checksum_hex("code:" + code.name + ":" + code.version);
  migration.up = code.up;
  if (code.down) migration.down = Work(code.down);
  migration.transactional = code.use_transaction;
  migration.timeout = code.timeout;
  return migration;
}

// Two migrations with one version have no defined order between them.
void reject_shared_versions(const std::vector<Migration>& sorted) {
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const std::string& previous = sorted[i - 1].name;
    const std::string& current = sorted[i].name;
    const std::string version = version_of(current);
    if (version_of(previous) != version) continue;
    const std::string reason = previous == current
                                   ? fmt::format("two migrations are named {}", current)
                                   : fmt::format(
                                         "{} and {} share the version {}, so their "
                                         "order is ambiguous",
                                         previous, current, version);
    throw MigrationInvalidNameError(
        "Invalid migration names: " + reason,
        {{"name", current}, {"conflictsWith", previous}, {"version", version}, {"reason", reason}});
  }
}

}  // namespace

std::vector<Migration> load_migrations(const fs::path& dir, std::string_view extension,
                                       const std::vector<CodeMigration>& code) {
  std::vector<Migration> migrations = load_files(dir, extension);
  for (const CodeMigration& migration : code) migrations.push_back(from_code(migration));
  std::sort(migrations.begin(), migrations.end(),
            [](const Migration& a, const Migration& b) { return a.name < b.name; });
  reject_shared_versions(migrations);
  return migrations;
}

}  // namespace migronaut

#include "source/migration_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

[[noreturn]] void file_unreadable(const fs::path& path, const std::string& reason) {
  throw MigrationFileUnreadableError(
      fmt::format("The migration {} cannot be read: {}", path.string(), reason),
      {{"file", path.string()}, {"name", path.filename().string()}, {"reason", reason}});
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) file_unreadable(path, std::strerror(errno));
  return content.str();
}

// Whether `path` lies in `folder` (both canonical).
bool is_inside(const fs::path& path, const fs::path& folder) {
  return std::mismatch(folder.begin(), folder.end(), path.begin(), path.end()).first ==
         folder.end();
}

// An entry named like a migration must be one: a regular file, or a symlink to one inside the
// folder. Skipping it instead would report "up to date" without the migration it was meant to be.
void require_readable(const fs::directory_entry& entry, const fs::path& dir) {
  std::error_code error;
  const fs::file_status target = fs::status(entry.path(), error);
  if (error.value() == ELOOP) file_unreadable(entry.path(), "it is a symlink loop");
  if (target.type() == fs::file_type::not_found) {
    file_unreadable(entry.path(), "it is a dangling symlink (its target does not exist)");
  }
  if (error) file_unreadable(entry.path(), error.message());
  if (fs::is_directory(target)) file_unreadable(entry.path(), "it is a directory, not a file");
  if (!fs::is_regular_file(target)) {
    file_unreadable(entry.path(), "it is not a regular file (a FIFO, socket or device)");
  }
  if (!entry.is_symlink(error)) return;
  const fs::path real = fs::canonical(entry.path(), error);
  if (error || !is_inside(real, fs::canonical(dir, error))) {
    file_unreadable(entry.path(), "it is a symlink leading outside the migrations folder (to " +
                                      real.string() + ")");
  }
}

[[noreturn]] void folder_unusable(const fs::path& dir, const std::string& reason) {
  throw MigrationsDirNotFoundError(
      fmt::format("The migrations folder {} {} (set migrationsDir, --dir or "
                  "MIGRONAUT_MIGRATIONS_DIR)",
                  dir.string(), reason),
      {{"key", "migrationsDir"}, {"path", dir.string()}, {"reason", reason}});
}

// The folder's entries; a folder that is missing (unless `optional`), not a folder or
// unreadable is refused rather than read as holding no migrations.
std::vector<fs::directory_entry> folder_entries(const fs::path& dir, bool optional) {
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (status.type() == fs::file_type::not_found) {
    if (optional) return {};
    folder_unusable(dir, "does not exist");
  }
  if (error) folder_unusable(dir, "cannot be read: " + error.message());
  if (!fs::is_directory(status)) folder_unusable(dir, "is not a folder");
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    entries.push_back(*it);
  }
  if (error) folder_unusable(dir, "cannot be read: " + error.message());
  return entries;
}

std::vector<Migration> load_files(const fs::path& dir, std::string_view extension, bool optional) {
  std::vector<Migration> migrations;
  const Parser parse = parser_for(extension);
  for (const fs::directory_entry& entry : folder_entries(dir, optional)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with('.') || !name.ends_with(extension)) continue;
    validate_migration_name(name);
    require_readable(entry, dir);
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
  // Code alone can make a run: then the folder may be absent.
  std::vector<Migration> migrations = load_files(dir, extension, !code.empty());
  for (const CodeMigration& migration : code) migrations.push_back(from_code(migration));
  std::sort(migrations.begin(), migrations.end(),
            [](const Migration& a, const Migration& b) { return a.name < b.name; });
  reject_shared_versions(migrations);
  return migrations;
}

}  // namespace migronaut

#include "source/scaffold.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "migronaut/errors.hpp"
#include "source/migration_set.hpp"
#include "source/names.hpp"
#include "source/sql_file.hpp"
#include "source/version.hpp"
#include "util/file.hpp"

namespace migronaut {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSqlSkeleton = "-- migrate:up\n\n-- migrate:down\n";
constexpr std::string_view kSqlMigrateSkeleton = "-- +migrate Up\n\n-- +migrate Down\n";
constexpr std::string_view kJsonSkeleton = R"({
  "description": "",
  "up": [],
  "down": []
}
)";

// Whether the folder's newest file (the highest version) has sql-migrate's commands: the next
// file gets them too, so that sql-migrate, still run on some hosts, reads it.
bool uses_sql_migrate_commands(const fs::path& dir, const std::vector<NamedFile>& files) {
  const auto newest = std::max_element(files.begin(), files.end(), [](auto& a, auto& b) {
    return compare_versions(a.naming.version, b.naming.version) < 0;
  });
  if (newest == files.end()) return false;
  const std::optional<std::string> text = read_whole_file(dir / newest->name);
  return text && has_sql_migrate_commands(*text);
}

// Sections for migronaut and dbmate, in the folder's kind of marker (an object for ".json");
// plain-SQL files start empty.
std::string default_template(Naming naming, std::string_view extension, const fs::path& dir,
                             const std::vector<NamedFile>& files) {
  if (!has_sections(naming)) return "";
  if (extension == ".json") return std::string(kJsonSkeleton);
  return std::string(uses_sql_migrate_commands(dir, files) ? kSqlMigrateSkeleton : kSqlSkeleton);
}

std::string read_template(const fs::path& path) {
  std::optional<std::string> text = read_whole_file(path);
  if (!text || !fs::is_regular_file(path)) {
    throw ConfigInvalidError("Cannot read the migration template " + path.string(),
                             {{"key", "templatePath"}, {"path", path.string()}});
  }
  return std::move(*text);
}

std::vector<std::string> names_of(const std::vector<NamedFile>& files) {
  std::vector<std::string> names;
  for (const NamedFile& file : files) names.push_back(file.name);
  return names;
}

// Creates `path` with `content`, failing rather than replacing a file that already exists
// (O_EXCL, so two concurrent `create`s cannot both win).
void write_new_file(const fs::path& path, const std::string& content) {
  const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wxb"), &std::fclose);
  if (file == nullptr && errno == EEXIST) {
    throw MigrationFileExistsError("The migration file " + path.string() + " already exists",
                                   {{"path", path.string()}});
  }
  const bool written =
      file != nullptr &&
      std::fwrite(content.data(), 1, content.size(), file.get()) == content.size() &&
      std::fflush(file.get()) == 0;
  if (!written) {
    throw Error(ErrorCode::kUnclassified, "Cannot write the migration file " + path.string(),
                {{"path", path.string()}});
  }
}

// Writes `names` into `dir`, the first with `content` and the rest (a down file) empty: all of
// them, or none when one cannot be written.
std::vector<fs::path> write_new_files(const fs::path& dir, const std::vector<std::string>& names,
                                      const std::string& content) {
  fs::create_directories(dir);
  std::vector<fs::path> written;
  try {
    for (const std::string& name : names) {
      write_new_file(dir / name, written.empty() ? content : std::string());
      written.push_back(dir / name);
    }
  } catch (...) {
    for (const fs::path& path : written) fs::remove(path);
    throw;
  }
  return written;
}

}  // namespace

std::vector<fs::path> create_migration_files(const fs::path& dir, std::string_view title,
                                             bool sequential, const fs::path& template_path,
                                             std::string_view extension,
                                             std::chrono::system_clock::time_point now) {
  const std::vector<NamedFile> files = list_migration_files(dir, extension);
  const Naming naming = folder_naming(files).value_or(Naming::kMigronaut);
  const std::string content = template_path.empty()
                                  ? default_template(naming, extension, dir, files)
                                  : read_template(template_path);
  return write_new_files(
      dir, new_migration_files(title, naming, sequential, names_of(files), now, extension),
      content);
}

}  // namespace migronaut

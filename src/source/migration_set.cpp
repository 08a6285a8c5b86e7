#include "source/migration_set.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <system_error>
#include <variant>

#include "migronaut/errors.hpp"
#include "source/json_file.hpp"
#include "source/names.hpp"
#include "source/naming.hpp"
#include "source/sql_file.hpp"
#include "source/version.hpp"
#include "sql/blank_sql.hpp"
#include "sql/text_position.hpp"
#include "util/checksum.hpp"
#include "util/file.hpp"
#include "util/folder_reader.hpp"
#include "util/parallel.hpp"
#include "util/redact.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

namespace fs = std::filesystem;

// A migration file: its text, and what became of reading and parsing it.
struct File : NamedFile {
  explicit File(NamedFile named) : NamedFile(std::move(named)) {}
  bool is_down() const { return naming.role == FileRole::kDown; }

  std::string text;
  int read_error = 0;                // the errno of a file that could not be read
  Migration* migration = nullptr;    // where its text is parsed to; none for a down file
  std::exception_ptr parse_failure;  // why the text is no migration
};

[[noreturn]] void file_unreadable(const fs::path& path, const std::string& reason) {
  throw MigrationFileUnreadableError(
      fmt::format("The migration {} cannot be read: {}", path.string(), reason),
      {{"file", path.string()}, {"name", path.filename().string()}, {"reason", reason}});
}

// Below 256 files per thread, starting a thread costs more than it saves.
constexpr Spread kReadSpread{256, 8};
// Below 256 files, setting up a reader's io_uring costs a boot check more than its batches save
// (paired runs on one VM: +2-4% at 100 files, -3% at 300, -11% at 1,000).
constexpr std::size_t kBatchedFrom = 256;

// Whether `path` lies in `folder` (both canonical).
bool is_inside(const fs::path& path, const fs::path& folder) {
  return std::mismatch(folder.begin(), folder.end(), path.begin(), path.end()).first ==
         folder.end();
}

// A folder entry as the listing gives it: the name and, where the file system tells, the type
// (dirent's d_type), which spares a plain file a stat of its own on every boot check.
struct FolderEntry {
  std::string name;
  unsigned char type = DT_UNKNOWN;
};

// An entry named like a migration must be one: a regular file, or a symlink to one inside the
// folder. Skipping it instead would report "up to date" without the migration it was meant to be.
void require_readable(const FolderEntry& entry, const fs::path& dir) {
  if (entry.type == DT_REG) return;
  const fs::path path = dir / entry.name;
  std::error_code error;
  const fs::file_status target = fs::status(path, error);
  if (error.value() == ELOOP) file_unreadable(path, "it is a symlink loop");
  if (target.type() == fs::file_type::not_found) {
    file_unreadable(path, "it is a dangling symlink (its target does not exist)");
  }
  if (error) file_unreadable(path, error.message());
  if (fs::is_directory(target)) file_unreadable(path, "it is a directory, not a file");
  if (!fs::is_regular_file(target)) {
    file_unreadable(path, "it is not a regular file (a FIFO, socket or device)");
  }
  if (!fs::is_symlink(fs::symlink_status(path, error))) return;
  const fs::path real = fs::canonical(path, error);
  if (error || !is_inside(real, fs::canonical(dir, error))) {
    file_unreadable(
        path, "it is a symlink leading outside the migrations folder (to " + real.string() + ")");
  }
}

[[noreturn]] void folder_unusable(const fs::path& dir, const std::string& reason) {
  throw MigrationsDirNotFoundError(
      fmt::format("The migrations folder {} {} (set migrationsDir, --dir or "
                  "MIGRONAUT_MIGRATIONS_DIR)",
                  dir.string(), reason),
      {{"key", "migrationsDir"}, {"path", dir.string()}, {"reason", reason}});
}

// The folder's entries ("." and ".." left out), sorted by name; a folder that is missing
// (unless `optional`), not a folder or unreadable is refused rather than read as holding no
// migrations. readdir rather than directory_iterator: no path object per entry.
std::vector<FolderEntry> folder_entries(const fs::path& dir, bool optional) {
  const std::unique_ptr<DIR, int (*)(DIR*)> folder(::opendir(dir.c_str()), &::closedir);
  if (!folder) {
    const int error = errno;
    std::error_code ignored;
    // ENOTDIR names the folder itself only when it exists; a file on its path means it is absent.
    if (error == ENOTDIR && fs::exists(dir, ignored)) folder_unusable(dir, "is not a folder");
    if (error == ENOENT || error == ENOTDIR) {
      if (optional) return {};
      // dbmate's folder beside it: the default named the wrong one.
      const fs::path folder = (dir / "").parent_path();  // "migrations/" names "migrations"
      std::error_code probing;
      const bool dbmate = folder.filename() == "migrations" &&
                          fs::is_directory(folder.parent_path() / "db" / "migrations", probing);
      folder_unusable(dir, dbmate ? "does not exist, but db/migrations does (dbmate's folder: "
                                    "--dir db/migrations)"
                                  : "does not exist");
    }
    folder_unusable(dir, std::string("cannot be read: ") + std::strerror(error));
  }
  std::vector<FolderEntry> entries;
  for (;;) {
    errno = 0;  // readdir tells an error from the end only by errno
    const dirent* entry = ::readdir(folder.get());
    if (entry == nullptr) break;
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") entries.push_back({std::string(name), entry->d_type});
  }
  if (errno != 0) folder_unusable(dir, std::string("cannot be read: ") + std::strerror(errno));
  std::sort(entries.begin(), entries.end(),
            [](const FolderEntry& a, const FolderEntry& b) { return a.name < b.name; });
  return entries;
}

bool is_folder(const FolderEntry& entry, const fs::path& dir) {
  if (entry.type != DT_UNKNOWN) return entry.type == DT_DIR;
  std::error_code error;
  return fs::is_directory(fs::symlink_status(dir / entry.name, error));
}

// Copies tools leave beside a file: editors' backups and swap files, merge and patch leftovers,
// a save's temporary file. They start like the migration they copy, yet are not named as near
// misses: nobody gave a migration such a name, its original usually sits beside it, and naming
// them at every run of a working copy would teach people to skip the warning.
constexpr std::array<std::string_view, 6> kLeftoverEnds = {"~",    ".bak", ".orig",
                                                           ".rej", ".swp", ".tmp"};
// Migrations of JavaScript migronaut (or migrate-mongo, knex), which may share the folder and the
// database: the Node side runs them (README, Sharing a database with JavaScript migronaut).
constexpr std::array<std::string_view, 6> kJavaScriptEnds = {".js", ".cjs", ".mjs",
                                                             ".ts", ".cts", ".mts"};

bool ends_in_any(std::string_view name, const std::array<std::string_view, 6>& ends) {
  return std::any_of(ends.begin(), ends.end(),
                     [&](std::string_view end) { return has_extension(name, end); });
}

// Whether `entry`, whose name does not end in the folder's `extension`, was meant as a migration:
// it starts like one, and is no leftover, no JavaScript migration and no folder. Only names that
// start like a migration reach the checks after the first, so a folder of migrations costs
// nothing more.
bool is_near_miss(const FolderEntry& entry, const fs::path& dir, std::string_view extension) {
  return starts_like_migration(entry.name, extension) && !ends_in_any(entry.name, kLeftoverEnds) &&
         !ends_in_any(entry.name, kJavaScriptEnds) && !is_folder(entry, dir);
}

// Prisma keeps each migration in a folder of its own (20240101000000_init/migration.sql);
// migronaut reads the files of the migrations folder alone. Such folders would run nothing and
// pass for done: refused, naming their files. Only Prisma's file name is looked for, so that a
// folder of old migrations kept aside ("2023_archive/") stays the user's.
void refuse_prisma_folders(const fs::path& dir, const std::vector<std::string>& subfolders) {
  std::vector<std::string> nested;
  for (const std::string& subfolder : subfolders) {
    std::error_code error;
    if (starts_like_migration(subfolder, ".sql") &&
        fs::is_regular_file(dir / subfolder / "migration.sql", error)) {
      nested.push_back(subfolder + "/migration.sql");
    }
  }
  if (nested.empty()) return;
  std::sort(nested.begin(), nested.end());
  throw MigrationInvalidNameError(
      fmt::format("Prisma migrations, each in a folder of its own, which migronaut does not read: "
                  "{}. It reads the files of the migrations folder itself: move each there as one "
                  "file named after its folder ({}.sql), with -- migrate:up as its first line",
                  fmt::join(nested, ", "), fs::path(nested.front()).parent_path().string()),
      {{"files", nested}});
}

// Flyway reads its location's subfolders too (sql/V1__a.sql, sql/2024/V2__b.sql); migronaut
// reads the folder alone. A migration Flyway would run from a subfolder, left out here, would
// pass for one that is not there: refused, naming where it is. Looked for only in a folder of
// Flyway's naming, or of none.
void refuse_flyway_subfolders(const fs::path& dir, const std::vector<std::string>& subfolders) {
  std::vector<std::string> nested;
  for (const std::string& subfolder : subfolders) {
    std::error_code walking;
    for (auto it = fs::recursive_directory_iterator(
             dir / subfolder, fs::directory_options::skip_permission_denied, walking);
         !walking && it != fs::recursive_directory_iterator(); it.increment(walking)) {
      const std::string name = it->path().filename().string();
      std::error_code entry;  // an entry it cannot stat ends no walk
      if (name.starts_with('.')) {
        if (it->is_directory(entry)) it.disable_recursion_pending();
        continue;
      }
      const std::optional<FileName> naming = parse_file_name(name, ".sql");
      if (naming && naming->naming == Naming::kFlyway && it->is_regular_file(entry)) {
        nested.push_back(
            (fs::path(subfolder) / it->path().lexically_relative(dir / subfolder)).string());
      }
    }
  }
  if (nested.empty()) return;
  std::sort(nested.begin(), nested.end());
  throw MigrationInvalidNameError(
      fmt::format("Flyway migrations in subfolders of the migrations folder, which Flyway reads "
                  "and migronaut does not: {}. Move them into the folder itself",
                  fmt::join(nested, ", ")),
      {{"files", nested}});
}

// A file of plain SQL (golang-migrate, Flyway): the whole file is the script.
std::optional<Work> plain_script(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (trim(text).empty()) return std::nullopt;
  return Work(Script{.text = std::string(text), .plain_file = true});
}

// A down or undo file: its script, for the migration it reverts.
Migration down_file(const NamedFile& file, std::string_view text) {
  Migration migration;
  migration.name = file.name;
  migration.down_name = file.name;
  migration.up_empty = true;
  // One of comments alone would undo nothing: as a down section of comments, it counts as none.
  if (!is_blank_sql(text)) migration.down = plain_script(text);
  return migration;
}

Migration parse(const NamedFile& file, std::string_view text, std::string_view extension) {
  if (has_sections(file.naming.naming)) {
    return extension == ".json" ? parse_json_migration(file.name, text)
                                : parse_sql_migration(file.name, text);
  }
  if (file.naming.role == FileRole::kDown) return down_file(file, text);
  // An empty file (as `create` writes it), or one of comments only, is listed, and refused by
  // up, like an empty section.
  std::optional<Work> up = plain_script(text);
  Migration migration;
  migration.name = file.name;
  migration.up_empty = !up.has_value() || is_blank_sql(std::get<Script>(*up).text);
  migration.up = up.value_or(Work(Script{}));
  migration.description = file.naming.title;
  if (file.naming.naming == Naming::kFlyway) {
    std::replace(migration.description.begin(), migration.description.end(), '_', ' ');
  }
  return migration;
}

// Separate down files (golang-migrate's .down.sql, Flyway's U undo) join their migration by
// version; one without a migration of that version is refused.
void attach_downs(std::vector<Migration>& migrations, const std::vector<const File*>& downs) {
  for (const File* down : downs) {
    auto it = std::find_if(migrations.begin(), migrations.end(), [&](const Migration& m) {
      return !m.repeatable && compare_versions(m.version, down->naming.version) == 0;
    });
    if (it == migrations.end()) {
      const std::string reason =
          fmt::format("no migration has the version {} it reverts", down->naming.version);
      throw MigrationInvalidNameError(fmt::format("Invalid down file {}: {}", down->name, reason),
                                      {{"name", down->name}, {"reason", reason}});
    }
    Migration reverting = down_file(*down, down->text);
    it->down = std::move(reverting.down);
    it->down_name = std::move(reverting.down_name);
  }
}

// Parses the text of `file` into its migration. A down file keeps its text, for the migration
// it reverts. A failure is kept in the file, for the caller to report the first in name order.
void parse(File& file, FileContent content, std::string_view extension) {
  if (content.error != 0) {
    file.read_error = content.error;
    return;
  }
  file.text = std::move(content.text);
  if (file.migration == nullptr) return;
  try {
    *file.migration = read_migration_file(file, file.text, extension);
  } catch (...) {
    file.parse_failure = std::current_exception();
  }
  std::string().swap(file.text);  // freed here, for the next file this thread reads
}

// Reads and parses `files` from `dir`, in blocks that run side by side on several cores, each
// thread with a reader of its own. The file reported is the first unreadable one in name order,
// else the first that does not parse, however the work was split.
void read_and_parse_files(const fs::path& dir, std::vector<File>& files,
                          std::string_view extension) {
  const Descriptor folder(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder.get() < 0 && !files.empty()) {
    const int error = errno;
    folder_unusable(dir, std::string("cannot be read: ") + std::strerror(error));
  }
  const FolderReader::Mode mode =
      files.size() >= kBatchedFrom ? FolderReader::Mode::kBatched : FolderReader::Mode::kOneByOne;
  std::vector<std::optional<FolderReader>> readers(threads_for(files.size(), kReadSpread));
  for_each_block(files.size(), kReadSpread,
                 [&](std::size_t thread, std::size_t begin, std::size_t end) {
                   std::optional<FolderReader>& reader = readers[thread];
                   if (!reader) reader.emplace(folder, mode);
                   std::array<const char*, kIndexBlock> names;
                   for (std::size_t i = begin; i < end; ++i)
                     names[i - begin] = files[i].name.c_str();
                   std::vector<FileContent> contents = reader->read({names.data(), end - begin});
                   for (std::size_t i = begin; i < end; ++i) {
                     parse(files[i], std::move(contents[i - begin]), extension);
                   }
                 });
  for (const File& file : files) {
    if (file.read_error != 0) file_unreadable(dir / file.name, std::strerror(file.read_error));
  }
  for (const File& file : files) {
    if (file.parse_failure) std::rethrow_exception(file.parse_failure);
  }
}

// The folder's migrations in name order, once their names agree on one naming. Each has its
// place before the files are read, so the threads parse straight into it.
std::vector<Migration> load_files(const fs::path& dir, std::string_view extension, bool optional,
                                  std::vector<std::string>* ignored) {
  std::vector<std::string> subfolders;
  std::vector<NamedFile> names =
      list_migration_files(dir, extension, optional, &subfolders, ignored);
  const std::optional<Naming> naming = folder_naming(names);
  if (extension == ".sql") refuse_prisma_folders(dir, subfolders);
  if (extension == ".sql" && (!naming || *naming == Naming::kFlyway)) {
    refuse_flyway_subfolders(dir, subfolders);
  }
  std::vector<File> files(std::make_move_iterator(names.begin()),
                          std::make_move_iterator(names.end()));
  std::vector<Migration> migrations(
      std::count_if(files.begin(), files.end(), [](const File& file) { return !file.is_down(); }));
  std::vector<const File*> downs;
  auto place = migrations.begin();
  for (File& file : files) {
    if (file.is_down()) {
      downs.push_back(&file);
    } else {
      file.migration = &*place++;
    }
  }
  read_and_parse_files(dir, files, extension);
  attach_downs(migrations, downs);
  return migrations;
}

Migration from_code(const CodeMigration& code) {
  validate_migration_name(code.name);
  // Refused with the other bad input, before anything runs, not as a failure midway.
  if (!code.up) {
    throw MigrationInvalidFormatError("Code migration " + code.name + " has no up body",
                                      {{"migration", code.name}});
  }
  Migration migration;
  migration.name = code.name;
  migration.version = version_of(code.name);
  migration.description = code.description;
  migration.checksum = checksum_hex("code:" + code.name + ":" + code.version);
  migration.up = code.up;
  if (code.down) migration.down = Work(code.down);
  migration.options.transactional = code.use_transaction;
  migration.timeout = code.timeout;
  return migration;
}

// Two migrations with one version have no defined order between them.
void reject_shared_versions(const std::vector<Migration>& sorted) {
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const Migration& previous = sorted[i - 1];
    const Migration& current = sorted[i];
    if (current.name != previous.name &&
        (current.repeatable || compare_versions(previous.version, current.version) != 0)) {
      continue;
    }
    const std::string reason = previous.name == current.name
                                   ? fmt::format("two migrations are named {}", current.name)
                                   : fmt::format(
                                         "{} and {} share the version {}, so their "
                                         "order is ambiguous",
                                         previous.name, current.name, current.version);
    throw MigrationInvalidNameError("Invalid migration names: " + reason,
                                    {{"name", current.name},
                                     {"conflictsWith", previous.name},
                                     {"version", current.version},
                                     {"reason", reason}});
  }
}

// A file the tool whose naming it follows skips for a letter's case (`part`, which `fixed` has
// in lower case): it never ran there, so it is refused, with the name that would run it.
[[noreturn]] void refuse_skipped(const NamedFile& file, std::string_view tool,
                                 std::string_view part, const std::string& fixed) {
  const std::string reason = fmt::format(
      "{} reads only a lower-case {} and skips this file, so it never ran there: rename it {} to "
      "run it, or move it out of the migrations folder",
      tool, part, fixed);
  throw MigrationInvalidNameError(fmt::format("Invalid migration name {}: {}", file.name, reason),
                                  {{"name", file.name}, {"reason", reason}});
}

// golang-migrate reads only a lower-case ".up" or ".down", so that "5_x.UP.sql" (a dbmate name
// to the parser) never ran there: said so, not as mixed namings.
void refuse_direction_case(const std::vector<NamedFile>& files) {
  for (const NamedFile& file : files) {
    const std::string lower = lower_case(file.name);
    const std::optional<FileName> naming = parse_file_name(lower, ".sql");
    if (file.naming.naming == Naming::kGolangMigrate || !naming ||
        naming->naming != Naming::kGolangMigrate) {
      continue;
    }
    const std::size_t direction = file.name.rfind('.', file.name.rfind('.') - 1);
    refuse_skipped(file, "golang-migrate", ".up or .down",
                   file.name.substr(0, direction) + lower.substr(direction));
  }
}

// dbmate reads only a lower-case ".sql", so "1_x.SQL" never ran there: run now, it would be
// applied after the fact, as if new.
void refuse_dbmate_extension_case(const std::vector<NamedFile>& files) {
  for (const NamedFile& file : files) {
    const std::size_t dot = file.name.rfind('.');
    const std::string extension = file.name.substr(dot);
    if (file.naming.naming != Naming::kDbmate || lower_case(extension) == extension) continue;
    refuse_skipped(file, "dbmate", lower_case(extension),
                   file.name.substr(0, dot) + lower_case(extension));
  }
}

}  // namespace

std::vector<NamedFile> list_migration_files(const fs::path& dir, std::string_view extension,
                                            bool missing_ok, std::vector<std::string>* subfolders,
                                            std::vector<std::string>* ignored) {
  std::vector<NamedFile> files;
  for (FolderEntry& entry : folder_entries(dir, missing_ok)) {
    if (entry.name.starts_with('.')) continue;
    if (subfolders != nullptr && is_folder(entry, dir)) subfolders->push_back(entry.name);
    if (!has_extension(entry.name, extension)) {
      if (ignored != nullptr && is_near_miss(entry, dir, extension)) {
        ignored->push_back(std::move(entry.name));
      }
      continue;
    }
    FileName naming = classify_file_name(entry.name, extension);
    require_readable(entry, dir);
    files.push_back({std::move(entry.name), std::move(naming)});
  }
  return files;
}

std::string ignored_files_warning(const std::vector<std::string>& ignored,
                                  std::string_view extension) {
  // A folder of archived migrations ("1_x.sql.gz", …) would make one line of thousands of names.
  std::vector<std::string> lines;  // a name could hold a newline, forging a line
  for (const std::string& name : ignored) lines.push_back(single_line(name));
  const std::string names = first_names({lines.begin(), lines.end()});
  if (ignored.size() == 1) {
    return fmt::format(
        "Ignored {}: named like a migration, but a migration's file name ends in {}, so it never "
        "runs: rename it, or move it out of the migrations folder",
        names, extension);
  }
  return fmt::format(
      "Ignored {} files named like migrations ({}): a migration's file name ends in {}, so they "
      "never run: rename them, or move them out of the migrations folder",
      ignored.size(), names, extension);
}

// One folder, one naming: the files that differ from the most common naming are refused.
std::optional<Naming> folder_naming(const std::vector<NamedFile>& files) {
  std::map<Naming, int> counts;
  for (const NamedFile& file : files) ++counts[file.naming.naming];
  if (counts.empty()) return std::nullopt;
  const Naming usual = std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) {
                         return a.second < b.second;
                       })->first;
  if (usual == Naming::kDbmate) refuse_dbmate_extension_case(files);
  if (counts.size() == 1) return usual;
  if (counts.contains(Naming::kGolangMigrate)) refuse_direction_case(files);
  nlohmann::json odd = nlohmann::json::array();
  for (const NamedFile& file : files) {
    if (file.naming.naming != usual) odd.push_back(file.name);
  }
  throw MigrationInvalidNameError(
      fmt::format("The migrations folder mixes namings: most files follow {}'s, but not {}",
                  naming_name(usual), fmt::join(odd, ", ")),
      {{"naming", naming_name(usual)}, {"files", odd}});
}

bool runs_before(const RunOrder& a, const RunOrder& b) {
  if (a.repeatable != b.repeatable) return b.repeatable;
  if (const int order = compare_versions(a.version, b.version); order != 0) return order < 0;
  return a.name < b.name;
}

std::vector<std::size_t> execution_order(const std::vector<RunOrder>& orders) {
  std::vector<std::size_t> positions(orders.size());
  std::iota(positions.begin(), positions.end(), std::size_t{0});
  const auto before = [&](std::size_t a, std::size_t b) {
    return runs_before(orders[a], orders[b]);
  };
  // Files are listed in name order, nearly always the run order already: checking that costs
  // n comparisons, sorting n log n.
  if (!std::is_sorted(positions.begin(), positions.end(), before)) {
    std::stable_sort(positions.begin(), positions.end(), before);
  }
  return positions;
}

RunOrder record_order(std::string_view name) {
  const std::optional<FileName> naming = parse_record_name(name);
  if (!naming) return {false, "", std::string(name)};
  return {naming->role == FileRole::kRepeatable, naming->version, std::string(name)};
}

bool records_version(std::string_view record_name, std::string_view version) {
  if (version.empty()) return false;
  const RunOrder order = record_order(record_name);
  return !order.repeatable && compare_versions(order.version, version) == 0;
}

Migration read_migration_file(const NamedFile& file, std::string_view text,
                              std::string_view extension) {
  Migration migration = parse(file, text, extension);
  migration.version = file.naming.version;
  migration.repeatable = file.naming.role == FileRole::kRepeatable;
  migration.checksum = checksum_hex(text);
  return migration;
}

std::optional<std::string_view> flyway_placeholder(std::string_view file, std::string_view text) {
  const std::optional<FileName> naming = parse_file_name(file, ".sql");
  if (!naming || naming->naming != Naming::kFlyway) return std::nullopt;
  constexpr std::string_view kNameChars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-";
  for (std::size_t at = text.find("${"); at != std::string_view::npos;
       at = text.find("${", at + 2)) {
    const std::size_t end = text.find_first_not_of(kNameChars, at + 2);
    if (end != at + 2 && end != std::string_view::npos && text[end] == '}') {
      return text.substr(at, end + 1 - at);
    }
  }
  return std::nullopt;
}

void refuse_flyway_placeholders(std::string_view file, const Script& script) {
  const std::string_view text = script.text;
  const std::optional<std::string_view> placeholder = flyway_placeholder(file, text);
  if (!placeholder) return;
  const std::size_t line =
      script.first_line + position_at(text, placeholder->data() - text.data()).line - 1;
  const std::string reason = fmt::format(
      "the Flyway placeholder {}, which Flyway replaces and migronaut does not: write its value "
      "(or, where Flyway ran with placeholderReplacement=false, set flywayPlaceholders to "
      "\"literal\")",
      *placeholder);
  throw MigrationInvalidFormatError(
      fmt::format("Invalid migration {} at line {}: {}", file, line, reason),
      {{"file", file}, {"line", line}, {"reason", reason}});
}

std::vector<Migration> load_migrations(const fs::path& dir, std::string_view extension,
                                       const std::vector<CodeMigration>& code,
                                       std::vector<std::string>* ignored) {
  // Code alone can make a run: then the folder may be absent.
  std::vector<Migration> loaded = load_files(dir, extension, !code.empty(), ignored);
  for (const CodeMigration& migration : code) loaded.push_back(from_code(migration));
  std::vector<RunOrder> orders;
  orders.reserve(loaded.size());
  for (const Migration& migration : loaded) orders.push_back(migration.order());
  std::vector<Migration> migrations = take_in_order(std::move(loaded), execution_order(orders));
  reject_shared_versions(migrations);
  return migrations;
}

}  // namespace migronaut

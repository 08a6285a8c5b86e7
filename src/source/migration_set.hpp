// The migrations of one run, from the folder and from code, in execution order.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migronaut/migration.hpp"
#include "source/naming.hpp"
#include "store/store.hpp"

namespace migronaut {

// Where a migration sits in execution order: versioned migrations by version, compared as
// numbers (source/version.hpp), then by name; repeatable ones after them all, by name.
struct RunOrder {
  bool repeatable = false;
  std::string version;
  std::string name;
};
bool runs_before(const RunOrder& a, const RunOrder& b);
// The positions of `orders` in execution order: sorting positions rather than the values they
// stand for moves nothing heavy while thousands of migrations are sorted on every boot check.
std::vector<std::size_t> execution_order(const std::vector<RunOrder>& orders);
// `items` rearranged so that the i-th is the one at `positions[i]` (each position an index into
// `items`, at most once; items not named are left out). Positions 0, 1, 2 … over every item
// hand the vector back as it came, the usual case, as folders are listed in run order.
template <typename T>
std::vector<T> take_in_order(std::vector<T> items, const std::vector<std::size_t>& positions) {
  bool unchanged = positions.size() == items.size();
  for (std::size_t i = 0; unchanged && i < positions.size(); ++i) unchanged = positions[i] == i;
  if (unchanged) return items;
  std::vector<T> taken;
  taken.reserve(positions.size());
  for (std::size_t position : positions) taken.push_back(std::move(items[position]));
  return taken;
}
// The order of a changelog record whose migration may be gone, read from its name.
RunOrder record_order(std::string_view name);
// Whether the record `record_name` is of the versioned migration at `version` ("" never is): a
// migration is its version, whatever its file is called now.
bool records_version(std::string_view record_name, std::string_view version);

// How one direction of a migration runs: its marker's options (`-- migrate:up transaction:false
// lock_timeout:30s statement_timeout:5min`), or a code or JSON migration's useTransaction.
struct RunOptions {
  std::optional<bool> transactional;  // absent: the config's useTransaction decides
  // Absent: the config's lockTimeoutMs, and no statement_timeout; 0 turns either off.
  std::optional<std::chrono::milliseconds> lock_timeout;
  std::optional<std::chrono::milliseconds> statement_timeout;
};

struct Migration {
  std::string name;     // the file's name ("20260101120000-users.sql", "1_users.up.sql") or code's
  std::string version;  // "" for a repeatable migration
  bool repeatable = false;  // re-applied, after every versioned one, whenever its checksum changes
  std::string description;
  std::string checksum;  // SHA-256 hex of the file (of the up file for a pair)
  Work up;
  std::optional<Work> down;  // absent: irreversible
  // The down's own file (golang-migrate's .down.sql, Flyway's U undo file); "" when the down is
  // in `name`, the migration's file.
  std::string down_name;
  RunOptions options;  // the up's, and the down's unless it has its own
  // A down marker with options of its own (dbmate's per-direction options): the down runs with
  // those alone. Absent: the down runs with `options`, so a file whose down marker names none
  // means what it always did.
  std::optional<RunOptions> down_options;
  std::optional<std::chrono::milliseconds> timeout;
  // A freshly created file whose up section is still empty: listed by status, refused by up.
  bool up_empty = false;

  RunOrder order() const { return {repeatable, version, name}; }
  const RunOptions& options_for(Direction direction) const {
    return direction == Direction::kDown && down_options ? *down_options : options;
  }
  // The file a direction's script is in, for messages that place a line in it.
  const std::string& file_for(Direction direction) const {
    return direction == Direction::kDown && !down_name.empty() ? down_name : name;
  }
};

// A migration file of a folder, and how its name reads (source/naming.hpp).
struct NamedFile {
  std::string name;
  FileName naming;
};

// The top-level files of `dir` ending in `extension` (not hidden), sorted by name; none for a
// missing folder when `missing_ok`. Throws MigrationInvalidNameError for a name that follows no
// naming, MigrationFileUnreadableError for such an entry that is no readable file in the folder
// (a directory, a dangling or looping symlink, a symlink leading outside, a FIFO), and
// MigrationsDirNotFoundError for a folder that is missing (unless `missing_ok`), not a folder or
// unreadable.
// `subfolders`, when given, gets the names of its folders (not hidden). `ignored`, when given,
// gets the names of its other files that start like a migration's (source/naming.hpp) but do
// not end in `extension` ("3_add_index.sql.txt", "3_add_index.psql"), which are not read: near
// misses, but for tools' leftovers ("3_x.sql~", ".bak", ".orig", ".rej", ".swp", ".tmp") and
// JavaScript migrations (".js", ".ts", …), which are not named.
std::vector<NamedFile> list_migration_files(const std::filesystem::path& dir,
                                            std::string_view extension, bool missing_ok = true,
                                            std::vector<std::string>* subfolders = nullptr,
                                            std::vector<std::string>* ignored = nullptr);

// The warning naming `ignored` (at least one name list_migration_files() gave back for a folder
// of `extension`): they never run, and what to do about it.
std::string ignored_files_warning(const std::vector<std::string>& ignored,
                                  std::string_view extension);

// The one naming `files` follow, or nullopt when there are none. Throws
// MigrationInvalidNameError naming the files that differ from the most common naming when they
// mix namings.
std::optional<Naming> folder_naming(const std::vector<NamedFile>& files);

// The migration file `file` with content `text`, read as load_migrations() reads it (checksum
// included): `-- migrate:` sections for migronaut's and dbmate's naming, plain SQL for
// golang-migrate's and Flyway's. A down or undo file, which load_migrations() joins to the
// migration it reverts, makes one whose `down` is its script and whose up is empty. Throws as
// load_migrations() does for a file that does not parse.
Migration read_migration_file(const NamedFile& file, std::string_view text,
                              std::string_view extension);

// Flyway replaces placeholders (`${name}`, `${flyway:timestamp}`) in a file before it runs it,
// inside strings too (placeholderReplacement, on by default); migronaut runs the text as it is,
// so such a file would do something else here, in a string without a word. Throws
// MigrationInvalidFormatError naming the first in `script`, read from `file` when that is of
// Flyway's naming (V, U, R), and its line. For scripts about to run: an applied file ran under
// Flyway.
void refuse_flyway_placeholders(std::string_view file, const Script& script);
// The first such placeholder in `text`, read from `file` (a view into `text`); none for a file of
// another naming.
std::optional<std::string_view> flyway_placeholder(std::string_view file, std::string_view text);

// Scans the top level of `dir` for files ending in `extension` (".sql" or ".json"), validates
// their names, parses and checksums them, adds `code` and sorts the lot into execution order.
// A ".sql" folder may follow migronaut's, dbmate's, golang-migrate's or Flyway's naming
// (source/naming.hpp), one of them: a folder that mixes them is refused naming the files that
// differ from the rest. Throws MigrationInvalidNameError for a bad name, a mixed folder, a
// down or undo file without its migration, and two migrations with the same name or the same
// version, which leaves their order ambiguous; MigrationInvalidFormatError (file and reason in
// the context) for a file that does not parse; MigrationFileUnreadableError for an entry named
// like a migration that is no readable file in the folder (a directory, a dangling or looping
// symlink, a symlink leading outside, a FIFO); MigrationsDirNotFoundError for a folder that is
// missing (unless `code` is not empty), not a folder or unreadable. `ignored`, when given, gets
// the near misses list_migration_files() names.
std::vector<Migration> load_migrations(const std::filesystem::path& dir, std::string_view extension,
                                       const std::vector<CodeMigration>& code = {},
                                       std::vector<std::string>* ignored = nullptr);

}  // namespace migronaut

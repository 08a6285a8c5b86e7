// Which tool's naming a migration file follows, and the version and role its name gives it:
//
//   migronaut       20260101120000-add-users.sql    one file, `-- migrate:up/down` sections
//   dbmate          20260101120000_add_users.sql    one file, the same sections
//   golang-migrate  1_add_users.up.sql + 1_add_users.down.sql   plain SQL, one file a direction
//   Flyway          V1.2__add_users.sql (+ U1.2__add_users.sql undo), R__views.sql repeatable
//
// migronaut's own repeatable is R-<slug>.<ext>.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace migronaut {

enum class Naming { kMigronaut, kDbmate, kGolangMigrate, kFlyway };

// "migronaut", "dbmate", "golang-migrate", "flyway".
std::string_view naming_name(Naming naming);

// Whether the naming's files hold `-- migrate:up` / `-- migrate:down` sections (migronaut,
// dbmate) rather than plain SQL.
bool has_sections(Naming naming);

enum class FileRole {
  kWhole,       // both directions in one file (migronaut, dbmate) or Flyway's versioned file
  kUp,          // golang-migrate's .up.sql
  kDown,        // golang-migrate's .down.sql, Flyway's U undo file
  kRepeatable,  // re-applied whenever it changes
};

struct FileName {
  Naming naming = Naming::kMigronaut;
  FileRole role = FileRole::kWhole;
  std::string version;  // "20260101120000", "1.2" (Flyway's '_' separators read as '.'); "" for R
  std::string title;    // what follows the version
};

// Whether the file `name` ends in `extension` in any case (".SQL" as ".sql"), as Flyway and
// golang-migrate read a suffix.
bool has_extension(std::string_view name, std::string_view extension);

// How the file `name` is named, or nullopt when it follows no naming. A ".json" folder
// (MongoDB) knows only migronaut's naming; ".sql" knows all of them.
std::optional<FileName> parse_file_name(std::string_view name, std::string_view extension);

// Whether `name` begins as a migration's file name does in a folder of `extension`, whatever
// follows: a version and the separator after it ("20260101120000-", and in a ".sql" folder
// "1_", "V1.2__", "U3__") or a repeatable's prefix ("R-", "R__"), then something more. What
// tells a near miss ("3_add_index.sql.txt") from a file that is no migration ("README.md").
bool starts_like_migration(std::string_view name, std::string_view extension);

// The same for a name read from a changelog, whatever its extension (an imported knex record is
// "20260101120000_users.js", a node-pg-migrate one has none): the title then includes it.
std::optional<FileName> parse_record_name(std::string_view name);

}  // namespace migronaut

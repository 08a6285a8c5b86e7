// Migration names: what a valid one looks like, its version prefix, and how `create` makes one.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "source/naming.hpp"

namespace migronaut {

// Throws MigrationInvalidNameError unless `name` is a bare file name (no '/', '\\' or NUL, not
// "." or "..", no leading '.') of the form <digits>-<slug>, the slug made of letters, digits,
// '.', '_' and '-': "20260101120000-users.sql", "0001-seed". At most 255 bytes.
void validate_migration_name(std::string_view name);

// How the migration file `name` (ending in `extension`) is named: a bare file name following
// one of the namings of source/naming.hpp. Throws MigrationInvalidNameError otherwise.
FileName classify_file_name(std::string_view name, std::string_view extension);

// The check for a name read back from the changelog, which is later joined to the migrations
// folder: a record can never point outside it. Any naming of source/naming.hpp is accepted,
// whatever the extension (imported records name other tools' files).
void validate_record_name(std::string_view name);
// The same check as a yes or no.
bool is_valid_record_name(std::string_view name);

// The version prefix of a valid name: the digits before the first '-'.
std::string version_of(std::string_view name);

// "Add users: unique e-mail!" → "add-users-unique-e-mail": lowercase ASCII letters and digits,
// every other run of characters one '-'. Throws MigrationInvalidNameError when nothing is left.
std::string slugify(std::string_view title);

// The file names `create` writes for `title` into a folder of `naming` holding the migration
// files `existing`: one file, or golang-migrate's .up and .down pair; other tools' names join
// the slug's words with '_'. The version:
// - migronaut: "YYYYMMDDHHMMSS" from `now` in UTC, or with `sequential` one past the highest
//   version, at least 4 digits ("0001-slug.sql");
// - dbmate, golang-migrate: a timestamp, or in a folder numbered 1, 2, 3 (no 14-digit version)
//   one past the highest, zero-padded as wide as it ("000042" → "000043");
// - Flyway: the next major version ("V3.1__x.sql" → "V4__slug.sql").
// A timestamp another migration has moves one second later (an identical name is kept, for the
// caller to refuse as a file that exists). `extension` is ".sql" or ".json".
std::vector<std::string> new_migration_files(std::string_view title, Naming naming, bool sequential,
                                             const std::vector<std::string>& existing,
                                             std::chrono::system_clock::time_point now,
                                             std::string_view extension);

}  // namespace migronaut

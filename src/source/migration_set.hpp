// The migrations of one run, from the folder and from code, in execution order.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migronaut/migration.hpp"
#include "store/store.hpp"

namespace migronaut {

struct Migration {
  std::string name;  // bare file name ("20260101120000-users.sql") or a code migration's name
  std::string description;
  std::string checksum;  // SHA-256 hex
  Work up;
  std::optional<Work> down;           // absent: irreversible
  std::optional<bool> transactional;  // absent: the config's useTransaction decides
  std::optional<std::chrono::milliseconds> timeout;
};

// Scans the top level of `dir` for files ending in `extension` (".sql" or ".json"), validates
// their names, parses and checksums them, adds `code` and sorts the lot by name. Throws
// MigrationInvalidNameError for a bad name and for two migrations with the same name or the
// same version prefix (the part before the first "-"), which leaves their order ambiguous;
// MigrationInvalidFormatError (file and reason in the context) for a file that does not parse;
// MigrationFileUnreadableError for an entry named like a migration that is no readable file in
// the folder (a directory, a dangling or looping symlink, a symlink leading outside, a FIFO);
// MigrationsDirNotFoundError for a folder that is missing (unless `code` is not empty), not a
// folder or unreadable.
std::vector<Migration> load_migrations(const std::filesystem::path& dir, std::string_view extension,
                                       const std::vector<CodeMigration>& code = {});

}  // namespace migronaut

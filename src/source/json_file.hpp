// .json migrations for MongoDB:
//
//   { "description": "users: unique email", "useTransaction": false, "timeoutMs": 60000,
//     "up":   [ { "createIndexes": "users", "indexes": [ ... ] } ],
//     "down": [ { "dropIndexes": "users", "index": "email_1" } ] }
//
// Each step is one database command in MongoDB Extended JSON.
#pragma once

#include <string_view>

#include "source/migration_set.hpp"

namespace migronaut {

// Parses the file `name` with content `text` into a Migration (its checksum left empty). Each
// direction's Script is the JSON array of its steps, as nlohmann::json::dump() writes it. `up`
// must be a non-empty array of non-empty objects; `down` an array of them (absent or empty:
// irreversible); `description` a string; `useTransaction` a boolean; `timeoutMs` a positive
// integer. Any other key or shape throws MigrationInvalidFormatError with {"file", "reason"}.
Migration parse_json_migration(std::string_view name, std::string_view text);

}  // namespace migronaut

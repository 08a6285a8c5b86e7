// .sql migrations in dbmate's format:
//
//   -- description: users table            (optional, before the first marker)
//   -- migrate:up [transaction:false] [lock_timeout:30s] [statement_timeout:5min]
//   CREATE TABLE users (...);
//   -- migrate:down
//   DROP TABLE users;
#pragma once

#include <string_view>

#include "source/migration_set.hpp"

namespace migronaut {

// Parses the file `name` with content `text` into a Migration (its checksum left empty). The up
// section is required and must hold more than whitespace; a missing or blank down section makes
// the migration irreversible. `transaction:false` on the up marker runs both directions outside
// a transaction (the option belongs to the file, so it is refused on the down marker). Before
// the first marker only blank and comment lines may appear. Anything else throws
// MigrationInvalidFormatError with {"file", "line", "reason"}.
Migration parse_sql_migration(std::string_view name, std::string_view text);

}  // namespace migronaut

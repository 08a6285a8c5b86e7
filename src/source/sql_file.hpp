// .sql migrations in dbmate's format:
//
//   -- description: users table            (optional, before the first marker)
//   -- migrate:up [transaction:false] [lock_timeout:30s] [statement_timeout:5min]
//   CREATE TABLE users (...);
//   -- migrate:down [the same options, for the down alone]
//   DROP TABLE users;
//
// or in sql-migrate's: `-- +migrate Up [notransaction]`, `-- +migrate Down [notransaction]`,
// `-- +migrate StatementBegin` / `StatementEnd` (comments here), each direction in a transaction
// unless its own line says notransaction.
#pragma once

#include <string>
#include <string_view>

#include "source/migration_set.hpp"

namespace migronaut {

// Parses the file `name` with content `text` into a Migration (its checksum left empty). The up
// section is required and must hold more than whitespace; a missing or blank down section makes
// the migration irreversible. The up marker's options apply to the down too, unless the down
// marker has options of its own: then the down runs with those alone. A timeout option (not off)
// with `transaction:false` on the same marker is refused: the timeouts are set in the
// migration's transaction. Before the first marker only blank and comment lines may appear.
// Anything else throws MigrationInvalidFormatError with {"file", "line", "reason"}.
Migration parse_sql_migration(std::string_view name, std::string_view text);

// Whether `text` has a line sql-migrate reads as a command ("-- +migrate ...").
bool has_sql_migrate_commands(std::string_view text);

// Why the timeout `option` ("lock_timeout:30s") cannot apply `where` (with 'transaction:false', or
// what else runs the section without a transaction), with what to write instead. The store sets a
// migration's timeouts with SET LOCAL in its transaction: without one they would not apply.
std::string untransacted_timeout_reason(std::string_view option, std::string_view where);

}  // namespace migronaut

// A migration written in C++, ordered among the .sql files by its name.
#include <sqlite3.h>

#include <stdexcept>

#include "migronaut/migrator.hpp"

migronaut::CodeMigration backfill_emails() {
  migronaut::CodeMigration migration;
  migration.name = "20260101090150-backfill-emails";
  migration.description = "lower-case every e-mail";
  migration.up = [](migronaut::MigrationContext& context) {
    context.logger.info("backfilling run " + context.run.run_id);
    if (context.stop.stop_requested()) throw std::runtime_error("stopped");
    // The engine's own connection, inside the migration's transaction.
    if (sqlite3_exec(context.handle.sqlite, "UPDATE users SET email = lower(email)", nullptr,
                     nullptr, nullptr) != SQLITE_OK) {
      throw std::runtime_error(sqlite3_errmsg(context.handle.sqlite));
    }
  };
  // No `down`: irreversible. Bump `version` when the body changes: status then reports drift.
  migration.version = "2";
  return migration;
}

int main() {
  migronaut::RunMigrationsOptions options;
  options.migrator.migrations.push_back(backfill_emails());
  migronaut::run_migrations(migronaut::config_from_json({{"uri", "sqlite:app.db"}}), options);
}

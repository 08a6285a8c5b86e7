// Migrator: every command of the CLI, for tools and admin endpoints.
#include "migronaut/migrator.hpp"

#include <iostream>

int main() {
  migronaut::Migrator migrator(migronaut::config_from_json({{"uri", "sqlite:app.db"}}));

  for (const migronaut::StatusRow& row : migrator.dry_run_up()) {
    std::cout << "would apply " << row.name << "\n";
  }
  migronaut::UpOptions up_to;
  up_to.to = "20260101090100-create-orders.sql";
  up_to.reason = "release 42";
  migrator.up(up_to);
  for (const migronaut::StatusRow& row : migrator.status()) {
    std::cout << row.name << " " << migronaut::migration_state_name(row.state)
              << (row.checksum_ok == false ? " (changed since applied)" : "") << "\n";
  }
  migronaut::DownOptions last;
  last.steps = 1;
  migrator.down(last);
  if (const std::optional<migronaut::LockInfo> holder = migrator.lock_info()) {
    std::cout << "lock held by " << holder->run_id << " on " << holder->host << "\n";
  }
  migrator.disconnect();
}

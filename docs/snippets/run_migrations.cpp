// Boot: bring the database up to date before serving; wait for a peer that is migrating.
#include <iostream>
#include <stop_token>

#include "migronaut/migrator.hpp"

int main() {
  std::stop_source sigterm;  // request_stop() from your SIGTERM handling
  const migronaut::Config config = migronaut::config_from_json(
      {{"uri", "sqlite:app.db"}, {"migrationsDir", "migrations"}, {"onLockHeld", "wait"}});

  migronaut::RunMigrationsOptions options;
  options.stop = sigterm.get_token();
  options.on_wait = [](const migronaut::LockWaitReport& report) {
    std::cerr << "waiting for " << (report.holder ? report.holder->host : "a peer") << "\n";
  };
  try {
    const migronaut::RunMigrationsResult result = migronaut::run_migrations(config, options);
    std::cout << (result.up_to_date ? "up to date" : "migrated") << ": " << result.applied.size()
              << " applied, " << result.attempts << " attempt(s)\n";
  } catch (const migronaut::Error& error) {
    std::cerr << error.code_name() << ": " << error.what() << "\n";
    return migronaut::exit_status(error.code());
  }
}

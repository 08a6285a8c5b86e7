// Configuration: built in code, or resolved like the CLI does (flags > environment > file).
#include "migronaut/config.hpp"

#include <iostream>

int main() {
  const migronaut::Config in_code = migronaut::config_from_json({
      {"uri", "postgres://app@db.internal/app"},
      {"migrationsDir", "db/migrations"},
      {"lockTTLSeconds", 30},
      {"onLockHeld", "wait"},
  });

  migronaut::ConfigSources sources;  // ./migronaut.config.json, ./.env
  sources.environment = migronaut::process_environment();
  sources.flags = {{"environment", "staging"}};
  const migronaut::Config resolved = migronaut::load_config(sources);
  std::cout << in_code.lock_ttl_ms() << " " << resolved.migrations_dir << "\n";
}

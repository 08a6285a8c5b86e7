// Typed errors: catch what you handle, report the rest with its code and context.
#include <iostream>

#include "migronaut/migrator.hpp"

int main() {
  const migronaut::Config config = migronaut::config_from_json({{"uri", "sqlite:app.db"}});
  try {
    migronaut::run_migrations(config);
  } catch (const migronaut::LockAlreadyHeldError& error) {
    if (const std::optional<migronaut::LockInfo>& holder = error.refusal().holder) {
      std::cerr << "run " << holder->run_id << " on " << holder->host << " holds the lock\n";
    }
    return migronaut::exit_status(error.code());  // 3
  } catch (const migronaut::MigrationExecutionFailedError& error) {
    std::cerr << error.context().value("migration", "?") << ": " << error.what() << "\n";
    return migronaut::exit_status(error.code());  // 7
  } catch (const migronaut::Error& error) {
    std::cerr << error.to_json().dump() << "\n";  // {"code", "message", "context"}
    return migronaut::exit_status(error.code());
  }
}

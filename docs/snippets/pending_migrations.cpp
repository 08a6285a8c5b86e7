// Readiness probe: ready once nothing is pending. Takes no lock and writes nothing.
#include <iostream>

#include "migronaut/migrator.hpp"

int main() {
  const migronaut::Config config = migronaut::config_from_json({{"uri", "sqlite:app.db"}});
  const std::vector<std::string> pending = migronaut::pending_migrations(config);
  for (const std::string& name : pending) std::cout << "pending: " << name << "\n";
  return pending.empty() ? 0 : 1;
}

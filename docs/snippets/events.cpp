// Events report what a run does; a listener that throws is ignored.
#include <iostream>

#include "migronaut/migrator.hpp"

int main() {
  migronaut::RunMigrationsOptions options;
  options.migrator.listeners.push_back([](const migronaut::Event& event) {
    if (event.name == "migration:success") {
      std::cout << event.data["migration"].get<std::string>() << " took "
                << event.data["durationMs"].get<std::int64_t>() << " ms\n";
    } else if (event.name == "migration:error") {
      std::cerr << event.data.dump() << "\n";
    }
  });
  migronaut::run_migrations(migronaut::config_from_json({{"uri", "sqlite:app.db"}}), options);
}

// Built by package_test.cmake with nothing but `pkg-config --cflags --libs migronaut`.
// usage: pkg-config-program <sqlite-file> <empty-migrations-dir>
#include <filesystem>
#include <iostream>

#include "migronaut/migrator.hpp"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::filesystem::create_directories(argv[2]);
  const migronaut::Config config = migronaut::config_from_json(
      {{"uri", std::string("sqlite:") + argv[1]}, {"migrationsDir", argv[2]}});
  // Counted before printing: the library's log lines (an empty folder, a missing database)
  // must not split the line the test matches.
  const std::size_t pending = migronaut::pending_migrations(config).size();
  std::cout << "pending " << pending << "\n";
}

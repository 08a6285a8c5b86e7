// Hooks take part in a run: one that throws fails the run with HookFailedError.
#include <iostream>

#include "migronaut/migrator.hpp"

int main() {
  migronaut::MigratorOptions options;
  options.hooks.before_all = [](const migronaut::HookInfo& info) {
    std::cout << "run " << info.run_id << " starts\n";
  };
  options.hooks.before_each = [](const std::string& name, const migronaut::HookInfo& info) {
    std::cout << "[" << info.index + 1 << "/" << info.total << "] " << name << "\n";
  };
  options.hooks.after_each = [](const std::string& name, std::int64_t duration_ms,
                                const migronaut::HookInfo&) {
    std::cout << name << ": " << duration_ms << " ms\n";
  };
  options.hooks.on_error = [](const std::string& name, const migronaut::Error& error,
                              const migronaut::HookInfo&) {
    std::cerr << name << " failed: " << error.to_json().dump() << "\n";
  };
  options.hooks.after_all = [](const migronaut::HookInfo&, bool success,
                               const std::vector<migronaut::RunResult>& results) {
    std::cout << (success ? "done: " : "failed after ") << results.size() << " migration(s)\n";
  };
  migronaut::Migrator migrator(migronaut::config_from_json({{"uri", "sqlite:app.db"}}), options);
  migrator.up();
}

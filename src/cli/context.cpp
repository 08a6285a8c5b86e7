#include <iostream>

#include "cli/cli.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "util/redact.hpp"

namespace migronaut::cli {

Config Context::config(const nlohmann::json& extra, bool require_uri) {
  ConfigSources sources;
  if (flags_.config_file) sources.config_file = *flags_.config_file;
  if (flags_.env_file) sources.env_file = *flags_.env_file;
  sources.load_env_file = !flags_.no_env;
  sources.environment = process_environment();
  sources.require_uri = require_uri;
  nlohmann::json layer = extra;
  if (flags_.uri) layer["uri"] = *flags_.uri;
  if (flags_.db) layer["dbName"] = *flags_.db;
  if (flags_.dir) layer["migrationsDir"] = *flags_.dir;
  sources.flags = std::move(layer);
  Config config = load_config(sources);
  if (require_uri) {
    output_.debug(fmt::format("connecting to {}{}; migrations in {}", redact(config.uri),
                              config.db_name.empty() ? "" : " (database " + config.db_name + ")",
                              config.migrations_dir.string()));
  }
  return config;
}

MigratorOptions Context::migrator_options() {
  MigratorOptions options;
  options.logger = output_.logger();
  return options;
}

bool confirm(Context& context, const std::string& question, bool yes) {
  if (yes) return true;
  if (context.out().json_mode()) {
    throw ConfigInvalidError("--json is non-interactive: confirm with --yes");
  }
  std::cerr << question << " [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

}  // namespace migronaut::cli

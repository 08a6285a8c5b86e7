// `migronaut init`: scaffolds migronaut.config.json (SQLite by default) and migrations/.
#include <filesystem>
#include <fstream>

#include "cli/cli.hpp"
#include "cli/help.hpp"
#include "migronaut/errors.hpp"

namespace migronaut::cli {

Command add_init(CLI::App& app) {
  auto* sub = app.add_subcommand("init", "Create migronaut.config.json and migrations/");
  auto force = std::make_shared<bool>(false);
  sub->add_flag("--force", *force, "Overwrite an existing config file");
  document(sub, "migronaut init --uri postgres://app@db.internal/app",
           "0 created, 16 the config file exists (use --force)");
  return {sub, [force](Context& context) {
            namespace fs = std::filesystem;
            const GlobalFlags& flags = context.flags();
            const fs::path file = flags.config_file.value_or("migronaut.config.json");
            if (fs::exists(file) && !*force) {
              throw ConfigFileExistsError(file.string() + " already exists (use --force)",
                                          {{"path", file.string()}});
            }
            const nlohmann::json config = {{"uri", flags.uri.value_or("sqlite:migronaut.db")},
                                           {"migrationsDir", flags.dir.value_or("migrations")},
                                           {"lockTTLSeconds", 60},
                                           {"onLockHeld", "wait"}};
            std::ofstream(file) << config.dump(2) << "\n";
            fs::create_directories(config["migrationsDir"].get<std::string>());
            context.out().success("Created " + file.string() + " and " +
                                  config["migrationsDir"].get<std::string>() + "/");
            if (context.out().json_mode()) {
              context.out().document(
                  {{"config", file.string()}, {"migrationsDir", config["migrationsDir"]}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

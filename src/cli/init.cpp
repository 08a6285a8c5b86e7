// `migronaut init`: scaffolds migronaut.config.json (SQLite by default) and migrations/.
#include <filesystem>
#include <fstream>

#include "cli/cli.hpp"
#include "cli/help.hpp"
#include "migronaut/errors.hpp"
#include "util/redact.hpp"

namespace migronaut::cli {
namespace {

// The config file is meant to be committed: a password belongs in the environment.
void refuse_secret_in_config(const std::string& uri, const std::filesystem::path& file) {
  if (redact_uri(uri) == uri) return;
  throw ConfigInvalidError(
      "--uri holds a password, which init would write into " + file.string() +
          ", a file meant to be committed: give init the URI without it, and the password "
          "through MIGRONAUT_URI, DATABASE_URL or PGPASSWORD",
      {{"key", "uri"}, {"uri", redact_uri(uri)}});
}

}  // namespace

Command add_init(CLI::App& app) {
  auto* sub = app.add_subcommand("init", "Create migronaut.config.json and migrations/");
  auto force = std::make_shared<bool>(false);
  sub->add_flag("--force", *force, "Overwrite an existing config file");
  document(sub, "migronaut init --uri postgres://app@db.internal/app",
           "0 created, 6 --uri holds a password, 16 the config file exists (use --force)");
  return {sub, [force](Context& context) {
            namespace fs = std::filesystem;
            const GlobalFlags& flags = context.flags();
            const fs::path file = flags.config_file.value_or("migronaut.config.json");
            if (fs::exists(file) && !*force) {
              throw ConfigFileExistsError(file.string() + " already exists (use --force)",
                                          {{"path", file.string()}});
            }
            const std::string uri = flags.uri.value_or("sqlite:migronaut.db");
            refuse_secret_in_config(uri, file);
            const nlohmann::json config = {{"uri", uri},
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

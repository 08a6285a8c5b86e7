// `migronaut init`: scaffolds migronaut.config.json (SQLite by default) and migrations/.
#include <filesystem>
#include <fstream>

#include "cli/cli.hpp"
#include "cli/help.hpp"
#include "core/env_file.hpp"
#include "migronaut/config.hpp"
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

// The variable that already names the database, in the environment or the .env file a run
// would read. The config then names none: DATABASE_URL ranks below the file, so a "uri" written
// there would send every run to another database than the one the variable names.
std::optional<std::string> uri_variable(const GlobalFlags& flags) {
  auto environment = process_environment();
  const std::filesystem::path env_file = flags.env_file.value_or(".env");
  if (!flags.no_env && (flags.env_file || std::filesystem::exists(env_file))) {
    for (auto& [name, value] : read_env_file(env_file)) environment.try_emplace(name, value);
  }
  for (const char* name : {"MIGRONAUT_URI", "DATABASE_URL"}) {
    if (const auto found = environment.find(name);
        found != environment.end() && !found->second.empty()) {
      return name;
    }
  }
  return std::nullopt;
}

// --dir, else migrations/, else dbmate's and Rails' db/migrations when only that exists.
std::string migrations_dir(const GlobalFlags& flags) {
  if (flags.dir) return *flags.dir;
  namespace fs = std::filesystem;
  if (!fs::exists("migrations") && fs::is_directory("db/migrations")) return "db/migrations";
  return "migrations";
}

// Writes the config: `uri` (SQLite by default) unless a variable names the database.
void write_config(const std::filesystem::path& file, std::optional<std::string> uri,
                  const std::string& dir) {
  nlohmann::json config = nlohmann::json::object();
  if (uri) {
    refuse_secret_in_config(*uri, file);
    config["uri"] = *uri;
  }
  config.update({{"migrationsDir", dir}, {"lockTTLSeconds", 60}, {"onLockHeld", "wait"}});
  std::ofstream(file) << config.dump(2) << "\n";
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
            const std::optional<std::string> variable =
                flags.uri ? std::nullopt : uri_variable(flags);
            const std::string dir = migrations_dir(flags);
            write_config(
                file,
                variable ? std::optional<std::string>() : flags.uri.value_or("sqlite:migronaut.db"),
                dir);
            fs::create_directories(dir);
            context.out().success("Created " + file.string() + " and " + dir + "/" +
                                  (variable ? "; the database URI comes from " + *variable : ""));
            if (context.out().json_mode()) {
              nlohmann::json document = {{"config", file.string()}, {"migrationsDir", dir}};
              if (variable) document["uriVariable"] = *variable;
              context.out().document(document);
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

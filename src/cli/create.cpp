// `migronaut create <name>`: writes a new, empty migration file, named as the folder's files
// are (migronaut, dbmate, golang-migrate or Flyway). Needs no database.
#include "cli/cli.hpp"
#include "cli/help.hpp"
#include "source/scaffold.hpp"
#include "store/registry.hpp"

namespace migronaut::cli {
namespace {

// {"path": the new migration (the .up.sql of a pair), "paths": every file written}.
nlohmann::json created_document(const std::vector<std::filesystem::path>& paths) {
  nlohmann::json all = nlohmann::json::array();
  for (const std::filesystem::path& path : paths) all.push_back(path.string());
  return {{"path", paths.front().string()}, {"paths", all}};
}

}  // namespace

Command add_create(CLI::App& app) {
  auto* sub = app.add_subcommand("create", "Create a new migration file");
  auto title = std::make_shared<std::string>();
  auto template_path = std::make_shared<std::string>();
  sub->add_option("name", *title, "What the migration does, e.g. add-users")
      ->required()
      ->type_name("NAME");
  sub->add_option("--template", *template_path, "Template file for the new migration")
      ->type_name("FILE");
  document(sub, "migronaut create add-users", "0 created, 18 the file exists, 19 a bad name");
  return {sub, [title, template_path](Context& context) {
            const Config config = context.config(nlohmann::json::object(), /*require_uri=*/false);
            // The backend decides the file type: MongoDB runs .json commands, SQL stores .sql.
            const std::string_view extension = script_extension_for(config.uri);
            const std::filesystem::path chosen_template =
                template_path->empty() ? config.template_path
                                       : std::filesystem::path(*template_path);
            const std::vector<std::filesystem::path> paths =
                create_migration_files(config.migrations_dir, *title, config.sequential,
                                       chosen_template, std::string(extension));
            for (const std::filesystem::path& path : paths) {
              context.out().success("Created " + path.string());
            }
            if (context.out().json_mode()) context.out().document(created_document(paths));
            return 0;
          }};
}

}  // namespace migronaut::cli

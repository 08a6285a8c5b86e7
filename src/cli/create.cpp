// `migronaut create <name>`: writes a new, empty migration file. Needs no database.
#include "cli/cli.hpp"
#include "source/scaffold.hpp"
#include "store/registry.hpp"

namespace migronaut::cli {

Command add_create(CLI::App& app) {
  auto* sub = app.add_subcommand("create", "Create a new migration file");
  auto title = std::make_shared<std::string>();
  auto template_path = std::make_shared<std::string>();
  sub->add_option("name", *title, "What the migration does, e.g. add-users")->required();
  sub->add_option("--template", *template_path, "Template file for the new migration");
  return {sub, [title, template_path](Context& context) {
            const Config config = context.config(nlohmann::json::object(), /*require_uri=*/false);
            // The backend decides the file type: MongoDB runs .json commands, SQL stores .sql.
            const std::string_view extension = script_extension_for(config.uri);
            const std::filesystem::path chosen_template =
                template_path->empty() ? config.template_path
                                       : std::filesystem::path(*template_path);
            const std::filesystem::path path =
                create_migration_file(config.migrations_dir, *title, config.sequential,
                                      chosen_template, std::string(extension));
            context.out().success("Created " + path.string());
            if (context.out().json_mode()) context.out().document({{"path", path.string()}});
            return 0;
          }};
}

}  // namespace migronaut::cli

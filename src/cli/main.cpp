// migronaut: the command-line tool over the engine. Parses the flags, runs one command and
// maps its outcome to an exit status an orchestrator can act on (DESIGN §7).
#include <cstdio>
#include <vector>

#include "cli/cli.hpp"
#include "cli/signals.hpp"
#include "migronaut/errors.hpp"
#include "util/redact.hpp"

namespace {

using namespace migronaut;
using namespace migronaut::cli;

void add_global_flags(CLI::App& app, GlobalFlags& flags) {
  app.add_option("--uri", flags.uri, "Database URI (sqlite:path, postgres://…, mongodb://…)");
  app.add_option("--db", flags.db, "Database name (MongoDB)");
  app.add_option("--dir", flags.dir, "Migrations folder");
  app.add_option("--config", flags.config_file, "Config file (default ./migronaut.config.json)");
  app.add_option("--env-file", flags.env_file, ".env file to load (default ./.env)");
  app.add_flag("--no-env", flags.no_env, "Load no .env file");
  app.add_flag("--verbose", flags.verbose, "Debug output");
  app.add_flag("--quiet", flags.quiet, "Errors only");
  app.add_flag("--no-color", flags.no_color, "No colors");
  app.add_flag("--json", flags.json, "One JSON document on stdout");
}

int report(Output& out, const Error& error) {
  const std::string message = redact(error.what());
  if (out.json_mode()) {
    nlohmann::json body = {{"code", error.code_name()}, {"message", message}};
    if (!error.context().empty()) body["context"] = error.context();
    out.document({{"error", body}});
  }
  out.error(message);
  if (out.verbose() && !error.context().empty()) out.debug(error.context().dump());
  return exit_status(error.code());
}

}  // namespace

int main(int argc, char** argv) {
  Signals signals;  // first: every thread started later inherits the blocked signals

  GlobalFlags flags;
  CLI::App app{"migronaut — versioned database migrations, applied exactly once"};
  app.set_version_flag("-V,--version", MIGRONAUT_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global flags may come after the command name too
  add_global_flags(app, flags);

  const std::vector<Command> commands = {add_init(app), add_create(app),  add_up(app),
                                         add_down(app), add_redo(app),    add_status(app),
                                         add_list(app), add_dry_run(app), add_baseline(app),
                                         add_lock(app), add_unlock(app),  add_wait(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    Output out(flags.json, flags.quiet, flags.verbose, flags.no_color);
    return report(out, ConfigInvalidError(e.what()));
  }

  Output out(flags.json, flags.quiet, flags.verbose, flags.no_color);
  signals.set_output(&out);
  Context context(flags, out, signals.token());
  try {
    for (const Command& command : commands) {
      if (!command.app->parsed()) continue;
      signals.set_graceful(command.graceful_stop);
      return command.run(context);
    }
    return 1;
  } catch (const Error& error) {
    out.clear_live();
    return report(out, error);
  } catch (const std::exception& error) {
    out.clear_live();
    return report(out, Error(ErrorCode::kUnclassified, error.what()));
  }
}

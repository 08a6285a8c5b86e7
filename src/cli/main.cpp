// migronaut: the command-line tool over the engine. Parses the flags, runs one command and
// maps its outcome to an exit status an orchestrator can act on.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "cli/signals.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "store/store.hpp"
#include "util/huge_pages.hpp"
#include "util/iso_time.hpp"
#include "util/process_identity.hpp"
#include "util/redact.hpp"

namespace {

using namespace migronaut;
using namespace migronaut::cli;

constexpr const char* kFooter =
    "Run `migronaut help <command>` for a command's flags, an example and its exit codes, and\n"
    "`migronaut help exit-codes` for every exit status.";

void add_global_flags(CLI::App& app, GlobalFlags& flags) {
  app.add_option("--uri", flags.uri, "Database URI (sqlite:path, postgres://…, mongodb://…)")
      ->type_name("URI");
  app.add_option("--db", flags.db, "Database name (MongoDB)")->type_name("NAME");
  app.add_option("--dir", flags.dir, "Migrations folder")->type_name("DIR");
  app.add_option("--config", flags.config_file, "Config file (default ./migronaut.config.json)")
      ->type_name("FILE");
  app.add_option("--env-file", flags.env_file, ".env file to load (default ./.env)")
      ->type_name("FILE");
  app.add_flag("--no-env", flags.no_env, "Load no .env file");
  app.add_flag("--verbose", flags.verbose,
               "Connection target, lock timings and statements on stderr");
  app.add_flag("-q,--quiet", flags.quiet, "No progress lines, only errors (reports still print)");
  app.add_flag("--no-color", flags.no_color, "No colors");
  app.add_flag("--json", flags.json, "One JSON document on stdout (docs/JSON.md)");
}

// Every command, by the name it registers under.
constexpr std::pair<std::string_view, Command (*)(CLI::App&)> kCommands[] = {
    {"init", add_init},   {"create", add_create},   {"up", add_up},
    {"down", add_down},   {"redo", add_redo},       {"status", add_status},
    {"list", add_list},   {"dry-run", add_dry_run}, {"baseline", add_baseline},
    {"lock", add_lock},   {"unlock", add_unlock},   {"wait", add_wait},
    {"audit", add_audit}, {"repair", add_repair},   {"import", add_import},
    {"lint", add_lint}};

// The command `argv` names, read before any is built: building all sixteen with their flags
// costs a boot check more than checksumming its migrations, so only the named one is. It is the
// first word that is neither a flag nor a global flag's value; none when a flag is unknown here
// (it might take a value), and then every command is built and CLI11 judges as usual.
std::optional<std::string_view> named_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!arg.starts_with('-')) return arg;
    if (arg == "--") return std::nullopt;
    const std::size_t equals = arg.find('=');
    const CLI::Option* option = app.get_option_no_throw(std::string(arg.substr(0, equals)));
    if (option == nullptr) return std::nullopt;
    if (equals == std::string_view::npos && option->get_expected_min() > 0) ++i;  // its value
  }
  return std::nullopt;
}

// Whether the command line asks for --json, read from `argv` itself: a command line CLI11
// refuses (a flag without its value) sets no flag, and its error is still owed as JSON.
bool asks_for_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return false;
    if (arg == "--json") return true;
  }
  return false;
}

// How to get past a held lock with `command`: wait with it where it can wait (longer, when it
// gave up waiting), else run it again once the lock is free — never another command, which
// would do something else.
std::string wait_hint(const CLI::App& command, bool waits_for_lock, const nlohmann::json& context) {
  if (waits_for_lock && context.value("timedOut", false)) {
    return fmt::format(
        "raise --wait-timeout (`migronaut {}` gave up when its holder showed no progress for that "
        "long)",
        command.get_name());
  }
  if (waits_for_lock) {
    return fmt::format("`migronaut {}` waits by default (drop --no-wait)", command.get_name());
  }
  return fmt::format("retry `migronaut {}` once `migronaut lock` shows the lock free",
                     command.get_name());
}

// The way out of a held lock: when it expires, how to wait, how to look and how to release.
// `unlock`'s refusals say their own way out: it is the command that releases.
void explain_held_lock(Output& out, Error& error, const Command& command) {
  const nlohmann::json& context = error.context();
  if (!context.contains("holder") || command.app->get_name() == "unlock") return;
  const LockInfo holder = context["holder"].get<LockInfo>();
  const std::int64_t ttl = std::max(holder.ttl_ms, context.value("ttlMs", std::int64_t{0}));
  const std::int64_t expires = holder.locked_at_ms + ttl;
  const std::string wait = wait_hint(*command.app, command.waits_for_lock, context);
  error.context()["expiresAt"] = iso_time(expires);
  error.context()["hint"] = "to wait for it, " + wait +
                            "; inspect it with `migronaut lock`, release a dead holder's lock "
                            "with `migronaut unlock`";
  if (out.json_mode()) return;
  const std::int64_t left_s = (expires - wall_clock_ms()) / 1000;
  out.info(left_s >= 0 ? fmt::format("  The lease expires at {} ({} s from now) unless its holder "
                                     "renews it.",
                                     iso_time(expires), left_s)
                       : fmt::format("  The lease expired at {} ({} s ago): the next run takes it "
                                     "over.",
                                     iso_time(expires), -left_s));
  out.info(fmt::format("  To wait for it: {}.", wait));
  out.info(
      "  To inspect it: `migronaut lock`. To release a dead holder's lock: "
      "`migronaut unlock` (--force if it still renews).");
}

// A write slot no live holder accounts for (SQLite: a wait that gave up on it, or one with no
// holder on record): the operating system's lock on the file, which no `unlock` frees.
bool stalled_writer(const Error& error) {
  const nlohmann::json& context = error.context();
  return context.is_object() && context.value(kWriterBusyKey, false) &&
         (context.value("timedOut", false) || !context.contains("holder"));
}

// The holder named in a refusal, when it ran on another host: there its process cannot be seen,
// so a wait that gave up on it may have given up on a live migration.
std::optional<LockInfo> holder_elsewhere(const Error& error) {
  const nlohmann::json& context = error.context();
  if (!context.contains("holder")) return std::nullopt;
  LockInfo holder = context["holder"].get<LockInfo>();
  if (holder.host == host_name()) return std::nullopt;
  return holder;
}

void explain_stalled_writer(Output& out, Error& error) {
  if (const std::optional<LockInfo> holder = holder_elsewhere(error)) {
    const std::string where = fmt::format("pid {} on host {}", holder->pid, holder->host);
    error.context()["hint"] =
        "the holder (" + where +
        ") holds the database file's write transaction: if its migration is still at work, wait "
        "longer (raise --wait-timeout); if it is stopped or hung, end it there; `migronaut "
        "unlock` cannot free it";
    if (out.json_mode()) return;
    out.info(fmt::format("  The holder ({}) holds the file's write transaction. If its migration",
                         where));
    out.info("  is still at work, wait longer (raise --wait-timeout); if it is stopped or hung,");
    out.info(
        "  end it there. `migronaut unlock` cannot free it: the lock is the operating system's.");
    return;
  }
  error.context()["hint"] =
      "end whatever holds the database file's write transaction: a stopped run (kill -CONT, or "
      "kill it), another program (a sqlite3 shell: COMMIT or ROLLBACK); `migronaut unlock` "
      "cannot free it";
  if (out.json_mode()) return;
  out.info("  A stopped run or another program holds the file's write transaction: end it (a");
  out.info("  stopped run: kill -CONT, or kill it; a sqlite3 shell: COMMIT or ROLLBACK).");
  out.info("  `migronaut unlock` cannot free it: the lock is the operating system's.");
}

// `command`: the one that ran, if any (a flag CLI11 refused ran none).
int report(Output& out, Error error, const Command* command = nullptr) {
  if (error.code() == ErrorCode::kLockAlreadyHeld) {
    out.error(redact(error.what()));
    if (stalled_writer(error)) {
      explain_stalled_writer(out, error);
    } else if (command != nullptr) {
      explain_held_lock(out, error, *command);
    }
  } else {
    out.error(redact(error.what()));
  }
  if (out.json_mode()) {
    nlohmann::json body = {{"code", error.code_name()}, {"message", redact(error.what())}};
    if (!error.context().empty()) body["context"] = error.context();
    out.document({{"error", body}});
  }
  if (out.verbose() && !error.context().empty()) out.debug(error.context().dump());
  return exit_status(error.code());
}

const CLI::App* chosen_command(const CLI::App& app) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  return chosen.empty() ? nullptr : chosen.front();
}

// `migronaut help [command]`: the help of the tool or of one command, on stdout.
int print_help(CLI::App& app, const std::string& topic, bool json) {
  if (json) {
    Output(true, false, false, true).document(help_json(app, topic));
    return 0;
  }
  if (topic.empty()) {
    // Not app.help(): it shows the help of the selected subcommand, `help` itself.
    const std::string text =
        app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (topic == "exit-codes") {
    std::fputs(exit_codes_text().c_str(), stdout);
    return 0;
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == topic) {
      std::fputs(sub->help(app.get_name()).c_str(), stdout);
      return 0;
    }
  }
  throw ConfigInvalidError(explain_extras(app, nullptr, {topic}), {{"command", topic}});
}

// glibc's defaults suit a long-lived process: blocks of 128 KiB and more (a large folder's
// vectors as they grow) come from mmap and go back at once, and free memory at the heap's top is
// returned. A short command then touches fresh pages over and over, and the kernel zeroes each
// one. Keeping freed memory in the heap lets what one stage frees serve the next: with 10,000
// migrations, `status` takes a fifth fewer page faults. (One arena for every thread would take
// a few more away, but the threads reading files then queue on its lock.)
void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the most glibc takes
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  prefer_huge_pages();  // a large folder's heaps in 2 MiB pages (util/huge_pages.hpp)
  Signals signals;      // first: every thread started later inherits the blocked signals

  GlobalFlags flags;
  CLI::App app{"migronaut — versioned database migrations, applied exactly once", "migronaut"};
  app.set_version_flag("-V,--version", MIGRONAUT_VERSION);
  app.require_subcommand(0, 1);
  app.fallthrough();  // global flags may come after the command name too
  app.footer(kFooter);
  add_global_flags(app, flags);

  std::vector<Command> commands;
  const std::optional<std::string_view> named = named_command(app, argc, argv);
  const auto is_named = [&](const auto& entry) { return named == entry.first; };
  const bool build_all = std::none_of(std::begin(kCommands), std::end(kCommands), is_named);
  for (const auto& entry : kCommands) {
    if (build_all || is_named(entry)) commands.push_back(entry.second(app));
  }
  auto* help = app.add_subcommand("help", "Show the help of migronaut or of one command");
  std::string help_topic;
  help->add_option("command", help_topic, "The command")->type_name("COMMAND");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    if (!asks_for_json(argc, argv)) return app.exit(e);
    const CLI::App* command = chosen_command(app);
    return print_help(app, command != nullptr ? command->get_name() : "", true);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    if (!asks_for_json(argc, argv)) return app.exit(e);
    Output(true, false, false, true).document({{"version", MIGRONAUT_VERSION}});
    return 0;
  } catch (const CLI::ExtrasError& e) {
    Output out(asks_for_json(argc, argv), flags.quiet, flags.verbose, flags.no_color);
    return report(out, ConfigInvalidError(explain_extras(app, chosen_command(app), app.remaining()),
                                          {{"arguments", app.remaining()}}));
  } catch (const CLI::ParseError& e) {
    Output out(asks_for_json(argc, argv), flags.quiet, flags.verbose, flags.no_color);
    return report(out, ConfigInvalidError(e.what()));
  }

  Output out(flags.json, flags.quiet, flags.verbose, flags.no_color);
  const Signals::OutputScope signal_output(signals, out);
  Context context(flags, out, signals);
  const Command* running = nullptr;
  try {
    if (help->parsed()) return print_help(app, help_topic, out.json_mode());
    for (const Command& command : commands) {
      if (!command.app->parsed()) continue;
      running = &command;
      signals.set_graceful(command.graceful_stop);
      const int status = command.run(context);
      if (status == 0 && context.stop().stop_requested()) {
        // The stop came during the last of the work, or while waiting for a peer that then left
        // nothing pending: nothing was left for it to stop.
        out.warn("Stop requested, but nothing was left to stop: everything finished");
      }
      return status;
    }
    return print_help(app, "", out.json_mode());  // no command: the usage
  } catch (const Error& error) {
    out.clear_live();
    return report(out, error, running);
  } catch (const std::exception& error) {
    out.clear_live();
    return report(out, Error(ErrorCode::kUnclassified, error.what()), running);
  }
}

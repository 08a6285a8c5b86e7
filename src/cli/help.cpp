#include "cli/help.hpp"

#include <algorithm>
#include <numeric>

#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "util/text.hpp"

namespace migronaut::cli {
namespace {

constexpr std::string_view kGlobalFlags =
    "Global flags (before or after the command):\n"
    "  --uri URI          database: sqlite:path, postgres://…, mongodb://…\n"
    "  --db NAME          database name (MongoDB)\n"
    "  --dir DIR          migrations folder\n"
    "  --config FILE      config file (default ./migronaut.config.json)\n"
    "  --env-file FILE    .env file to load (default ./.env); --no-env loads none\n"
    "  --json             one JSON document on stdout (docs/JSON.md)\n"
    "  --verbose          connection target, lock timings and statements on stderr\n"
    "  --quiet            no progress lines, only errors (reports still print)\n"
    "  --no-color         no colors\n"
    "Durations take a unit: 500ms, 30s, 2m (a bare number is milliseconds).";

struct ExitCode {
  int status;
  std::string_view when;
};

constexpr ExitCode kExitCodes[] = {
    {0, "success, or nothing to do"},
    {1, "an unexpected error"},
    {2,
     "`status --check` found pending migrations that `up` would run (where `up` would refuse, "
     "it exits with that refusal's code); `wait --timeout` ran out"},
    {3,
     "another run holds the lock (--no-wait, or its holder stalled past --wait-timeout); "
     "`unlock` of a lock renewed within its TTL without --force"},
    {4,
     "an applied file changed since it was applied, with `strict`; a file at the version of an "
     "applied one whose file is gone, with other content (`repair` takes it as renamed)"},
    {5, "the database cannot be reached, or the connection dropped"},
    {6,
     "a bad flag, config file or MIGRONAUT_* value; an unknown command; --json without --yes; "
     "`init --uri` with a password; a PostgreSQL search_path of no schema that exists"},
    {7, "a migration failed (recorded as failed, rolled back where transactional)"},
    {8, "an unknown file or --to target, or the file of an applied migration is gone"},
    {9, "reverting something that is not applied"},
    {10, "the lock was lost mid-run"},
    {11, "stopped by a signal after the migration in flight (at once with none), or declined"},
    {12, "a hook threw (library)"},
    {13, "no down section, or a baselined record"},
    {14, "a migration exceeded timeoutMs"},
    {15, "a transactional MongoDB migration on a standalone server"},
    {16, "`init` without --force over an existing config file"},
    {17, "`import` into a changelog that has records, without --force"},
    {18, "`create` would overwrite a file"},
    {19,
     "a migration name that follows no naming, or a repeated version; a changelog record name "
     "that escapes its folder; a mixed folder"},
    {20, "a malformed migration, or `up` or `baseline` of one whose up section is empty"},
    {21, "everything applied, but the lock could not be released"},
    {22, "`audit` found a failing check"},
    {23, "late arrivals with onOutOfOrder: error"},
    {24,
     "`import` of a dirty golang-migrate version or a failed Flyway row; `up` over another "
     "tool's history never imported, or over what it applied since its import; a killed run's "
     "statement still running; `up`, `baseline`, `wait` or `status --check` over a half-reverted "
     "migration"},
    {35, "the migrations folder is missing, not a folder, or unreadable"},
    {36, "an entry named like a migration cannot be read (directory, bad symlink, FIFO)"},
    {37,
     "a changelog record migronaut cannot read (unknown status, a number out of range); a bare "
     "`down` over an applied record without a batch"},
    {38, "a migronaut table's name is taken by something else (a view, another table)"},
    {39, "the database refuses this user (cannot create the tables, read-only file)"},
    {40, "the lock row cannot be trusted; `migronaut unlock` clears it"},
    {45, "`lint` or `up --lint` found an error"},
    {46, "a PostgreSQL migration could not get its locks within lockRetries + 1 tries"},
};

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// `text` broken into lines of at most `width` columns, at spaces.
std::string wrapped(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t line_start = 0;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    if (out.size() > line_start && out.size() - line_start + 1 + word.size() > width) {
      out += '\n';
      line_start = out.size();
    } else if (out.size() > line_start) {
      out += ' ';
    }
    out += word;
    text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
  }
  return out;
}

}  // namespace

void document(CLI::App* sub, std::string_view example, std::string_view exit_codes) {
  sub->footer(fmt::format("Example:\n  {}\n\n{}\n\n{}", example,
                          wrapped("Exit codes: " + std::string(exit_codes), 96), kGlobalFlags));
}

std::string exit_codes_text() {
  std::string text = "Exit codes:\n";
  for (const ExitCode& code : kExitCodes) {
    const std::string_view name =
        code.status == 0 ? "" : error_code_name(static_cast<ErrorCode>(code.status));
    text += fmt::format("  {:>3}  {:<26}  {}\n", code.status, name, code.when);
  }
  return text +
         "  130 / 143  a second SIGINT / SIGTERM; the first, to a command that writes nothing "
         "(status, list, lock...)\n";
}

nlohmann::json help_json(const CLI::App& app, const std::string& topic) {
  using nlohmann::json;
  if (topic == "exit-codes") {
    json codes = json::array();
    for (const ExitCode& code : kExitCodes) {
      codes.push_back({{"status", code.status},
                       {"code", code.status == 0 ? "" : error_code_name(ErrorCode(code.status))},
                       {"when", code.when}});
    }
    return {{"exitCodes", codes}};
  }
  const auto all = [](const CLI::App*) { return true; };
  if (topic.empty()) {
    json commands = json::array();
    for (const CLI::App* sub : app.get_subcommands(all)) {
      commands.push_back({{"name", sub->get_name()}, {"description", sub->get_description()}});
    }
    return {{"commands", commands}};
  }
  for (const CLI::App* sub : app.get_subcommands(all)) {
    if (sub->get_name() != topic) continue;
    json options = json::array();
    for (const CLI::Option* option : sub->get_options()) {
      options.push_back(
          {{"name", option->get_name(false, true)},
           {"description", option->get_description()},
           {"positional", option->get_lnames().empty() && option->get_snames().empty()}});
    }
    return {{"name", sub->get_name()},
            {"description", sub->get_description()},
            {"options", options},
            {"help", sub->help(app.get_name())}};
  }
  throw ConfigInvalidError(explain_extras(app, nullptr, {topic}), {{"command", topic}});
}

std::string closest(std::string_view typed, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 3;
  for (const std::string& candidate : candidates) {
    const std::size_t distance =
        typed.size() >= 2 && candidate.starts_with(typed) ? 1 : edit_distance(typed, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string suggestion(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string near = closest(typed, candidates);
  return near.empty() ? "" : fmt::format(" (did you mean `{}`?)", near);
}

std::string explain_extras(const CLI::App& app, const CLI::App* command,
                           const std::vector<std::string>& extras) {
  std::vector<std::string> flags = flag_names(app);
  const std::vector<std::string> own =
      command != nullptr ? flag_names(*command) : std::vector<std::string>();
  flags.insert(flags.end(), own.begin(), own.end());
  std::string message;
  for (const std::string& extra : extras) {
    if (!message.empty()) message += "; ";
    const std::string flag = extra.substr(0, extra.find('='));
    if (std::find(own.begin(), own.end(), flag) != own.end()) {
      // `migronaut --no-wait up`: the command's flag, before the command.
      message += fmt::format("`{}` is a flag of `{}`: put it after the command", flag,
                             command->get_name());
    } else if (flag.starts_with("--dry") && command != nullptr &&
               (command->get_name() == "up" || command->get_name() == "down")) {
      // Flyway-style `up --dry-run` (or `--dry`, `--dryrun`): the dry run is a command of its own.
      message += fmt::format("unknown flag `{}` (did you mean `migronaut dry-run {}`?)", flag,
                             command->get_name());
    } else if (extra.starts_with("-")) {
      message += fmt::format("unknown flag `{}`{}", flag, suggestion(flag, flags));
    } else if (command == nullptr) {
      message +=
          fmt::format("unknown command `{}`{}", extra, suggestion(extra, command_names(app)));
    } else {
      message += fmt::format("unexpected argument `{}` for `{}`", extra, command->get_name());
    }
  }
  return message + " — see `migronaut help" +
         (command != nullptr ? " " + command->get_name() : std::string()) + "`";
}

}  // namespace migronaut::cli

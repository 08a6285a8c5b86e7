#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <iostream>
#include <optional>
#include <stop_token>

#include "cli/cli.hpp"
#include "cli/help.hpp"
#include "cli/output.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "util/redact.hpp"

namespace migronaut::cli {

namespace {

// MIGRONAUT_* variables nothing reads: a typo there (MIGRONAUT_LOCK_WAIT_TIMEOUT for
// MIGRONAUT_LOCK_WAIT_TIMEOUT_MS) would leave its setting at the default without a word.
void warn_about_unknown_variables(Output& out,
                                  const std::map<std::string, std::string>& environment) {
  std::vector<std::string> known = {std::string(kForceColorVariable),
                                    std::string(kNoColorVariable)};
  for (std::string_view name : config_variables()) known.emplace_back(name);
  for (const auto& [name, value] : environment) {
    if (!name.starts_with("MIGRONAUT_") || std::ranges::find(known, name) != known.end()) continue;
    out.warn(fmt::format("{} is not a migronaut variable: it is ignored{}", name,
                         suggestion(name, known)));
  }
}

}  // namespace

Config Context::config(const nlohmann::json& extra, bool require_uri) {
  ConfigSources sources;
  if (flags_.config_file) sources.config_file = *flags_.config_file;
  if (flags_.env_file) sources.env_file = *flags_.env_file;
  sources.load_env_file = !flags_.no_env;
  sources.environment = process_environment();
  sources.caller_variables = {std::string(kForceColorVariable), std::string(kNoColorVariable)};
  if (!variables_checked_) warn_about_unknown_variables(output_, sources.environment);
  variables_checked_ = true;
  sources.require_uri = require_uri;
  sources.uri_flag = "--uri";
  nlohmann::json layer = extra;
  if (flags_.uri) layer["uri"] = *flags_.uri;
  if (flags_.db) layer["dbName"] = *flags_.db;
  if (flags_.dir) layer["migrationsDir"] = *flags_.dir;
  sources.flags = std::move(layer);
  Config config = load_config(sources);
  if (require_uri) {
    output_.debug(fmt::format("connecting to {}{}; migrations in {}", redact_uri(config.uri),
                              config.db_name.empty() ? "" : " (database " + config.db_name + ")",
                              config.migrations_dir.string()));
  }
  return config;
}

namespace {

// Tells `signals` what is in flight as a run's events go by: a migration from its start to its
// end, or a redo from its run's start to its end. Whatever ended the run, nothing is in flight
// after run:end.
EventListener track_in_flight(Signals& signals, StopsAfter stops_after) {
  const bool redo = stops_after == StopsAfter::kRedo;
  return [&signals, redo](const Event& event) {
    if (event.name == (redo ? "run:start" : "migration:start")) {
      signals.set_in_flight(redo ? "the redo in flight (its revert and re-apply)"
                                 : "the migration in flight");
    } else if (event.name == "run:end" ||
               (!redo && (event.name == "migration:success" || event.name == "migration:error"))) {
      signals.set_in_flight("");
    }
  };
}

// Closes its descriptor when it goes.
class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd() {
    if (fd_ >= 0) close(fd_);
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// A line of stdin (without its newline); nullopt at the end of stdin, or once `stop` is
// requested. Read with read(2), not std::cin: a blocked std::getline cannot be woken, and stdin
// may be a pipe that stays open.
std::optional<std::string> read_answer(std::stop_token stop) {
  const OwnedFd woken(eventfd(0, EFD_CLOEXEC));
  if (woken.get() < 0) return std::nullopt;
  const std::stop_callback wake(stop, [&woken] {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = write(woken.get(), &one, sizeof one);
  });
  std::string line;
  for (;;) {
    pollfd watched[] = {{STDIN_FILENO, POLLIN, 0}, {woken.get(), POLLIN, 0}};
    if (poll(watched, 2, -1) < 0 && errno != EINTR) return std::nullopt;
    if (watched[1].revents != 0) return std::nullopt;
    if (watched[0].revents == 0) continue;
    char c = 0;
    const ssize_t got = read(STDIN_FILENO, &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return line.empty() ? std::nullopt : std::optional(line);
    if (c == '\n') return line;
    line += c;
  }
}

}  // namespace

MigratorOptions Context::migrator_options(StopsAfter stops_after) {
  MigratorOptions options;
  options.logger = output_.logger();
  options.listeners.push_back(track_in_flight(signals_, stops_after));
  return options;
}

bool confirm(Context& context, const std::string& question, bool yes) {
  if (yes) return true;
  if (context.out().json_mode()) {
    throw ConfigInvalidError("--json is non-interactive: confirm with --yes");
  }
  const Signals::PromptScope prompt(context.signals());
  std::cerr << question << " [y/N] " << std::flush;
  const std::optional<std::string> answer = read_answer(context.stop());
  if (!answer && !context.stop().stop_requested() && isatty(STDIN_FILENO) == 0) {
    // No one to ask (a CI job's stdin is /dev/null): a declined prompt would hide why. At a
    // terminal, Ctrl-D is a person declining.
    std::cerr << '\n';
    throw ConfigInvalidError("No answer: stdin ended before a line came; confirm with --yes");
  }
  return answer == "y" || answer == "Y" || answer == "yes";
}

}  // namespace migronaut::cli

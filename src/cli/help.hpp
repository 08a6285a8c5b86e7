// What `migronaut help` and every command's --help show beyond CLI11's option list: an example,
// the command's exit codes and the global flags; and the "did you mean" of a typo.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace migronaut::cli {

// Sets `sub`'s footer: its example, its exit codes ("0 done, 3 lock held, …") and the global
// flags, which CLI11 does not list under a subcommand.
void document(CLI::App* sub, std::string_view example, std::string_view exit_codes);

// `migronaut help exit-codes`: every exit status, its error code and when it happens.
std::string exit_codes_text();

// `migronaut --json help [topic]`: the same as one JSON document — the commands, one command
// (its description, flags and whole help text) or every exit status with its error code.
nlohmann::json help_json(const CLI::App& app, const std::string& topic);

// The closest of `candidates` to `typed` (edit distance at most 2, or a prefix), or "".
std::string closest(std::string_view typed, const std::vector<std::string>& candidates);

// " (did you mean `status`?)": closest() of `candidates` to `typed`, or "" when none is near.
std::string suggestion(std::string_view typed, const std::vector<std::string>& candidates);

// "unknown command `stauts` (did you mean `status`?)" for CLI11's ExtrasError: suggestions
// among the commands, or the flags of `command` and the global flags.
std::string explain_extras(const CLI::App& app, const CLI::App* command,
                           const std::vector<std::string>& extras);

}  // namespace migronaut::cli

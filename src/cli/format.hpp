// Small renderers shared by the commands' human output.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "migronaut/lock.hpp"

namespace migronaut::cli {

// "2026-12-02 11:04:55Z" (UTC).
std::string format_time(std::int64_t ms_since_epoch);
// "host pid 123 (run 1a2b3c4d, user alice) since …, on 0003-x.sql (2/5)".
std::string describe_holder(const LockInfo& holder);
// A number given on the command line, for the config's flag layer: digits become a number,
// anything else stays a string, so validation reports it (NaN, 1e3, abc) instead of coercing.
nlohmann::json flag_number(const std::string& text);
// A count flag such as --steps: absent when empty, else a positive integer or ConfigInvalidError.
std::optional<std::int64_t> positive_flag(const std::string& text, const char* flag);

}  // namespace migronaut::cli

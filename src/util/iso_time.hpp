// The one spelling of a time in migronaut's JSON: ISO-8601 UTC with milliseconds,
// "2026-12-02T11:04:55.123Z", whatever clock or backend the time came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace migronaut {

std::string iso_time(std::int64_t ms_since_epoch);
// Reads what iso_time wrote (the fraction optional); nullopt for anything else.
std::optional<std::int64_t> parse_iso_time(std::string_view text);

}  // namespace migronaut

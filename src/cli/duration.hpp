// Durations on the command line: "500ms", "30s", "2m", "1h", or a bare number of milliseconds.
#pragma once

#include <cstdint>
#include <string_view>

namespace migronaut::cli {

// Milliseconds, positive and within 32 bits; otherwise ConfigInvalidError naming `flag` (the
// flag as the user typed it) and the value.
std::int64_t parse_duration_ms(std::string_view text, std::string_view flag);

}  // namespace migronaut::cli

// Migration versions compared as numbers: "2" before "10", "1.2" before "1.10", "1" equal to
// "1.0" (Flyway's rule), whatever the zero padding.
#pragma once

#include <string_view>

namespace migronaut {

// <0, 0 or >0 as `a` sorts before, with or after `b`. Both are dot-separated runs of digits
// (an empty version sorts after every other).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace migronaut

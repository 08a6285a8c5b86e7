#include "cli/duration.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <utility>

#include "fmt/format.h"
#include "migronaut/errors.hpp"

namespace migronaut::cli {
namespace {

constexpr std::array<std::pair<std::string_view, std::int64_t>, 5> kUnits = {
    {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"", 1}}};

}  // namespace

std::int64_t parse_duration_ms(std::string_view text, std::string_view flag) {
  std::int64_t number = 0;
  const char* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(text.data(), end, number);
  const std::string_view unit(rest, static_cast<std::size_t>(end - rest));
  for (const auto& [name, scale] : kUnits) {
    if (error != std::errc() || rest == text.data() || unit != name || number <= 0) continue;
    if (number > std::numeric_limits<std::int32_t>::max() / scale) break;
    return number * scale;
  }
  throw ConfigInvalidError(
      fmt::format("{} takes a positive duration such as 500ms, 30s or 2m, not \"{}\"", flag, text),
      {{"option", flag}, {"value", text}});
}

}  // namespace migronaut::cli

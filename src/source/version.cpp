#include "source/version.hpp"

#include <compare>

namespace migronaut {
namespace {

// The next dot-separated part of `version` (consumed), without its leading zeros.
std::string_view next_part(std::string_view& version) {
  const std::size_t dot = version.find('.');
  std::string_view part = version.substr(0, dot);
  version.remove_prefix(dot == std::string_view::npos ? version.size() : dot + 1);
  while (part.size() > 1 && part.front() == '0') part.remove_prefix(1);
  return part == "0" ? std::string_view() : part;
}

// Two runs of digits without leading zeros: the longer is the larger.
int compare_numbers(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b);
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return static_cast<int>(a.empty()) - static_cast<int>(b.empty());
  while (!a.empty() || !b.empty()) {
    const int order = compare_numbers(next_part(a), next_part(b));
    if (order != 0) return order < 0 ? -1 : 1;
  }
  return 0;
}

}  // namespace migronaut

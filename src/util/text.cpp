#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>
#include <vector>

namespace migronaut {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string lower_case(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
        hex_digit(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool is_identifier(std::string_view name) {
  const auto letter = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  const auto word = [&](char c) { return letter(c) || (c >= '0' && c <= '9'); };
  return !name.empty() && name.size() <= 63 && letter(name[0]) &&
         std::all_of(name.begin(), name.end(), word);
}

bool is_qualified_identifier(std::string_view name) {
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) return is_identifier(name);
  return is_identifier(name.substr(0, dot)) && is_identifier(name.substr(dot + 1));
}

std::optional<std::string_view> near_miss(std::string_view name,
                                          const std::vector<std::string_view>& known) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 3;
  for (std::string_view candidate : known) {
    const std::size_t distance = edit_distance(lower_case(name), lower_case(candidate));
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string first_names(const std::vector<std::string_view>& names) {
  constexpr std::size_t kShown = 5;
  std::string listed;
  for (std::size_t i = 0; i < std::min(kShown, names.size()); ++i) {
    listed += (i == 0 ? "" : ", ") + std::string(names[i]);
  }
  if (names.size() > kShown) listed += " and " + std::to_string(names.size() - kShown) + " more";
  return listed;
}

}  // namespace migronaut

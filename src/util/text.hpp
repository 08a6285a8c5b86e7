// Tiny text helpers shared by the parsers.
#pragma once

#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace migronaut {

// `text` without leading and trailing whitespace.
inline std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// `text` with its ASCII letters in lower case.
std::string lower_case(std::string_view text);

// [A-Za-z_][A-Za-z0-9_]{0,62}: a name every backend takes unquoted (PostgreSQL's 63-byte names).
bool is_identifier(std::string_view name);

// An identifier, or two joined by a dot (`schema.table`): another tool's history table.
bool is_qualified_identifier(std::string_view name);

// `text` with each "%XX" turned into its byte, as URIs carry them; anything else as it is.
std::string percent_decoded(std::string_view text);

// The number of single-character edits between `a` and `b` (Levenshtein): how near a typo is.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The first five of `names` joined by ", ", then how many more ("a.sql, b.sql and 3 more"): a
// message about thousands of files stays one short line.
std::string first_names(const std::vector<std::string_view>& names);

// The one of `known` that `name` is most likely a misspelling of: at most two edits away, case
// aside.
std::optional<std::string_view> near_miss(std::string_view name,
                                          const std::vector<std::string_view>& known);

}  // namespace migronaut

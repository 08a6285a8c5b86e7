#include "source/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>
#include <set>

#include "migronaut/errors.hpp"
#include "source/naming.hpp"

namespace migronaut {
namespace {

constexpr std::size_t kMaxNameBytes = 255;
constexpr std::size_t kMaxSlugBytes = 100;

// The name as a JSON string literal with every non-ASCII or control byte escaped, so a hostile
// name read from a database prints as harmless text.
std::string printable(std::string_view name) {
  return nlohmann::json(std::string(name))
      .dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

[[noreturn]] void reject(std::string_view what, std::string_view name, std::string_view reason) {
  const std::string quoted = printable(name);
  // Parsed back, the escaped literal is the name as valid UTF-8, safe in a JSON payload.
  throw MigrationInvalidNameError(fmt::format("Invalid {} {}: {}", what, quoted, reason),
                                  {{"name", nlohmann::json::parse(quoted)}, {"reason", reason}});
}

constexpr std::string_view kNoNamingProblem =
    "the name follows no known naming (<version>-<slug>, <version>_<name>, "
    "V<version>__<description>, R__<description>)";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_slug_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
}

// Why `name` is not a bare file name that stays inside its folder, or "" when it is.
std::string_view bare_name_problem(std::string_view name) {
  if (name.empty()) return "the name is empty";
  if (name.size() > kMaxNameBytes) return "the name is longer than 255 bytes";
  if (name.find_first_of(std::string_view("/\\\0", 3)) != std::string_view::npos) {
    return "a migration name must be a bare file name, without path separators";
  }
  if (name == "." || name == ".." || name.front() == '.') return "the name starts with '.'";
  return {};
}

// Why `name` is not a valid migronaut name, or an empty string when it is.
std::string_view name_problem(std::string_view name) {
  if (const std::string_view problem = bare_name_problem(name); !problem.empty()) return problem;
  const std::size_t dash = name.find('-');
  if (dash == 0 || dash == std::string_view::npos ||
      !std::all_of(name.begin(), name.begin() + dash, is_digit)) {
    return "the name must start with a numeric version followed by '-'";
  }
  if (dash + 1 == name.size() || !std::all_of(name.begin() + dash + 1, name.end(), is_slug_char)) {
    return "after the version, only letters, digits, '.', '_' and '-' are allowed";
  }
  return {};
}

std::string utc_timestamp(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}{:02}{:02}{:02}{:02}{:02}", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
}

// The highest numeric version among `names` that have one; 0 when none do.
std::uint64_t highest_version(const std::vector<std::string>& names) {
  std::uint64_t highest = 0;
  for (const std::string& name : names) {
    if (!name_problem(name).empty()) continue;
    const std::string version = version_of(name);
    std::uint64_t number = 0;
    const auto result = std::from_chars(version.data(), version.data() + version.size(), number);
    if (result.ec == std::errc()) highest = std::max(highest, number);
  }
  return highest;
}

std::string timestamp_name(const std::string& suffix, const std::vector<std::string>& existing,
                           std::chrono::system_clock::time_point now) {
  std::set<std::string> taken;
  for (const std::string& name : existing) {
    if (name_problem(name).empty()) taken.insert(version_of(name));
  }
  while (true) {
    std::string name = utc_timestamp(now) + suffix;
    // An identical name is left for the caller to refuse as a file that exists.
    const bool same_file = std::find(existing.begin(), existing.end(), name) != existing.end();
    if (same_file || !taken.contains(version_of(name))) return name;
    now += std::chrono::seconds(1);
  }
}

}  // namespace

void validate_migration_name(std::string_view name) {
  if (const std::string_view problem = name_problem(name); !problem.empty()) {
    reject("migration name", name, problem);
  }
}

FileName classify_file_name(std::string_view name, std::string_view extension) {
  if (const std::string_view problem = bare_name_problem(name); !problem.empty()) {
    reject("migration name", name, problem);
  }
  if (std::optional<FileName> naming = parse_file_name(name, extension)) return *naming;
  reject("migration name", name, kNoNamingProblem);
}

void validate_record_name(std::string_view name) {
  std::string_view problem = bare_name_problem(name);
  if (problem.empty() && !parse_record_name(name)) problem = kNoNamingProblem;
  if (!problem.empty()) reject("migration name in the changelog", name, problem);
}

std::string version_of(std::string_view name) {
  return std::string(name.substr(0, name.find('-')));
}

std::string slugify(std::string_view title) {
  std::string slug;
  for (const char c : title) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 && static_cast<unsigned char>(c) < 0x80) {
      slug.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!slug.empty() && slug.back() != '-') {
      slug.push_back('-');
    }
    if (slug.size() >= kMaxSlugBytes) break;
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.empty()) reject("migration title", title, "it has no ASCII letters or digits");
  return slug;
}

std::string new_migration_name(std::string_view title, bool sequential,
                               const std::vector<std::string>& existing,
                               std::chrono::system_clock::time_point now,
                               std::string_view extension) {
  const std::string suffix = "-" + slugify(title) + std::string(extension);
  if (sequential) return fmt::format("{:04}{}", highest_version(existing) + 1, suffix);
  return timestamp_name(suffix, existing, now);
}

}  // namespace migronaut

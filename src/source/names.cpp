#include "source/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>
#include <functional>
#include <set>

#include "migronaut/errors.hpp"
#include "source/naming.hpp"

namespace migronaut {
namespace {

constexpr std::size_t kMaxNameBytes = 255;
constexpr std::size_t kMaxSlugBytes = 100;

// Characters a terminal may act on or show as nothing: C1 controls (U+0080–U+009F; U+009B is an
// 8-bit CSI), zero-width and directional marks, the bidirectional overrides and isolates (which
// show a name's characters in another order), line and paragraph separators, the BOM.
bool is_invisible_or_control(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x061C || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) || c == 0xFEFF;
}

// The name as a JSON string literal, so a hostile name read from a database prints as harmless
// text: control and invisible characters escaped, bytes that are not UTF-8 replaced (U+FFFD).
// Other characters print as themselves: "café", not "caf\u00e9".
std::string printable(std::string_view name) {
  const std::string literal = nlohmann::json(std::string(name))
                                  .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  for (std::size_t i = 0; i < literal.size();) {
    const auto lead = static_cast<unsigned char>(literal[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t c = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
      c = (c << 6) | (static_cast<unsigned char>(literal[i + k]) & 0x3F);
    }
    if (is_invisible_or_control(c)) {
      out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(c));
    } else {
      out.append(literal, i, length);
    }
    i += length;
  }
  return out;
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

constexpr std::string_view kSlugProblem =
    "after the version, only ASCII letters, digits, '.', '_' and '-' are allowed";

constexpr std::string_view kFlywayCallbackProblem =
    "it is a Flyway callback (a script Flyway runs around its own commands), which migronaut "
    "does not run: move it out of the migrations folder, and run its SQL as a step of its own "
    "before or after `migronaut up` (or, embedding the C++ library, from a hook: docs/API.md, "
    "Hooks)";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// Flyway names a callback after its event, optionally with "__<description>": "afterMigrate.sql",
// "beforeEachMigrate__audit.sql", "createSchema.sql". Every event but createSchema is "before" or
// "after" and a capitalised word.
bool is_flyway_callback(std::string_view name) {
  std::string_view event = name.substr(0, std::min(name.find("__"), name.find('.')));
  if (event == "createSchema") return true;
  for (const std::string_view when : {"before", "after"}) {
    if (event.starts_with(when) && event.size() > when.size() && is_upper(event[when.size()])) {
      event.remove_prefix(when.size());
      return std::all_of(event.begin(), event.end(),
                         [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
    }
  }
  return false;
}

// Why a file name that parses as no naming fails: a Flyway callback's, or its characters when it
// starts as one does (a version, then '-' or '_').
std::string_view unparsed_name_problem(std::string_view name) {
  if (is_flyway_callback(name)) return kFlywayCallbackProblem;
  const std::size_t version_end = name.find_first_not_of("0123456789");
  const bool versioned = version_end > 0 && version_end != std::string_view::npos &&
                         (name[version_end] == '-' || name[version_end] == '_');
  return versioned ? kSlugProblem : kNoNamingProblem;
}

bool is_slug_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
}

// Why `name` is not a bare file name that stays inside its folder, or "" when it is.
std::string_view bare_name_problem(std::string_view name) {
  if (name.empty()) return "the name is empty";
  if (name.size() > kMaxNameBytes) return "the name is longer than 255 bytes";
  // A loop, not find_first_of: that calls memchr on the separator set for every character.
  if (std::any_of(name.begin(), name.end(),
                  [](char c) { return c == '/' || c == '\\' || c == '\0'; })) {
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
    return kSlugProblem;
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

// The versions the names among `existing` give their migrations (repeatables have none).
std::vector<std::string> versions_in(const std::vector<std::string>& existing,
                                     std::string_view extension) {
  std::vector<std::string> versions;
  for (const std::string& name : existing) {
    const std::optional<FileName> parsed = parse_file_name(name, extension);
    if (parsed && !parsed->version.empty()) versions.push_back(parsed->version);
  }
  return versions;
}

// One past the highest of `versions` (runs of digits), zero-padded to the width of the highest
// and to at least `min_width`.
std::string next_number(const std::vector<std::string>& versions, std::size_t min_width) {
  std::uint64_t highest = 0;
  std::size_t width = min_width;
  for (const std::string& version : versions) {
    std::uint64_t number = 0;
    const auto result = std::from_chars(version.data(), version.data() + version.size(), number);
    if (result.ec != std::errc() || number < highest) continue;
    highest = number;
    width = std::max(min_width, version.size());
  }
  return fmt::format("{:0{}}", highest + 1, width);
}

// Flyway's major versions: "3" of "3.1".
std::vector<std::string> majors(const std::vector<std::string>& versions) {
  std::vector<std::string> out;
  for (const std::string& version : versions) out.push_back(version.substr(0, version.find('.')));
  return out;
}

// Whether another tool's folder numbers its migrations 1, 2, 3 rather than by timestamps
// (YYYYMMDDHHMMSS, 14 digits).
bool numbered_folder(const std::vector<std::string>& versions) {
  return !versions.empty() && std::none_of(versions.begin(), versions.end(),
                                           [](auto& version) { return version.size() >= 14; });
}

// `now` as a version, one second later while another migration has it. A version whose file
// name (`name_of`) is already among `existing` is kept, for the caller to refuse as a file that
// exists.
std::string timestamp_version(const std::vector<std::string>& versions,
                              const std::vector<std::string>& existing,
                              std::chrono::system_clock::time_point now,
                              const std::function<std::string(const std::string&)>& name_of) {
  const std::set<std::string> taken(versions.begin(), versions.end());
  while (true) {
    std::string version = utc_timestamp(now);
    const bool same_file =
        std::find(existing.begin(), existing.end(), name_of(version)) != existing.end();
    if (same_file || !taken.contains(version)) return version;
    now += std::chrono::seconds(1);
  }
}

// The file names of a migration `version` titled `slug` in `naming`: one, or a golang-migrate
// pair. Other tools' names join words with '_', as their own `new`/`create` commands do.
std::vector<std::string> file_names(Naming naming, const std::string& version, std::string slug,
                                    std::string_view extension) {
  const std::string ext(extension);
  if (naming == Naming::kMigronaut) return {version + "-" + slug + ext};
  std::replace(slug.begin(), slug.end(), '-', '_');
  if (naming == Naming::kFlyway) return {"V" + version + "__" + slug + ext};
  const std::string stem = version + "_" + slug;
  if (naming == Naming::kGolangMigrate) return {stem + ".up" + ext, stem + ".down" + ext};
  return {stem + ext};
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
  reject("migration name", name, unparsed_name_problem(name));
}

void validate_record_name(std::string_view name) {
  std::string_view problem = bare_name_problem(name);
  if (problem.empty() && !parse_record_name(name)) problem = kNoNamingProblem;
  if (!problem.empty()) reject("migration name in the changelog", name, problem);
}

bool is_valid_record_name(std::string_view name) {
  return bare_name_problem(name).empty() && parse_record_name(name).has_value();
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

std::vector<std::string> new_migration_files(std::string_view title, Naming naming, bool sequential,
                                             const std::vector<std::string>& existing,
                                             std::chrono::system_clock::time_point now,
                                             std::string_view extension) {
  const std::string slug = slugify(title);
  const std::vector<std::string> versions = versions_in(existing, extension);
  const auto files_for = [&](const std::string& version) {
    return file_names(naming, version, slug, extension);
  };
  if (naming == Naming::kFlyway) return files_for(next_number(majors(versions), 1));
  if (naming == Naming::kMigronaut ? sequential : numbered_folder(versions)) {
    return files_for(next_number(versions, naming == Naming::kMigronaut ? 4 : 1));
  }
  return files_for(timestamp_version(versions, existing, now,
                                     [&](const std::string& v) { return files_for(v).front(); }));
}

}  // namespace migronaut

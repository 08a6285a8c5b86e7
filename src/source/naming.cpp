#include "source/naming.hpp"

#include <algorithm>
#include <cctype>

namespace migronaut {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_title_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
}

bool is_title(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_title_char);
}

// "<digits><separator><title>", as migronaut (-) and dbmate or golang-migrate (_) name files.
std::optional<FileName> digits_then(std::string_view stem, char separator, Naming naming) {
  const std::size_t end = stem.find(separator);
  if (end == 0 || end == std::string_view::npos) return std::nullopt;
  const std::string_view digits = stem.substr(0, end);
  if (!std::all_of(digits.begin(), digits.end(), is_digit)) return std::nullopt;
  if (!is_title(stem.substr(end + 1))) return std::nullopt;
  return FileName{naming, FileRole::kWhole, std::string(digits), std::string(stem.substr(end + 1))};
}

// Flyway's version: digits separated by single '.' or '_' ("1", "1.2", "2_1"), read as dots.
std::optional<std::string> flyway_version(std::string_view text) {
  if (text.empty() || !is_digit(text.front()) || !is_digit(text.back())) return std::nullopt;
  std::string version;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_digit(c)) {
      version.push_back(c);
    } else if ((c == '.' || c == '_') && is_digit(text[i + 1])) {
      version.push_back('.');
    } else {
      return std::nullopt;
    }
  }
  return version;
}

// V<version>__<title>, U<version>__<title>, R__<title>.
std::optional<FileName> flyway(std::string_view stem) {
  if (stem.size() < 4) return std::nullopt;
  const char prefix = stem.front();
  const std::size_t separator = stem.find("__");
  if (separator == std::string_view::npos || !is_title(stem.substr(separator + 2))) {
    return std::nullopt;
  }
  const std::string title(stem.substr(separator + 2));
  if (prefix == 'R') {
    if (separator != 1) return std::nullopt;
    return FileName{Naming::kFlyway, FileRole::kRepeatable, "", title};
  }
  if (prefix != 'V' && prefix != 'U') return std::nullopt;
  const std::optional<std::string> version = flyway_version(stem.substr(1, separator - 1));
  if (!version) return std::nullopt;
  return FileName{Naming::kFlyway, prefix == 'V' ? FileRole::kWhole : FileRole::kDown, *version,
                  title};
}

// golang-migrate: <digits>_<title>.up / .down (the stem, before ".sql").
std::optional<FileName> golang_migrate(std::string_view stem) {
  for (const auto& [suffix, role] : {std::pair{std::string_view(".up"), FileRole::kUp},
                                     std::pair{std::string_view(".down"), FileRole::kDown}}) {
    if (!stem.ends_with(suffix)) continue;
    std::optional<FileName> name =
        digits_then(stem.substr(0, stem.size() - suffix.size()), '_', Naming::kGolangMigrate);
    if (name) name->role = role;
    return name;
  }
  return std::nullopt;
}

// "<digits><separator>", then something more.
bool starts_numbered(std::string_view name, char separator) {
  const std::size_t end = name.find_first_not_of("0123456789");
  return end != std::string_view::npos && end > 0 && name[end] == separator &&
         end + 1 < name.size();
}

// "V<version>__", "U<version>__" or "R__", then something more.
bool starts_like_flyway(std::string_view name) {
  const std::size_t separator = name.find("__");
  if (separator == std::string_view::npos || separator == 0 || separator + 2 == name.size()) {
    return false;
  }
  if (name.front() == 'R') return separator == 1;
  return (name.front() == 'V' || name.front() == 'U') &&
         flyway_version(name.substr(1, separator - 1)).has_value();
}

std::optional<FileName> migronaut_repeatable(std::string_view stem) {
  if (!stem.starts_with("R-") || !is_title(stem.substr(2))) return std::nullopt;
  return FileName{Naming::kMigronaut, FileRole::kRepeatable, "", std::string(stem.substr(2))};
}

}  // namespace

std::string_view naming_name(Naming naming) {
  switch (naming) {
    case Naming::kMigronaut:
      return "migronaut";
    case Naming::kDbmate:
      return "dbmate";
    case Naming::kGolangMigrate:
      return "golang-migrate";
    case Naming::kFlyway:
      return "flyway";
  }
  return "migronaut";
}

bool has_extension(std::string_view name, std::string_view extension) {
  return name.size() >= extension.size() &&
         std::equal(extension.begin(), extension.end(), name.end() - extension.size(),
                    [](char a, char b) {
                      return std::tolower(static_cast<unsigned char>(a)) ==
                             std::tolower(static_cast<unsigned char>(b));
                    });
}

bool has_sections(Naming naming) {
  return naming == Naming::kMigronaut || naming == Naming::kDbmate;
}

std::optional<FileName> parse_file_name(std::string_view name, std::string_view extension) {
  if (!has_extension(name, extension) || name.size() == extension.size()) return std::nullopt;
  const std::string_view stem = name.substr(0, name.size() - extension.size());
  if (auto own = digits_then(stem, '-', Naming::kMigronaut)) return own;
  if (auto repeatable = migronaut_repeatable(stem)) return repeatable;
  if (extension != ".sql") return std::nullopt;
  if (auto pair = golang_migrate(stem)) return pair;
  if (auto dbmate = digits_then(stem, '_', Naming::kDbmate)) return dbmate;
  return flyway(stem);
}

bool starts_like_migration(std::string_view name, std::string_view extension) {
  if (name.starts_with("R-") && name.size() > 2) return true;
  if (starts_numbered(name, '-')) return true;
  return extension == ".sql" && (starts_numbered(name, '_') || starts_like_flyway(name));
}

std::optional<FileName> parse_record_name(std::string_view name) {
  if (auto own = digits_then(name, '-', Naming::kMigronaut)) return own;
  if (auto repeatable = migronaut_repeatable(name)) return repeatable;
  if (auto underscored = digits_then(name, '_', Naming::kDbmate)) return underscored;
  return flyway(name);
}

}  // namespace migronaut

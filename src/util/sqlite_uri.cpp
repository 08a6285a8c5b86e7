#include "util/sqlite_uri.hpp"

#include <array>

namespace migronaut {
namespace {

// dbmate registers its SQLite driver under both.
constexpr std::array<std::string_view, 2> kSchemes = {"sqlite:", "sqlite3:"};
constexpr std::string_view kMemory = ":memory:";

// The scheme `uri` starts with, or "" for a URI that is no SQLite one.
std::string_view scheme_of(std::string_view uri) {
  for (const std::string_view scheme : kSchemes) {
    if (uri.starts_with(scheme)) return scheme;
  }
  return {};
}

}  // namespace

std::span<const std::string_view> sqlite_schemes() { return kSchemes; }

bool is_sqlite_uri(std::string_view uri) { return !scheme_of(uri).empty(); }

std::string sqlite_file(std::string_view uri) {
  std::string_view path = uri.substr(scheme_of(uri).size());
  if (path.starts_with("//")) path.remove_prefix(2);
  return std::string(path);
}

std::string sqlite_uri_against(std::string_view uri, const std::filesystem::path& base) {
  if (!is_sqlite_uri(uri)) return std::string(uri);
  const std::filesystem::path file = sqlite_file(uri);
  if (file.empty() || file.is_absolute() || file == kMemory) return std::string(uri);
  return std::string(scheme_of(uri)) + (base / file).lexically_normal().string();
}

}  // namespace migronaut

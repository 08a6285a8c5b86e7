#include "util/sqlite_uri.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kScheme = "sqlite:";
constexpr std::string_view kMemory = ":memory:";

}  // namespace

std::string sqlite_file(std::string_view uri) {
  std::string_view path = uri.substr(kScheme.size());
  if (path.starts_with("//")) path.remove_prefix(2);
  return std::string(path);
}

std::string sqlite_uri_against(std::string_view uri, const std::filesystem::path& base) {
  if (!uri.starts_with(kScheme)) return std::string(uri);
  const std::filesystem::path file = sqlite_file(uri);
  if (file.empty() || file.is_absolute() || file == kMemory) return std::string(uri);
  return std::string(kScheme) + (base / file).lexically_normal().string();
}

}  // namespace migronaut

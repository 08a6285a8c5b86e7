#include "source/scaffold.hpp"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "migronaut/errors.hpp"
#include "source/names.hpp"

namespace migronaut {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSqlSkeleton = "-- migrate:up\n\n-- migrate:down\n";
constexpr std::string_view kJsonSkeleton = R"({
  "description": "",
  "up": [],
  "down": []
}
)";

std::string default_template(std::string_view extension) {
  if (extension == ".json") return std::string(kJsonSkeleton);
  return std::string(kSqlSkeleton);
}

std::string read_template(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in || !fs::is_regular_file(path)) {
    throw ConfigInvalidError("Cannot read the migration template " + path.string(),
                             {{"key", "templatePath"}, {"path", path.string()}});
  }
  return content.str();
}

std::vector<std::string> file_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  }
  return names;
}

// Creates `path` with `content`, failing rather than replacing a file that already exists
// (O_EXCL, so two concurrent `create`s cannot both win).
void write_new_file(const fs::path& path, const std::string& content) {
  const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wxb"), &std::fclose);
  if (file == nullptr && errno == EEXIST) {
    throw MigrationFileExistsError("The migration file " + path.string() + " already exists",
                                   {{"path", path.string()}});
  }
  const bool written =
      file != nullptr &&
      std::fwrite(content.data(), 1, content.size(), file.get()) == content.size() &&
      std::fflush(file.get()) == 0;
  if (!written) {
    throw Error(ErrorCode::kUnclassified, "Cannot write the migration file " + path.string(),
                {{"path", path.string()}});
  }
}

}  // namespace

fs::path create_migration_file(const fs::path& dir, std::string_view title, bool sequential,
                               const fs::path& template_path, std::string_view extension,
                               std::chrono::system_clock::time_point now) {
  const std::string content =
      template_path.empty() ? default_template(extension) : read_template(template_path);
  fs::create_directories(dir);
  const fs::path path =
      dir / new_migration_name(title, sequential, file_names(dir), now, extension);
  write_new_file(path, content);
  return path;
}

}  // namespace migronaut

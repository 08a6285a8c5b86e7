// `migronaut create`: a new, empty migration file.
#pragma once

#include <chrono>
#include <filesystem>
#include <string_view>

namespace migronaut {

// Writes a new migration for `title` into `dir` (created when missing), named by
// new_migration_name() from the names already there, with the content of `template_path` or,
// when that is empty, the default skeleton for `extension` (".sql" or ".json"). Returns the new
// file's path. Throws MigrationFileExistsError when that file already exists (it is never
// overwritten) and ConfigInvalidError when the template cannot be read.
std::filesystem::path create_migration_file(
    const std::filesystem::path& dir, std::string_view title, bool sequential,
    const std::filesystem::path& template_path, std::string_view extension,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace migronaut

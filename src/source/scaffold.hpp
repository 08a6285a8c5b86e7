// `migronaut create`: a new, empty migration file.
#pragma once

#include <chrono>
#include <filesystem>
#include <string_view>
#include <vector>

namespace migronaut {

// Writes a new migration for `title` into `dir` (created when missing), in the naming the
// folder's files follow (source/naming.hpp; migronaut's in an empty folder), named by
// new_migration_files(): golang-migrate gets its .up and .down pair. The content is that of
// `template_path` (the up file's, for a pair) or, when that is empty, the default: the
// up/down sections for migronaut and dbmate (a JSON object for ".json"), nothing for plain SQL.
// Returns the paths written. Throws MigrationFileExistsError when a file already exists (none
// is overwritten; a pair is written whole or not at all), ConfigInvalidError when the template
// cannot be read, and MigrationInvalidNameError for a folder every command refuses (a file
// following no naming, or a mix of namings).
std::vector<std::filesystem::path> create_migration_files(
    const std::filesystem::path& dir, std::string_view title, bool sequential,
    const std::filesystem::path& template_path, std::string_view extension,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace migronaut

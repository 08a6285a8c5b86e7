// Reading a file whole.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace migronaut {

// The whole content of the file at `path`, or nullopt when it cannot be opened or read (a
// missing file, a directory, no permission: errno says which). A boot check reads every
// migration file, so this is an open, reads and a close per file, without a stream's locale
// set-up.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace migronaut

// .env files: variables for local development, read without touching the process environment.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace migronaut {

// Name/value pairs in the order the file defines them; a name defined twice keeps its first
// position and its last value.
using EnvPairs = std::vector<std::pair<std::string, std::string>>;

// Parses .env text: KEY=VALUE lines, an optional `export ` prefix, full-line comments, inline
// comments after whitespace in unquoted values, 'single' quotes (literal), "double" quotes
// (may span lines; \n, \r, \t, \" and \\ escapes). No ${VAR} interpolation. Lines that are not
// assignments are ignored, as dotenv does, but for one that starts with a name migronaut reads
// (MIGRONAUT*, DATABASE_URL). An unterminated quote, such a line, or such a name set twice
// throws ConfigInvalidError naming `origin` and the line.
EnvPairs parse_env(std::string_view text, std::string_view origin);

// Reads and parses the file at `path`. A missing path, anything but a regular file, or a file
// over 1 MB throws ConfigInvalidError.
EnvPairs read_env_file(const std::filesystem::path& path);

}  // namespace migronaut

// `sqlite:` URIs. "sqlite:app.db" and "sqlite://app.db" name app.db relative to the working
// directory; "sqlite:/srv/app.db" and "sqlite:///srv/app.db" an absolute path (the forms of
// dbmate and golang-migrate). The SQLite store refuses "sqlite::memory:" and SQLite's URI
// filenames ("sqlite:file:app.db").
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace migronaut {

// The database file a sqlite: URI names ("" when it names none); `uri` must start "sqlite:".
std::string sqlite_file(std::string_view uri);

// A sqlite: URI whose relative file is made absolute against `base` (a config file's folder);
// any other URI unchanged.
std::string sqlite_uri_against(std::string_view uri, const std::filesystem::path& base);

}  // namespace migronaut

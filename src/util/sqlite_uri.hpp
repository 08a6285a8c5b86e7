// `sqlite:` URIs. "sqlite:app.db" and "sqlite://app.db" name app.db relative to the working
// directory; "sqlite:/srv/app.db" and "sqlite:///srv/app.db" an absolute path (the forms of
// dbmate and golang-migrate). dbmate's "sqlite3:" is the same scheme. The SQLite store refuses
// "sqlite::memory:" and SQLite's URI filenames ("sqlite:file:app.db").
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace migronaut {

// "sqlite:" and "sqlite3:".
std::span<const std::string_view> sqlite_schemes();

// Whether `uri` starts with one of sqlite_schemes().
bool is_sqlite_uri(std::string_view uri);

// The database file a SQLite URI names ("" when it names none).
std::string sqlite_file(std::string_view uri);

// A SQLite URI whose relative file is made absolute against `base` (a config file's folder);
// any other URI unchanged.
std::string sqlite_uri_against(std::string_view uri, const std::filesystem::path& base);

}  // namespace migronaut

// The table of backends: which URI schemes each serves, its kind, its script language and how
// to open it. open_store(), config validation and the conformance suite all read it, so adding
// a backend is one folder (src/store/<kind>/) and one line in registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.hpp"

namespace migronaut {

struct Backend {
  std::string_view kind;                  // "sqlite", "postgres", "mongo"
  std::vector<std::string_view> schemes;  // URI prefixes: "sqlite:", "postgres://", …
  std::string_view script_extension;      // ".sql" or ".json"
  bool transactions_by_default;           // when neither the file nor the config says
  std::string_view build_option;          // the CMake option that compiles it in
  // Null when compiled out.
  std::unique_ptr<Store> (*open)(const Config& config, const ConnectionOptions& options);
};

// The backends compiled into this build, in table order.
std::span<const Backend* const> backends();

// The compiled-in backend serving `uri`; throws ConfigInvalidError for an unknown scheme and
// for one whose backend was left out of this build (naming the scheme and the build option).
const Backend& backend_for(std::string_view uri);

// Opens a store for `config.uri` through backend_for(); ConnectionFailedError (URI redacted)
// when the database cannot be reached. With options.access == Access::kRead it creates nothing.
std::unique_ptr<Store> open_store(const Config& config, const ConnectionOptions& options = {});

// The script extension of the backend serving `uri`, compiled in or not; ".sql" when none
// does (`create` needs no database, and may run before a URI is set).
std::string_view script_extension_for(std::string_view uri);

// Whether some backend, compiled in or not, serves `uri`'s scheme.
bool has_known_scheme(std::string_view uri);
// "sqlite:, postgres://, postgresql://, mongodb:// or mongodb+srv://", for messages.
std::string known_schemes();

}  // namespace migronaut

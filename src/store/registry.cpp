#include "store/registry.hpp"

#include <algorithm>

#include "migronaut/errors.hpp"
#include "store/module.hpp"
#include "store/mongo/mongo_store.hpp"
#include "store/postgres/postgres_store.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "util/sqlite_uri.hpp"

namespace migronaut {
namespace {

using Factory = std::unique_ptr<Store> (*)(const Config&, const ConnectionOptions&);

constexpr char kPostgres[] = "postgres";
constexpr char kMongo[] = "mongo";

// The CLI's build loads the backends with client libraries of their own from modules.
template <const char* kKind>
[[maybe_unused]] std::unique_ptr<Store> open_module(const Config& config,
                                                    const ConnectionOptions& options) {
  return load_store_module(kKind)(config, options);
}

#ifdef MIGRONAUT_WITH_SQLITE
constexpr Factory kOpenSqlite = open_sqlite_store;
#else
constexpr Factory kOpenSqlite = nullptr;
#endif
#if defined(MIGRONAUT_POSTGRES_MODULE)
constexpr Factory kOpenPostgres = open_module<kPostgres>;
#elif defined(MIGRONAUT_WITH_POSTGRES)
constexpr Factory kOpenPostgres = open_postgres_store;
#else
constexpr Factory kOpenPostgres = nullptr;
#endif
#if defined(MIGRONAUT_MONGO_MODULE)
constexpr Factory kOpenMongo = open_module<kMongo>;
#elif defined(MIGRONAUT_WITH_MONGO)
constexpr Factory kOpenMongo = open_mongo_store;
#else
constexpr Factory kOpenMongo = nullptr;
#endif

// Every backend migronaut knows, compiled in or not: a URI for a left-out one is refused by
// name rather than as an unknown scheme.
const std::vector<Backend>& all_backends() {
  static const std::vector<Backend> table = {
      {"sqlite",
       {sqlite_schemes().begin(), sqlite_schemes().end()},
       ".sql",
       true,
       "MIGRONAUT_WITH_SQLITE",
       kOpenSqlite},
      {kPostgres,
       {"postgres://", "postgresql://"},
       ".sql",
       true,
       "MIGRONAUT_WITH_POSTGRES",
       kOpenPostgres},
      {kMongo,
       {"mongodb://", "mongodb+srv://"},
       ".json",
       false,
       "MIGRONAUT_WITH_MONGO",
       kOpenMongo},
  };
  return table;
}

const Backend* serving(std::string_view uri) {
  for (const Backend& backend : all_backends()) {
    for (std::string_view scheme : backend.schemes) {
      if (uri.starts_with(scheme)) return &backend;
    }
  }
  return nullptr;
}

}  // namespace

std::span<const Backend* const> backends() {
  static const std::vector<const Backend*> compiled_in = [] {
    std::vector<const Backend*> found;
    for (const Backend& backend : all_backends()) {
      if (backend.open != nullptr) found.push_back(&backend);
    }
    return found;
  }();
  return compiled_in;
}

const Backend& backend_for(std::string_view uri) {
  const Backend* backend = serving(uri);
  if (backend == nullptr) {
    throw ConfigInvalidError("uri must start with " + known_schemes(), {{"key", "uri"}});
  }
  if (backend->open == nullptr) {
    const std::string_view scheme = uri.substr(0, uri.find(':') + 1);
    throw ConfigInvalidError(
        "uri: this migronaut was built without the " + std::string(backend->kind) +
            " backend, so it cannot open " + std::string(scheme) + " URIs (rebuild with -D" +
            std::string(backend->build_option) + "=ON)",
        {{"key", "uri"}, {"scheme", scheme}, {"buildOption", backend->build_option}});
  }
  return *backend;
}

std::string_view script_extension_for(std::string_view uri) {
  const Backend* backend = serving(uri);
  return backend != nullptr ? backend->script_extension : ".sql";
}

bool has_known_scheme(std::string_view uri) { return serving(uri) != nullptr; }

std::string known_schemes() {
  std::vector<std::string_view> schemes;
  for (const Backend& backend : all_backends()) {
    schemes.insert(schemes.end(), backend.schemes.begin(), backend.schemes.end());
  }
  std::string text;
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    if (i > 0) text += i + 1 == schemes.size() ? " or " : ", ";
    text += schemes[i];
  }
  return text;
}

std::unique_ptr<Store> open_store(const Config& config, const ConnectionOptions& options) {
  return backend_for(config.uri).open(config, options);
}

}  // namespace migronaut

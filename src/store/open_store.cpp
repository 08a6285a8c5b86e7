#include "migronaut/errors.hpp"
#include "store/backends.hpp"

namespace migronaut {

namespace {

bool is_mongo(std::string_view uri) {
  return uri.starts_with("mongodb://") || uri.starts_with("mongodb+srv://");
}

}  // namespace

std::string_view script_extension_for(std::string_view uri) {
  return is_mongo(uri) ? ".json" : ".sql";
}

std::unique_ptr<Store> open_store(const Config& config, Access access) {
  const std::string_view uri = config.uri;
  if (uri.starts_with("sqlite:")) return open_sqlite_store(config, access);
  if (uri.starts_with("postgres://") || uri.starts_with("postgresql://")) {
    return open_postgres_store(config);
  }
  if (is_mongo(uri)) return open_mongo_store(config);
  throw ConfigInvalidError(
      "uri must start with sqlite:, postgres://, postgresql://, mongodb:// or mongodb+srv://",
      {{"key", "uri"}});
}

}  // namespace migronaut

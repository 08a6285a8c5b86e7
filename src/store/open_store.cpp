#include "migronaut/errors.hpp"
#include "store/backends.hpp"

namespace migronaut {

std::unique_ptr<Store> open_store(const Config& config, const ConnectionOptions& options) {
  const std::string_view uri = config.uri;
  if (uri.starts_with("sqlite:")) return open_sqlite_store(config, options);
  if (uri.starts_with("postgres://") || uri.starts_with("postgresql://")) {
    return open_postgres_store(config, options);
  }
  if (uri.starts_with("mongodb://") || uri.starts_with("mongodb+srv://")) {
    return open_mongo_store(config, options);
  }
  throw ConfigInvalidError(
      "uri must start with sqlite:, postgres://, postgresql://, mongodb:// or mongodb+srv://",
      {{"key", "uri"}});
}

}  // namespace migronaut

// Placeholder until the postgres store lands; replaced by its real implementation.
#include "migronaut/errors.hpp"
#include "store/backends.hpp"

namespace migronaut {

std::unique_ptr<Store> open_postgres_store(const Config&) {
  throw ConfigInvalidError("the postgres store is not built yet");
}

}  // namespace migronaut

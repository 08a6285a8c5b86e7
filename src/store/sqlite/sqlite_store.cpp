// Placeholder until the sqlite store lands; replaced by its real implementation.
#include "migronaut/errors.hpp"
#include "store/backends.hpp"

namespace migronaut {

std::unique_ptr<Store> open_sqlite_store(const Config&) {
  throw ConfigInvalidError("the sqlite store is not built yet");
}

}  // namespace migronaut

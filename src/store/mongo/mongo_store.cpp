// Placeholder until the mongo store lands; replaced by its real implementation.
#include "migronaut/errors.hpp"
#include "store/backends.hpp"

namespace migronaut {

std::unique_ptr<Store> open_mongo_store(const Config&) {
  throw ConfigInvalidError("the mongo store is not built yet");
}

}  // namespace migronaut

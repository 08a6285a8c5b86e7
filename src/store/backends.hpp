// Each backend's factory; open_store() picks one by the URI's scheme.
#pragma once

#include <memory>

#include "store/store.hpp"

namespace migronaut {

std::unique_ptr<Store> open_sqlite_store(const Config& config, Access access = Access::kWrite);
std::unique_ptr<Store> open_postgres_store(const Config& config);
std::unique_ptr<Store> open_mongo_store(const Config& config);

}  // namespace migronaut

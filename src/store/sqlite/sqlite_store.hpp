// The SQLite store's factory, for the registry (src/store/registry.cpp). No database header here:
// the registry and the engine include it.
#pragma once

#include <memory>

#include "store/store.hpp"

namespace migronaut {

std::unique_ptr<Store> open_sqlite_store(const Config& config, Access access = Access::kWrite);

}  // namespace migronaut

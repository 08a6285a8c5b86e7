// Stores as loadable modules. The CLI opens PostgreSQL and MongoDB through modules
// (libmigronaut-store-<kind>.so) instead of linking their client libraries, so a boot check
// maps, relocates and initialises only the libraries of the backend it uses: libmongoc alone
// costs a SQLite run a third of its start-up (its constructor initialises OpenSSL and more).
// The library (migronaut::migronaut) links its stores directly and never loads a module.
#pragma once

#include <memory>
#include <string_view>

#include "store/store.hpp"

// Each module defines this one symbol: the opener of its store.
#define MIGRONAUT_STORE_MODULE_SYMBOL "migronaut_store_opener"

namespace migronaut {

using StoreOpener = std::unique_ptr<Store> (*)(const Config& config, Access access);

// The opener of the module for `kind`, loaded once. Looks beside the executable (the build
// tree), then in the installed module folder; ConfigInvalidError naming both places and the
// loader's reason when neither has it.
StoreOpener load_store_module(std::string_view kind);

}  // namespace migronaut

// What the CLI loads from modules rather than links. The PostgreSQL and MongoDB stores
// (libmigronaut-store-<kind>.so), so a boot check maps, relocates and initialises only the
// libraries of the backend it uses: libmongoc alone costs a SQLite run a third of its start-up
// (its constructor initialises OpenSSL and more). And PostgreSQL's parser
// (libmigronaut-pg-parser.so, sql/pg/pg_parser.hpp), which only a run that reads PostgreSQL
// scripts needs. The library (migronaut::migronaut) links all of it and never loads a module.
#pragma once

#include <memory>
#include <string_view>

#include "store/store.hpp"

// Each store module defines this one symbol: the opener of its store.
#define MIGRONAUT_STORE_MODULE_SYMBOL "migronaut_store_opener"

namespace migronaut {

using StoreOpener = std::unique_ptr<Store> (*)(const Config& config,
                                               const ConnectionOptions& options);

// The opener of the module for `kind`, loaded once. Looks beside the executable (the build
// tree), then in the installed module folder; ConfigInvalidError naming both places and the
// loader's reason when neither has it.
StoreOpener load_store_module(std::string_view kind);

}  // namespace migronaut

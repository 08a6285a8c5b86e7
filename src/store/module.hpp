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

// Each store module defines this symbol: the opener of its store.
#define MIGRONAUT_STORE_MODULE_SYMBOL "migronaut_store_opener"
// Every module defines this one too (module_version.cpp): the release it was built for.
#define MIGRONAUT_MODULE_VERSION_SYMBOL "migronaut_module_version"

namespace migronaut {

using StoreOpener = std::unique_ptr<Store> (*)(const Config& config,
                                               const ConnectionOptions& options);

// The opener of the module for `kind`, loaded once. Looks beside the executable (the build
// tree), then in the installed module folder, and takes the first module of this release;
// ConfigInvalidError naming both places and the loader's reason when neither has one.
StoreOpener load_store_module(std::string_view kind);

}  // namespace migronaut

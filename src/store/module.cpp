#include "store/module.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migronaut/errors.hpp"
#include "sql/pg/pg_parser.hpp"

namespace migronaut {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> module_candidates(const std::string& file) {
  std::error_code error;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", error).parent_path();
  // MIGRONAUT_MODULE_DIR is the installed module folder relative to the installed binary's.
  return {exe_dir / file, (exe_dir / MIGRONAUT_MODULE_DIR / file).lexically_normal()};
}

// Why the opened module `handle` will not do (another release's, or without `symbol`); nothing
// when it will.
std::optional<std::string> unusable(void* handle, const char* symbol) {
  const auto* version = static_cast<const char*>(dlsym(handle, MIGRONAUT_MODULE_VERSION_SYMBOL));
  if (version == nullptr || std::string_view(version) != MIGRONAUT_VERSION) {
    return "built for migronaut " + std::string(version != nullptr ? version : "(unknown)") +
           ", not " MIGRONAUT_VERSION;
  }
  if (dlsym(handle, symbol) == nullptr) return "no " + std::string(symbol);
  return std::nullopt;
}

// `symbol` of the module libmigronaut-<name>.so; ConfigInvalidError "<what> could not be
// loaded", with `context` and each place's reason, when no place has it.
void* load_symbol(std::string_view name, const char* symbol, std::string_view what,
                  const nlohmann::json& context) {
  std::string reasons;
  for (const fs::path& candidate : module_candidates("libmigronaut-" + std::string(name) + ".so")) {
    if (!fs::exists(candidate)) {
      reasons += "\n  " + candidate.string() + ": not found";
      continue;
    }
    // RTLD_NOW: a module that does not match this binary fails here, not mid-run.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const std::string error = dlerror();
      // A store module of another release may need a symbol this binary no longer has.
      const bool unlinked = error.find("undefined symbol") != std::string::npos;
      reasons += "\n  " + candidate.string() + ": " + error +
                 (unlinked ? " (a module of another release?)" : "");
      continue;
    }
    if (const std::optional<std::string> why = unusable(handle, symbol)) {
      reasons += "\n  " + candidate.string() + ": " + *why;
      dlclose(handle);
      continue;
    }
    return dlsym(handle, symbol);
  }
  throw ConfigInvalidError(
      std::string(what) + " could not be loaded (is the package installed whole?):" + reasons,
      context);
}

StoreOpener load(std::string_view kind) {
  const void* opener = load_symbol("store-" + std::string(kind), MIGRONAUT_STORE_MODULE_SYMBOL,
                                   "the " + std::string(kind) + " backend's module",
                                   {{"key", "uri"}, {"backend", kind}});
  return *static_cast<const StoreOpener*>(opener);
}

}  // namespace

StoreOpener load_store_module(std::string_view kind) {
  static std::mutex mutex;
  static std::map<std::string, StoreOpener, std::less<>> loaded;
  std::lock_guard lock(mutex);
  auto found = loaded.find(kind);
  if (found == loaded.end()) found = loaded.emplace(std::string(kind), load(kind)).first;
  return found->second;
}

const PgParser& pg_parser() {
  static const PgParser& parser = *static_cast<const PgParser*>(
      load_symbol("pg-parser", MIGRONAUT_PG_PARSER_SYMBOL, "PostgreSQL's parser module",
                  {{"module", "pg-parser"}}));
  return parser;
}

}  // namespace migronaut

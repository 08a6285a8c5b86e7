#include "store/module.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> module_candidates(std::string_view kind) {
  const std::string file = "libmigronaut-store-" + std::string(kind) + ".so";
  std::error_code error;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", error).parent_path();
  // MIGRONAUT_MODULE_DIR is the installed module folder relative to the installed binary's.
  return {exe_dir / file, (exe_dir / MIGRONAUT_MODULE_DIR / file).lexically_normal()};
}

StoreOpener load(std::string_view kind) {
  std::string reasons;
  for (const fs::path& candidate : module_candidates(kind)) {
    if (!fs::exists(candidate)) {
      reasons += "\n  " + candidate.string() + ": not found";
      continue;
    }
    // RTLD_NOW: a module that does not match this binary fails here, not mid-run.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      reasons += "\n  " + candidate.string() + ": " + dlerror();
      continue;
    }
    if (void* symbol = dlsym(handle, MIGRONAUT_STORE_MODULE_SYMBOL)) {
      return *static_cast<StoreOpener*>(symbol);
    }
    reasons += "\n  " + candidate.string() + ": no " MIGRONAUT_STORE_MODULE_SYMBOL;
    dlclose(handle);
  }
  throw ConfigInvalidError("the " + std::string(kind) +
                               " backend's module could not be loaded (is the package "
                               "installed whole?):" +
                               reasons,
                           {{"key", "uri"}, {"backend", kind}});
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

}  // namespace migronaut

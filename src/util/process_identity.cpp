#include "util/process_identity.hpp"

#include <pwd.h>
#include <unistd.h>

#include <array>

namespace migronaut {

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string("unknown");
}

std::string os_user_name() {
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 4096> buffer{};
  const int error = getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found);
  return error == 0 && found != nullptr && found->pw_name != nullptr ? found->pw_name : "unknown";
}

}  // namespace migronaut

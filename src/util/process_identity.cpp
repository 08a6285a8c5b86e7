#include "util/process_identity.hpp"

#include <pwd.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <iterator>
#include <string_view>

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

bool process_running_here(std::int64_t pid, const std::string& host) {
  if (pid <= 0 || host != host_name()) return false;
  // /proc/<pid>/stat: "pid (comm) state …"; comm may hold spaces and parentheses, so the state
  // is the first field after the last ')'.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  const std::string line((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t comm_end = line.rfind(')');
  if (comm_end == std::string::npos || comm_end + 2 >= line.size()) return false;
  const char state = line[comm_end + 2];
  return std::string_view("TtZX").find(state) == std::string_view::npos;
}

}  // namespace migronaut

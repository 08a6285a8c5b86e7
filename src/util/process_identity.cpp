#include "util/process_identity.hpp"

#include <pwd.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string_view>
#include <vector>

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

namespace {

// The fields of /proc/<pid>/stat after "(comm)", which may hold spaces and parentheses: the
// state is the first, the start time (clock ticks after boot) the twentieth.
std::vector<std::string> stat_fields(std::int64_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  const std::string line((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t comm_end = line.rfind(')');
  std::vector<std::string> fields;
  if (comm_end == std::string::npos) return fields;
  std::istringstream rest(line.substr(comm_end + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// When the system booted, in ms since the epoch (the btime line of /proc/stat), or 0.
std::int64_t boot_time_ms() {
  std::ifstream stat("/proc/stat");
  for (std::string key; stat >> key;) {
    if (key == "btime") {
      std::int64_t seconds = 0;
      stat >> seconds;
      return seconds * 1000;
    }
    stat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

}  // namespace

bool process_running_here(std::int64_t pid, const std::string& host, std::int64_t seen_ms) {
  if (pid <= 0 || host != host_name()) return false;
  const std::vector<std::string> fields = stat_fields(pid);
  if (fields.size() < 20 || fields[0].size() != 1) return false;
  if (std::string_view("TtZX").find(fields[0][0]) != std::string_view::npos) return false;
  const std::int64_t started_ms =
      boot_time_ms() + std::stoll(fields[19]) * 1000 / sysconf(_SC_CLK_TCK);
  // btime is whole seconds: a second's slack.
  return started_ms <= seen_ms + 1000;
}

}  // namespace migronaut

// Who this process is, as the lock record and the changelog name it: the host and the OS user.
#pragma once

#include <cstdint>
#include <string>

namespace migronaut {

// The host's name, or "unknown".
std::string host_name();

// The effective user's login name, or "unknown". A passwd lookup (NSS: files, perhaps a network
// directory), so it is asked only by a run that writes, never by a boot check.
std::string os_user_name();

// Whether process `pid` of host `host` is this host's and runs: it exists and is neither stopped
// (SIGSTOP, a debugger) nor a zombie. False whenever that cannot be known (another host).
bool process_running_here(std::int64_t pid, const std::string& host);

}  // namespace migronaut

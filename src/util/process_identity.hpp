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

// Whether process `pid` of host `host` is this host's and runs: it exists, started no later than
// `seen_ms` (ms since the epoch: a process that started after its holder last wrote is another
// one with its pid), and is neither stopped (SIGSTOP, a debugger) nor a zombie. False whenever
// that cannot be known (another host). A holder in another PID namespace under the same host
// name cannot be told apart from the local process with its pid.
bool process_running_here(std::int64_t pid, const std::string& host, std::int64_t seen_ms);

}  // namespace migronaut

// Who this process is, as the lock record and the changelog name it: the host and the OS user.
#pragma once

#include <string>

namespace migronaut {

// The host's name, or "unknown".
std::string host_name();

// The effective user's login name, or "unknown". A passwd lookup (NSS: files, perhaps a network
// directory), so it is asked only by a run that writes, never by a boot check.
std::string os_user_name();

}  // namespace migronaut

// Loopback ports for test servers.
#pragma once

namespace migronaut::testing {

// A port on 127.0.0.1 with nothing listening on it right now (the kernel's pick for port 0).
int free_port();

}  // namespace migronaut::testing

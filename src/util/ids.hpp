// The only place that mints identifiers: run ids (the lock's owner, the changelog's runId) and
// lock nonces. Both come from OpenSSL's CSPRNG, so no two processes can collide by accident.
#pragma once

#include <string>

namespace migronaut {

// A random UUID version 4 in its canonical text form: "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
std::string new_run_id();

// 128 random bits as 32 lowercase hex characters.
std::string new_nonce();

}  // namespace migronaut

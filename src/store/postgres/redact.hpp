// Keeps credentials out of messages about a PostgreSQL connection.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace migronaut {

struct RedactedUri {
  std::string text;  // postgres://user:***@host/db?password=***
  // The secrets as written and percent-decoded, for scrubbing messages that quote them.
  std::vector<std::string> secrets;
};

RedactedUri redact_postgres_uri(std::string_view uri);

// `message` with every occurrence of each secret replaced by "***".
std::string scrub_secrets(std::string message, const std::vector<std::string>& secrets);

}  // namespace migronaut

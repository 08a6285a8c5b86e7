#include "store/postgres/redact.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kMask = "***";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

void add_secret(RedactedUri& out, std::string_view secret) {
  if (secret.empty()) return;
  out.secrets.emplace_back(secret);
  if (std::string decoded = percent_decode(secret); decoded != secret) {
    out.secrets.push_back(std::move(decoded));
  }
}

}  // namespace

RedactedUri redact_postgres_uri(std::string_view uri) {
  RedactedUri out{std::string(uri), {}};
  std::string& text = out.text;
  const std::size_t scheme_end = text.find("://");
  const std::size_t authority = scheme_end == std::string::npos ? 0 : scheme_end + 3;

  // The user info ends at the last '@': a password may itself hold '/', '?' or '@', and
  // masking too much (an '@' in the query) only hides harmless text.
  std::size_t host = authority;
  if (const std::size_t at = text.rfind('@'); at != std::string::npos && at >= authority) {
    host = at + 1;
    const std::size_t colon = text.find(':', authority);
    if (colon != std::string::npos && colon < at) {
      add_secret(out, std::string_view(text).substr(colon + 1, at - colon - 1));
      text.replace(colon + 1, at - colon - 1, kMask);
      host = colon + 1 + kMask.size() + 1;
    }
  }

  // libpq also takes the password as a query parameter.
  const std::size_t query = text.find('?', host);
  for (std::size_t start = query; start != std::string::npos && start < text.size();) {
    const std::size_t begin = start + 1;
    std::size_t end = text.find('&', begin);
    if (end == std::string::npos) end = text.size();
    constexpr std::string_view kKey = "password=";
    if (std::string_view(text).substr(begin, end - begin).starts_with(kKey)) {
      const std::size_t value = begin + kKey.size();
      add_secret(out, std::string_view(text).substr(value, end - value));
      text.replace(value, end - value, kMask);
      end = value + kMask.size();
    }
    start = end < text.size() ? end : std::string::npos;
  }
  return out;
}

std::string scrub_secrets(std::string message, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    for (std::size_t at = message.find(secret); at != std::string::npos;
         at = message.find(secret, at + kMask.size())) {
      message.replace(at, secret.size(), kMask);
    }
  }
  return message;
}

}  // namespace migronaut

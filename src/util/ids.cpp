#include "util/ids.hpp"

#include <sys/random.h>

#include <array>
#include <cstdint>
#include <stdexcept>

namespace migronaut {
namespace {

using Bytes16 = std::array<std::uint8_t, 16>;

// The kernel's CSPRNG: 16 bytes never block once the system has booted, and a read this small
// is never short.
Bytes16 random_bytes() {
  Bytes16 bytes{};
  if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    throw std::runtime_error("the system random generator failed");
  }
  return bytes;
}

void append_hex(std::string& out, std::uint8_t byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out.push_back(kDigits[byte >> 4]);
  out.push_back(kDigits[byte & 0x0F]);
}

}  // namespace

std::string new_run_id() {
  Bytes16 bytes = random_bytes();
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  std::string text;
  text.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    append_hex(text, bytes[i]);
  }
  return text;
}

std::string new_nonce() {
  std::string text;
  text.reserve(32);
  for (std::uint8_t byte : random_bytes()) append_hex(text, byte);
  return text;
}

}  // namespace migronaut

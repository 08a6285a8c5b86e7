#include "util/checksum.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace migronaut {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

std::string normalize_line_endings(std::string_view text) {
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out.push_back(text[i]);
  }
  return out;
}

std::string to_hex(const unsigned char* data, unsigned int size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kDigits[data[i] >> 4]);
    hex.push_back(kDigits[data[i] & 0x0F]);
  }
  return hex;
}

}  // namespace

std::string checksum_hex(std::string_view bytes) {
  const std::string content = normalize_line_endings(bytes);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  if (EVP_Digest(content.data(), content.size(), digest, &digest_size, EVP_sha256(), nullptr) !=
      1) {
    throw std::runtime_error("SHA-256 digest failed");
  }
  return to_hex(digest, digest_size);
}

}  // namespace migronaut

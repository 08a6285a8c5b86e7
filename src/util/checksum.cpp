#include "util/checksum.hpp"

// SHA-256 through OpenSSL's direct SHA256_Init/Update/Final, deprecated in OpenSSL 3 in favour of
// EVP: the EVP path initialises OpenSSL's provider machinery on first use, which cost a boot
// check with 100 files 30% of its instructions, for the same digest.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <zlib.h>

#include <algorithm>

namespace migronaut {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Hashes `text` as if it had no leading BOM and every CRLF were LF, without copying it.
void update_normalized(SHA256_CTX& context, std::string_view text) {
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  for (std::size_t crlf = text.find("\r\n"); crlf != std::string_view::npos;
       crlf = text.find("\r\n")) {
    SHA256_Update(&context, text.data(), crlf);
    text.remove_prefix(crlf + 1);  // the \n stays
  }
  SHA256_Update(&context, text.data(), text.size());
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

// Flyway feeds CRC-32 each line that Java's readLine gives (ended by \n, \r or \r\n, without
// it): the CRC-32 of the text without its line ends.
std::int32_t flyway_checksum(std::string_view bytes) {
  if (bytes.starts_with(kUtf8Bom)) bytes.remove_prefix(kUtf8Bom.size());
  uLong crc = crc32(0L, Z_NULL, 0);
  while (!bytes.empty()) {
    const std::size_t line_end = std::min(bytes.find_first_of("\r\n"), bytes.size());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(line_end));
    bytes.remove_prefix(std::min(line_end + 1, bytes.size()));
  }
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(crc));
}

std::string checksum_hex(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256_CTX context;
  SHA256_Init(&context);
  update_normalized(context, bytes);
  SHA256_Final(digest, &context);
  return to_hex(digest, SHA256_DIGEST_LENGTH);
}

}  // namespace migronaut

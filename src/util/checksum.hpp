// Content checksums for drift detection.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace migronaut {

// SHA-256 hex (lowercase) of `bytes` after stripping a leading UTF-8 BOM and turning CRLF into
// LF, so the same migration checked out on Windows and Linux has one checksum.
std::string checksum_hex(std::string_view bytes);

// Flyway's checksum of a migration file, as its schema history stores it: the CRC-32 of the
// file's lines without their line ends (so blank lines and CRLF change nothing) after a leading
// BOM, as a signed 32-bit number.
std::int32_t flyway_checksum(std::string_view bytes);

}  // namespace migronaut

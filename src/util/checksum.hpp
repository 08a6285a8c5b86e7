// Content checksums for drift detection (DESIGN §3).
#pragma once

#include <string>
#include <string_view>

namespace migronaut {

// SHA-256 hex (lowercase) of `bytes` after stripping a leading UTF-8 BOM and turning CRLF into
// LF, so the same migration checked out on Windows and Linux has one checksum.
std::string checksum_hex(std::string_view bytes);

}  // namespace migronaut

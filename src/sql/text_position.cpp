#include "sql/text_position.hpp"

#include <algorithm>
#include <cctype>

namespace migronaut {
namespace {

// A byte that continues a UTF-8 sequence rather than starting a character.
bool is_continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

// One past the block comment that starts at `offset`.
std::size_t comment_end(std::string_view text, std::size_t offset) {
  int depth = 0;
  do {
    if (text.substr(offset, 2) == "/*") {
      ++depth;
      offset += 2;
    } else if (text.substr(offset, 2) == "*/") {
      --depth;
      offset += 2;
    } else {
      ++offset;
    }
  } while (depth > 0 && offset < text.size());
  return offset;
}

}  // namespace

TextPosition position_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  TextPosition position;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else if (!is_continuation(text[i])) {
      ++position.column;
    }
  }
  return position;
}

std::size_t skip_blank(std::string_view text, std::size_t offset) {
  while (offset < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[offset]))) {
      ++offset;
    } else if (text.substr(offset, 2) == "--") {
      const std::size_t newline = text.find('\n', offset);
      offset = newline == std::string_view::npos ? text.size() : newline + 1;
    } else if (text.substr(offset, 2) == "/*") {
      offset = comment_end(text, offset);
    } else {
      break;
    }
  }
  return std::min(offset, text.size());
}

std::size_t first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead == 0) return i;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length and the range its second byte must fall in (RFC 3629's table).
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

std::size_t byte_offset_of_character(std::string_view text, std::size_t character) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_continuation(text[i])) continue;
    if (seen == character) return i;
    ++seen;
  }
  return text.size();
}

}  // namespace migronaut

// Where a byte offset lies in a text, as an editor shows it: 1-based line and column, the
// column counted in characters (UTF-8 code points), like PostgreSQL's own error positions.
#pragma once

#include <cstddef>
#include <string_view>

namespace migronaut {

struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};

TextPosition position_at(std::string_view text, std::size_t offset);

// The byte offset of the `character`-th character (0-based) of `text`, clamped to its end:
// PostgreSQL reports positions in characters, the parser in bytes.
std::size_t byte_offset_of_character(std::string_view text, std::size_t character);

// The offset of the first byte of `text` that is a NUL or not part of well-formed UTF-8
// (overlong forms, surrogates and code points past U+10FFFF included), or npos.
std::size_t first_invalid_utf8(std::string_view text);

// The first byte at or after `offset` that is neither whitespace nor inside an SQL comment
// (`--` to the end of the line, `/* */`, nested as PostgreSQL nests them): parsers' statement
// locations include whatever comes before a statement's first token.
std::size_t skip_blank(std::string_view text, std::size_t offset);

}  // namespace migronaut

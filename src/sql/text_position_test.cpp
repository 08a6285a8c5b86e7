#include "sql/text_position.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(TextPositionTest, CountsLinesAndCharacters) {
  const std::string_view text = "SELECT 1;\n  SELECT 'é', 2;";
  EXPECT_EQ(position_at(text, 0).line, 1u);
  EXPECT_EQ(position_at(text, 0).column, 1u);
  EXPECT_EQ(position_at(text, 12).line, 2u);
  EXPECT_EQ(position_at(text, 12).column, 3u);
  // After the two-byte é the column counts one character, not two bytes.
  const std::size_t comma = text.find("', 2");
  EXPECT_EQ(position_at(text, comma + 1).column, position_at(text, comma).column + 1);
  EXPECT_EQ(position_at(text, comma).column, 12u);
  EXPECT_EQ(position_at(text, 999).line, 2u);  // clamped to the end
}

TEST(TextPositionTest, MapsCharacterPositionsToBytes) {
  const std::string_view text = "é1é2";
  EXPECT_EQ(byte_offset_of_character(text, 0), 0u);
  EXPECT_EQ(byte_offset_of_character(text, 1), 2u);
  EXPECT_EQ(byte_offset_of_character(text, 3), 5u);
  EXPECT_EQ(byte_offset_of_character(text, 10), text.size());
}

TEST(TextPositionTest, SkipsWhitespaceAndComments) {
  const std::string_view text = "  -- note\n /* a /* nested */ b */\n\tCOMMIT";
  EXPECT_EQ(skip_blank(text, 0), text.find("COMMIT"));
  EXPECT_EQ(skip_blank("SELECT", 0), 0u);
  EXPECT_EQ(skip_blank("  -- only a comment", 0), std::string_view("  -- only a comment").size());
}

TEST(TextPositionTest, FindsNulAndInvalidUtf8) {
  EXPECT_EQ(first_invalid_utf8("SELECT 'é€😀';"), std::string_view::npos);
  EXPECT_EQ(first_invalid_utf8(std::string_view("ab\0c", 4)), 2u);
  EXPECT_EQ(first_invalid_utf8("ab\xFF"), 2u);
  EXPECT_EQ(first_invalid_utf8("a\xC3"), 1u);             // truncated sequence
  EXPECT_EQ(first_invalid_utf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(first_invalid_utf8("x\xED\xA0\x80"), 1u);     // a UTF-16 surrogate
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xE2\x82"), 0u);
}

}  // namespace
}  // namespace migronaut

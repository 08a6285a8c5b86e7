#include "util/checksum.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(ChecksumTest, MatchesKnownSha256Vectors) {
  EXPECT_EQ(checksum_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(checksum_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(ChecksumTest, StripsLeadingBom) {
  EXPECT_EQ(checksum_hex("\xEF\xBB\xBF"
                         "abc"),
            checksum_hex("abc"));
}

TEST(ChecksumTest, KeepsBomThatIsNotLeading) {
  EXPECT_NE(checksum_hex("a\xEF\xBB\xBF"
                         "bc"),
            checksum_hex("abc"));
}

TEST(ChecksumTest, CrlfEqualsLf) {
  EXPECT_EQ(checksum_hex("a\r\nb\r\n"), checksum_hex("a\nb\n"));
  EXPECT_EQ(checksum_hex("\xEF\xBB\xBF-- migrate:up\r\nSELECT 1;\r\n"),
            checksum_hex("-- migrate:up\nSELECT 1;\n"));
}

TEST(ChecksumTest, OnlyTheCarriageReturnBeforeALineFeedGoes) {
  // "a\r\r\nb" reads as "a\r\nb" with its first CR kept: not the same as "a\nb".
  EXPECT_NE(checksum_hex("a\r\r\nb"), checksum_hex("a\nb"));
  EXPECT_EQ(checksum_hex("a\r\r\nb\r\n"), checksum_hex("a\r\r\nb\n"));
}

TEST(ChecksumTest, LoneCarriageReturnIsContent) {
  EXPECT_NE(checksum_hex("a\rb"), checksum_hex("ab"));
  EXPECT_NE(checksum_hex("a\rb"), checksum_hex("a\nb"));
}

TEST(ChecksumTest, DifferentContentDiffers) {
  EXPECT_NE(checksum_hex("SELECT 1;"), checksum_hex("SELECT 2;"));
}

// Expected values: CRC-32 (Python's zlib.crc32) of the text without its line ends, read as a
// signed 32-bit number, as Java's CRC32 cast to int gives.
TEST(FlywayChecksumTest, IsTheCrc32OfTheLinesAsASignedNumber) {
  EXPECT_EQ(flyway_checksum(""), 0);
  EXPECT_EQ(flyway_checksum("SELECT 1;"), 78787420);
  EXPECT_EQ(flyway_checksum("CREATE TABLE a (id int);\n"), -623083431);
  EXPECT_EQ(flyway_checksum("CREATE TABLE a (id int);\nINSERT INTO a VALUES (1);\n"), -279898995);
}

TEST(FlywayChecksumTest, IgnoresLineEndsBlankLinesAndALeadingBom) {
  const std::int32_t plain = flyway_checksum("CREATE TABLE a (id int);\nINSERT INTO a VALUES (1);");
  EXPECT_EQ(flyway_checksum("\xEF\xBB\xBF"
                            "CREATE TABLE a (id int);\r\n\r\nINSERT INTO a VALUES (1);\r"),
            plain);
  EXPECT_NE(flyway_checksum("CREATE TABLE a (id int); INSERT INTO a VALUES (1);"), plain);
}

}  // namespace
}  // namespace migronaut

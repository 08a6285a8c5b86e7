#include "cli/format.hpp"

#include <gtest/gtest.h>

namespace migronaut::cli {
namespace {

TEST(PaddedTest, FillsTheWidthInDisplayColumns) {
  EXPECT_EQ(padded("abc", 5), "abc  ");
  EXPECT_EQ(padded("12", 5, true), "   12");
  EXPECT_EQ(padded("été", 5), "été  ");    // 5 bytes, 3 columns
  EXPECT_EQ(padded("日本", 6), "日本  ");  // two wide characters, 4 columns
  EXPECT_EQ(padded("日本", 6, true), "  日本");
}

TEST(PaddedTest, LeavesWhatIsWiderThanTheWidthWhole) {
  EXPECT_EQ(padded("migration", 4), "migration");
  EXPECT_EQ(padded("", 3, true), "   ");
}

}  // namespace
}  // namespace migronaut::cli

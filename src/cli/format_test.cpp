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

TEST(PaddedTest, AppendsAfterWhatIsThere) {
  std::string line = "a|";
  append_padded(line, "b", 3);
  append_padded(line, "日本", 6, true);
  append_padded(line, "cc", 1);
  EXPECT_EQ(line, "a|b    日本cc");
}

// A hand-made lock row's escape sequence, cut short by the run id's eight characters or left
// unterminated, must not swallow the fields after it; a newline in one must not start a line.
TEST(DescribeHolderTest, AFieldsEscapeSequenceHidesNoOtherField) {
  LockInfo holder;
  holder.host = "ho\x1b]0;title\x07st\nforged";
  holder.pid = 7;
  holder.run_id = "own\x1b]0;x\x07rest";
  holder.executed_by = "u\x1b";
  holder.migration = "0001-a.sql";
  holder.step = 1;
  holder.total = 2;
  EXPECT_EQ(describe_holder(holder, 0),
            "host\\nforged pid 7 (run ownrest, user u), on 0001-a.sql (1/2)");
}

TEST(FormatTimeTest, WritesUtcToTheSecond) {
  EXPECT_EQ(format_time(0), "1970-01-01 00:00:00Z");
  EXPECT_EQ(format_time(1796337020123), "2026-12-03 22:30:20Z");  // the milliseconds dropped
  EXPECT_EQ(format_time(951868799000), "2000-02-29 23:59:59Z");   // a leap day
  EXPECT_EQ(format_time(-1000), "1969-12-31 23:59:59Z");
  EXPECT_EQ(format_time(-1500), "1969-12-31 23:59:59Z");  // truncated toward zero
}

}  // namespace
}  // namespace migronaut::cli

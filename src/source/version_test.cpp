#include "source/version.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(CompareVersionsTest, OrdersNumericallyNotAsText) {
  EXPECT_LT(compare_versions("2", "10"), 0);
  EXPECT_LT(compare_versions("9999", "10000"), 0);
  EXPECT_GT(compare_versions("20260101120000", "20251231235959"), 0);
}

TEST(CompareVersionsTest, ComparesDottedPartsOneByOne) {
  EXPECT_LT(compare_versions("1.2", "1.10"), 0);
  EXPECT_LT(compare_versions("1.9.9", "2"), 0);
  EXPECT_GT(compare_versions("1.2.1", "1.2"), 0);
}

TEST(CompareVersionsTest, IgnoresZeroPaddingAndTrailingZeroParts) {
  EXPECT_EQ(compare_versions("0001", "1"), 0);
  EXPECT_EQ(compare_versions("1", "1.0"), 0);
  EXPECT_EQ(compare_versions("1.0.0", "001"), 0);
  EXPECT_LT(compare_versions("0", "1"), 0);
}

TEST(CompareVersionsTest, AnEmptyVersionSortsLast) {
  EXPECT_GT(compare_versions("", "1"), 0);
  EXPECT_LT(compare_versions("1", ""), 0);
  EXPECT_EQ(compare_versions("", ""), 0);
}

}  // namespace
}  // namespace migronaut

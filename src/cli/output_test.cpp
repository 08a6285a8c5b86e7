#include "cli/output.hpp"

#include <gtest/gtest.h>

namespace migronaut::cli {
namespace {

TEST(FitWidth, KeepsWhatFits) {
  EXPECT_EQ(fit_width("waiting 3 s", 40), "waiting 3 s");
  EXPECT_EQ(fit_width("abcde", 5), "abcde");
  EXPECT_EQ(fit_width("", 5), "");
}

TEST(FitWidth, CutsToTheColumnsWithAnEllipsis) {
  EXPECT_EQ(fit_width("abcdefgh", 5), "abcd…");
  EXPECT_EQ(fit_width("abcdefgh", 1), "…");
}

TEST(FitWidth, CountsCodePointsNotBytes) {
  // "⏳" and "—" are three bytes each but one column.
  EXPECT_EQ(fit_width("⏳ held — waited", 16), "⏳ held — waited");
  EXPECT_EQ(fit_width("⏳ held — waited 12 s", 8), "⏳ held …");
}

}  // namespace
}  // namespace migronaut::cli

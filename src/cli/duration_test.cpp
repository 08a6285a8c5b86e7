#include "cli/duration.hpp"

#include <gtest/gtest.h>

#include "migronaut/errors.hpp"

namespace migronaut::cli {
namespace {

TEST(Duration, ReadsEveryUnit) {
  EXPECT_EQ(parse_duration_ms("500ms", "--t"), 500);
  EXPECT_EQ(parse_duration_ms("30s", "--t"), 30'000);
  EXPECT_EQ(parse_duration_ms("2m", "--t"), 120'000);
  EXPECT_EQ(parse_duration_ms("1h", "--t"), 3'600'000);
  EXPECT_EQ(parse_duration_ms("250", "--t"), 250);
}

TEST(Duration, RefusesNamingTheFlagTyped) {
  for (const char* bad : {"", "0", "-1", "0s", "30x", "s", "1.5s", "NaN", "Infinity", " 30s",
                          "30s ", "999999999999", "600h"}) {
    try {
      parse_duration_ms(bad, "--wait-timeout");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ConfigInvalidError& error) {
      EXPECT_NE(std::string(error.what()).find("--wait-timeout"), std::string::npos);
      EXPECT_EQ(error.context()["option"], "--wait-timeout");
      EXPECT_EQ(error.context()["value"], bad);
    }
  }
}

}  // namespace
}  // namespace migronaut::cli

#include "util/iso_time.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(IsoTime, WritesUtcWithMilliseconds) {
  EXPECT_EQ(iso_time(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso_time(1796209495123), "2026-12-02T11:04:55.123Z");
}

TEST(IsoTime, ReadsWhatItWrites) {
  for (std::int64_t ms :
       {std::int64_t{0}, std::int64_t{1796209495123}, std::int64_t{951782400999}}) {
    EXPECT_EQ(parse_iso_time(iso_time(ms)), ms);
  }
  EXPECT_EQ(parse_iso_time("2026-12-02T11:04:55Z"), 1796209495000);
}

TEST(IsoTime, RefusesAnythingElse) {
  for (const char* text : {"", "2026-12-02", "2026-12-02T11:04:55", "2026-12-02T11:04:55+01:00",
                           "2026-13-02T11:04:55Z", "2026-02-30T11:04:55Z", "1796209495123",
                           "2026-12-02T11:04:55.12Z"}) {
    EXPECT_EQ(parse_iso_time(text), std::nullopt) << text;
  }
}

}  // namespace
}  // namespace migronaut

#include "util/ids.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace migronaut {
namespace {

constexpr int kDraws = 10000;

TEST(IdsTest, RunIdIsUuidV4) {
  const std::regex uuid_v4("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_run_id();
    EXPECT_TRUE(std::regex_match(id, uuid_v4)) << id;
  }
}

TEST(IdsTest, NonceIs32LowercaseHex) {
  const std::regex hex32("^[0-9a-f]{32}$");
  for (int i = 0; i < 100; ++i) {
    const std::string nonce = new_nonce();
    EXPECT_TRUE(std::regex_match(nonce, hex32)) << nonce;
  }
}

TEST(IdsTest, RunIdsAreUnique) {
  std::set<std::string> seen;
  for (int i = 0; i < kDraws; ++i) seen.insert(new_run_id());
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kDraws));
}

TEST(IdsTest, NoncesAreUnique) {
  std::set<std::string> seen;
  for (int i = 0; i < kDraws; ++i) seen.insert(new_nonce());
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kDraws));
}

}  // namespace
}  // namespace migronaut

#include "store/postgres/run_sessions.hpp"

#include <gtest/gtest.h>

#include <string>

namespace migronaut {
namespace {

TEST(RunApplicationNameTest, IsTheRunsTagAfterTheNameTheUriSet) {
  EXPECT_EQ(run_application_name("", "1a2b3c4d-e5f6"), "migronaut:1a2b3c4d");
  EXPECT_EQ(run_application_name("migronaut", "1a2b3c4d-e5f6"), "migronaut:1a2b3c4d");
  EXPECT_EQ(run_application_name("billing", "1a2b3c4d-e5f6"), "billing migronaut:1a2b3c4d");
}

// PostgreSQL keeps 63 bytes of a name: a long one is cut to leave the tag whole, and never
// inside a UTF-8 character, which would make the name no text the server accepts.
TEST(RunApplicationNameTest, ALongNameIsCutBetweenCharacters) {
  const std::string tag = "migronaut:1a2b3c4d";
  const std::string ascii = run_application_name(std::string(80, 'a'), "1a2b3c4d");
  EXPECT_EQ(ascii.size(), 63u);
  EXPECT_TRUE(ascii.ends_with(" " + tag));
  for (const std::string& base : {std::string(42, 'x') + "éé", std::string(43, 'x') + "éé"}) {
    const std::string name = run_application_name(base, "1a2b3c4d");
    ASSERT_TRUE(name.ends_with(" " + tag)) << name;
    EXPECT_LE(name.size(), 63u) << name;
    const std::string kept = name.substr(0, name.size() - tag.size() - 1);
    EXPECT_TRUE(base.starts_with(kept)) << name;
    EXPECT_NE(static_cast<unsigned char>(kept.back()), 0xC3) << "cut inside 'é': " << name;
  }
}

}  // namespace
}  // namespace migronaut

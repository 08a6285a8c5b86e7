#include "source/names.hpp"

#include <gtest/gtest.h>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

// 2026-01-02 03:04:05 UTC.
const system_clock::time_point kNow = system_clock::from_time_t(1767323045);

TEST(ValidateNameTest, AcceptsVersionedNames) {
  for (const char* name : {"20260101120000-users.sql", "0001-seed", "1-a_b.c-d.json",
                           "20260101120000-Add_Users.sql"}) {
    EXPECT_NO_THROW(validate_migration_name(name)) << name;
    EXPECT_NO_THROW(validate_record_name(name)) << name;
  }
}

TEST(ValidateNameTest, RejectsPathsAndHiddenNames) {
  for (const std::string& name : std::vector<std::string>{
           "../x.sql", "0001-a/../../etc", "dir/0001-a.sql", "0001-a\\b.sql", "/0001-a.sql", ".",
           "..", ".0001-a.sql", std::string("0001-a\0.sql", 11)}) {
    EXPECT_THROW(validate_record_name(name), MigrationInvalidNameError) << name;
    EXPECT_THROW(validate_migration_name(name), MigrationInvalidNameError) << name;
  }
}

TEST(ValidateNameTest, RejectsNamesOutsideThePattern) {
  for (const std::string& name : std::vector<std::string>{
           "", "users.sql", "-users.sql", "0001users.sql", "0001-", "0001-with space.sql",
           "v1-users.sql", "0001-a\tb", "0001-a\nb", "0001-\x1b[31mred", "0001-caf\xC3\xA9.sql",
           "0001-" + std::string(251, 'a')}) {
    EXPECT_THROW(validate_record_name(name), MigrationInvalidNameError) << name;
  }
}

TEST(ValidateNameTest, ErrorShowsControlCharactersEscaped) {
  try {
    validate_record_name("0001-\x1b]0;pwned\x07");
    FAIL() << "expected MigrationInvalidNameError";
  } catch (const MigrationInvalidNameError& error) {
    EXPECT_EQ(std::string(error.what()).find('\x1b'), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("\\u001b"), std::string::npos);
    EXPECT_EQ(error.context()["name"], "0001-\x1b]0;pwned\x07");
  }
}

TEST(VersionOfTest, IsTheDigitsBeforeTheFirstDash) {
  EXPECT_EQ(version_of("20260101120000-users-v2.sql"), "20260101120000");
  EXPECT_EQ(version_of("0001-seed"), "0001");
}

TEST(SlugifyTest, LowercasesAndCollapsesSeparators) {
  EXPECT_EQ(slugify("Add users: unique e-mail!"), "add-users-unique-e-mail");
  EXPECT_EQ(slugify("  --Create   Index__now  "), "create-index-now");
  EXPECT_EQ(slugify("café 2"), "caf-2");
}

TEST(SlugifyTest, RejectsTitlesWithNothingLeft) {
  EXPECT_THROW(slugify(""), MigrationInvalidNameError);
  EXPECT_THROW(slugify("!!! ---"), MigrationInvalidNameError);
}

TEST(SlugifyTest, BoundsTheLength) { EXPECT_LE(slugify(std::string(500, 'a')).size(), 100u); }

TEST(NewMigrationNameTest, UsesTheUtcTimestamp) {
  EXPECT_EQ(new_migration_name("Add users", false, {}, kNow, ".sql"),
            "20260102030405-add-users.sql");
}

TEST(NewMigrationNameTest, MovesPastATakenVersion) {
  EXPECT_EQ(new_migration_name("second", false, {"20260102030405-first.sql"}, kNow, ".sql"),
            "20260102030406-second.sql");
}

TEST(NewMigrationNameTest, KeepsAnIdenticalNameForTheCallerToRefuse) {
  EXPECT_EQ(new_migration_name("first", false, {"20260102030405-first.sql"}, kNow, ".sql"),
            "20260102030405-first.sql");
}

TEST(NewMigrationNameTest, SequentialStartsAtOne) {
  EXPECT_EQ(new_migration_name("init", true, {}, kNow, ".json"), "0001-init.json");
}

TEST(NewMigrationNameTest, SequentialFollowsTheHighestVersion) {
  EXPECT_EQ(new_migration_name("next", true, {"0002-b.sql", "0009-c.sql", "0003-a.sql", "README"},
                               kNow, ".sql"),
            "0010-next.sql");
  EXPECT_EQ(new_migration_name("next", true, {"9999-z.sql"}, kNow, ".sql"), "10000-next.sql");
}

}  // namespace
}  // namespace migronaut

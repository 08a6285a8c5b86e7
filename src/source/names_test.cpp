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

// A refused name prints as the user wrote it, not as \u escapes; text that would reorder or
// forge what the terminal shows is still escaped or replaced.
TEST(ValidateNameTest, ErrorShowsTheNameAsWrittenButNoOverrideOrBrokenByte) {
  const auto message = [](const std::string& name) {
    try {
      validate_record_name(name);
    } catch (const MigrationInvalidNameError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(
      message("0001-caf\xC3\xA9 d\xC3\xBCrer.sql").find("\"0001-caf\xC3\xA9 d\xC3\xBCrer.sql\""),
      std::string::npos);
  const std::string overridden = message("0001-\xE2\x80\xAEgpj.sql");
  EXPECT_EQ(overridden.find("\xE2\x80\xAE"), std::string::npos) << overridden;
  EXPECT_NE(overridden.find("\"0001-\\u202egpj.sql\""), std::string::npos) << overridden;
  EXPECT_NE(message("0001-\xE2\x81\xA6x.sql").find("\\u2066x"), std::string::npos);
  EXPECT_NE(message("0001-\xC2\x9B"
                    "31m.sql")
                .find("\\u009b31m"),
            std::string::npos);
  EXPECT_NE(message("0001-a\xE2\x80\x8B"
                    "b.sql")
                .find("a\\u200bb"),
            std::string::npos);
  EXPECT_NE(message("0001-\xFFx.sql").find("\"0001-\xEF\xBF\xBDx.sql\""), std::string::npos);
}

TEST(ClassifyFileNameTest, AVersionedNameWithOtherCharactersIsToldWhichAreAllowed) {
  try {
    classify_file_name("0001-caf\xC3\xA9.sql", ".sql");
    FAIL() << "expected MigrationInvalidNameError";
  } catch (const MigrationInvalidNameError& error) {
    EXPECT_EQ(error.context()["reason"],
              "after the version, only ASCII letters, digits, '.', '_' and '-' are allowed");
  }
}

// Flyway's callbacks are refused as what they are, with the way out; other names are not.
TEST(ClassifyFileNameTest, AFlywayCallbackIsToldApart) {
  for (const char* name : {"afterMigrate.sql", "beforeMigrate.sql", "beforeEachMigrate.sql",
                           "afterMigrate__grants.sql", "createSchema.sql"}) {
    try {
      classify_file_name(name, ".sql");
      ADD_FAILURE() << "expected MigrationInvalidNameError for " << name;
    } catch (const MigrationInvalidNameError& error) {
      const std::string reason = error.context()["reason"];
      EXPECT_NE(reason.find("it is a Flyway callback"), std::string::npos) << name;
      EXPECT_NE(reason.find("move it out of the migrations folder"), std::string::npos) << name;
    }
  }
  for (const char* name : {"after.sql", "aftermigrate.sql", "after_migrate.sql", "beforeX1.sql"}) {
    try {
      classify_file_name(name, ".sql");
      ADD_FAILURE() << "expected MigrationInvalidNameError for " << name;
    } catch (const MigrationInvalidNameError& error) {
      EXPECT_EQ(std::string(error.context()["reason"]).find("Flyway callback"), std::string::npos)
          << name;
    }
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

using Names = std::vector<std::string>;

// The one file `create` names in a migronaut folder holding `existing`.
std::string own_name(std::string_view title, bool sequential, const Names& existing,
                     std::string_view extension = ".sql") {
  const Names names =
      new_migration_files(title, Naming::kMigronaut, sequential, existing, kNow, extension);
  EXPECT_EQ(names.size(), 1u);
  return names.empty() ? "" : names[0];
}

TEST(NewMigrationFilesTest, UsesTheUtcTimestamp) {
  EXPECT_EQ(own_name("Add users", false, {}), "20260102030405-add-users.sql");
}

TEST(NewMigrationFilesTest, MovesPastATakenVersion) {
  EXPECT_EQ(own_name("second", false, {"20260102030405-first.sql"}), "20260102030406-second.sql");
}

TEST(NewMigrationFilesTest, KeepsAnIdenticalNameForTheCallerToRefuse) {
  EXPECT_EQ(own_name("first", false, {"20260102030405-first.sql"}), "20260102030405-first.sql");
}

TEST(NewMigrationFilesTest, SequentialStartsAtOne) {
  EXPECT_EQ(own_name("init", true, {}, ".json"), "0001-init.json");
}

TEST(NewMigrationFilesTest, SequentialFollowsTheHighestVersion) {
  EXPECT_EQ(own_name("next", true, {"0002-b.sql", "0009-c.sql", "0003-a.sql", "README"}),
            "0010-next.sql");
  EXPECT_EQ(own_name("next", true, {"9999-z.sql"}), "10000-next.sql");
  EXPECT_EQ(own_name("next", true, {"7-z.sql", "R-views.sql"}), "0008-next.sql");
}

TEST(NewMigrationFilesTest, DbmateGetsATimestampAndUnderscores) {
  EXPECT_EQ(new_migration_files("Add users", Naming::kDbmate, false,
                                {"20260102030405_create_a.sql"}, kNow, ".sql"),
            Names{"20260102030406_add_users.sql"});
}

TEST(NewMigrationFilesTest, ANumberedDbmateFolderKeepsCounting) {
  EXPECT_EQ(new_migration_files("b", Naming::kDbmate, false, {"001_a.sql"}, kNow, ".sql"),
            Names{"002_b.sql"});
}

TEST(NewMigrationFilesTest, GolangMigrateGetsThePairNumberedPastTheHighest) {
  EXPECT_EQ(new_migration_files("add users", Naming::kGolangMigrate, false,
                                {"2_b.up.sql", "2_b.down.sql", "10_c.up.sql", "1_a.up.sql"}, kNow,
                                ".sql"),
            (Names{"11_add_users.up.sql", "11_add_users.down.sql"}));
}

TEST(NewMigrationFilesTest, GolangMigrateKeepsTheZeroPadding) {
  EXPECT_EQ(new_migration_files("next", Naming::kGolangMigrate, false,
                                {"000009_a.up.sql", "000009_a.down.sql"}, kNow, ".sql"),
            (Names{"000010_next.up.sql", "000010_next.down.sql"}));
}

TEST(NewMigrationFilesTest, GolangMigrateTimestampFoldersGetATimestamp) {
  EXPECT_EQ(new_migration_files("next", Naming::kGolangMigrate, false, {"20250101000000_a.up.sql"},
                                kNow, ".sql")
                .front(),
            "20260102030405_next.up.sql");
}

TEST(NewMigrationFilesTest, FlywayGetsTheNextMajorVersion) {
  EXPECT_EQ(
      new_migration_files("Add users", Naming::kFlyway, false,
                          {"V1__a.sql", "V3__c.sql", "V2.5__b.sql", "U3__c.sql", "R__views.sql"},
                          kNow, ".sql"),
      Names{"V4__add_users.sql"});
  EXPECT_EQ(
      new_migration_files("x", Naming::kFlyway, false, {"V3.1__a.sql", "V10__b.sql"}, kNow, ".sql"),
      Names{"V11__x.sql"});
  EXPECT_EQ(new_migration_files("x", Naming::kFlyway, false, {"R__views.sql"}, kNow, ".sql"),
            Names{"V1__x.sql"});
}

}  // namespace
}  // namespace migronaut

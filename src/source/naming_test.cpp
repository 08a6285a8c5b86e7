#include "source/naming.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

struct Case {
  const char* name;
  Naming naming;
  FileRole role;
  const char* version;
  const char* title;
};

TEST(ParseFileNameTest, RecognisesEveryNaming) {
  for (const Case& c : {
           Case{"20260101120000-add-users.sql", Naming::kMigronaut, FileRole::kWhole,
                "20260101120000", "add-users"},
           Case{"R-views.sql", Naming::kMigronaut, FileRole::kRepeatable, "", "views"},
           Case{"20260101120000_add_users.sql", Naming::kDbmate, FileRole::kWhole, "20260101120000",
                "add_users"},
           Case{"1_init.up.sql", Naming::kGolangMigrate, FileRole::kUp, "1", "init"},
           Case{"0002_add.users.down.sql", Naming::kGolangMigrate, FileRole::kDown, "0002",
                "add.users"},
           Case{"V1__init.sql", Naming::kFlyway, FileRole::kWhole, "1", "init"},
           Case{"V1.2.3__add_users.sql", Naming::kFlyway, FileRole::kWhole, "1.2.3", "add_users"},
           Case{"V2_1__split.sql", Naming::kFlyway, FileRole::kWhole, "2.1", "split"},
           Case{"U1.2__add_users.sql", Naming::kFlyway, FileRole::kDown, "1.2", "add_users"},
           Case{"R__views.sql", Naming::kFlyway, FileRole::kRepeatable, "", "views"},
       }) {
    const std::optional<FileName> parsed = parse_file_name(c.name, ".sql");
    ASSERT_TRUE(parsed.has_value()) << c.name;
    EXPECT_EQ(parsed->naming, c.naming) << c.name;
    EXPECT_EQ(parsed->role, c.role) << c.name;
    EXPECT_EQ(parsed->version, c.version) << c.name;
    EXPECT_EQ(parsed->title, c.title) << c.name;
  }
}

TEST(ParseFileNameTest, RefusesNamesOfNoNaming) {
  for (const char* name :
       {"users.sql", "_users.sql", "1.sql", "V__x.sql", "V1_x.sql", "V1..2__x.sql", "V1.__x.sql",
        "X1__x.sql", "R_x.sql", "1-with space.sql", "v1__x.sql", "1-a.json"}) {
    EXPECT_FALSE(parse_file_name(name, ".sql").has_value()) << name;
  }
}

TEST(ParseFileNameTest, JsonFoldersKnowOnlyMigronautsNaming) {
  EXPECT_TRUE(parse_file_name("0001-users.json", ".json").has_value());
  EXPECT_TRUE(parse_file_name("R-users.json", ".json").has_value());
  EXPECT_FALSE(parse_file_name("0001_users.json", ".json").has_value());
  EXPECT_FALSE(parse_file_name("V1__users.json", ".json").has_value());
}

// A near miss starts as a migration of the folder's kind does, whatever its end; a name that does
// not start so is nobody's migration.
TEST(StartsLikeMigrationTest, KnowsTheVersionsOfTheFoldersNamings) {
  for (const char* name :
       {"3-add-index.sql.txt", "3_add_index.psql", "20260101120000_x", "V3__add.sq", "V1.2__a.SQL~",
        "U3__undo.txt", "R__views.pgsql", "R-views.sql.bak"}) {
    EXPECT_TRUE(starts_like_migration(name, ".sql")) << name;
  }
  for (const char* name : {"README.md", "3.sql.txt", "3-", "3_", "2024", "-3_x", "_3_x",
                           "V3_add.txt", "v3__add.txt", "V__x.txt", "Vx__y.txt", "R__", "R-",
                           "RR__x.txt", "X3__x.txt", "#3_x.sql#", "schema.sql.bak"}) {
    EXPECT_FALSE(starts_like_migration(name, ".sql")) << name;
  }
  EXPECT_TRUE(starts_like_migration("0001-users.js", ".json"));
  EXPECT_TRUE(starts_like_migration("R-users.sql", ".json"));
  EXPECT_FALSE(starts_like_migration("0001_users.sql", ".json"));
  EXPECT_FALSE(starts_like_migration("V1__users.sql", ".json"));
}

TEST(ParseRecordNameTest, AcceptsOtherToolsNamesWhateverTheExtension) {
  EXPECT_EQ(parse_record_name("20260101120000_users.js")->version, "20260101120000");
  EXPECT_EQ(parse_record_name("1700000000000_create-users")->version, "1700000000000");
  EXPECT_EQ(parse_record_name("V1.2__users.sql")->version, "1.2");
  EXPECT_EQ(parse_record_name("R__views.sql")->role, FileRole::kRepeatable);
  EXPECT_FALSE(parse_record_name("users.js").has_value());
}

}  // namespace
}  // namespace migronaut

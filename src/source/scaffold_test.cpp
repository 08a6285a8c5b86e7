#include "source/scaffold.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "migronaut/errors.hpp"
#include "source/migration_set.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using std::chrono::system_clock;

// 2026-01-02 03:04:05 UTC.
const system_clock::time_point kNow = system_clock::from_time_t(1767323045);

std::string content_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

class ScaffoldTest : public ::testing::Test {
 protected:
  // The one file `create` writes into `folder`.
  std::filesystem::path create_one(const std::filesystem::path& folder, std::string_view title,
                                   bool sequential = false,
                                   const std::filesystem::path& template_path = {},
                                   std::string_view extension = ".sql") {
    const std::vector<std::filesystem::path> paths =
        create_migration_files(folder, title, sequential, template_path, extension, kNow);
    EXPECT_EQ(paths.size(), 1u);
    return paths.empty() ? std::filesystem::path() : paths[0];
  }

  testing::TempDir dir_;
};

TEST_F(ScaffoldTest, WritesTheDefaultSqlTemplateIntoANewFolder) {
  const auto folder = dir_.path() / "db" / "migrations";
  const auto path = create_one(folder, "Add users");
  EXPECT_EQ(path, folder / "20260102030405-add-users.sql");
  EXPECT_EQ(content_of(path), "-- migrate:up\n\n-- migrate:down\n");
}

TEST_F(ScaffoldTest, DefaultJsonTemplateIsAnObjectWithUpAndDown) {
  const auto path = create_one(dir_.path(), "index", false, {}, ".json");
  const nlohmann::json skeleton = nlohmann::json::parse(content_of(path));
  EXPECT_TRUE(skeleton["up"].is_array());
  EXPECT_TRUE(skeleton["down"].is_array());
}

TEST_F(ScaffoldTest, UsesTheTemplateFile) {
  const auto template_path = dir_.write("template.sql", "-- migrate:up\n-- TODO\n");
  const auto path = create_one(dir_.path() / "m", "x", false, template_path);
  EXPECT_EQ(content_of(path), "-- migrate:up\n-- TODO\n");
}

TEST_F(ScaffoldTest, MissingTemplateIsAConfigError) {
  EXPECT_THROW(
      create_migration_files(dir_.path(), "x", false, dir_.path() / "nope.sql", ".sql", kNow),
      ConfigInvalidError);
}

TEST_F(ScaffoldTest, SequentialNumbersFollowTheFolder) {
  dir_.write("0001-first.sql", "x");
  const auto path = create_one(dir_.path(), "second", true);
  EXPECT_EQ(path.filename(), "0002-second.sql");
}

TEST_F(ScaffoldTest, RefusesToOverwrite) {
  dir_.write("20260102030405-users.sql", "keep me");
  EXPECT_THROW(create_migration_files(dir_.path(), "users", false, {}, ".sql", kNow),
               MigrationFileExistsError);
  EXPECT_EQ(content_of(dir_.path() / "20260102030405-users.sql"), "keep me");
}

TEST_F(ScaffoldTest, CreatedNamesLoadWithoutVersionClashes) {
  for (const char* title : {"one", "two", "three"}) {
    const auto path = create_one(dir_.path(), title);
    std::ofstream(path) << "-- migrate:up\nSELECT 1;\n";
  }
  EXPECT_EQ(load_migrations(dir_.path(), ".sql").size(), 3u);
}

TEST_F(ScaffoldTest, ADbmateFolderGetsADbmateFileWithSections) {
  dir_.write("20250101000000_create_a.sql", "-- migrate:up\nSELECT 1;\n");
  const auto path = create_one(dir_.path(), "Add users");
  EXPECT_EQ(path.filename(), "20260102030405_add_users.sql");
  EXPECT_EQ(content_of(path), "-- migrate:up\n\n-- migrate:down\n");
}

// sql-migrate's folder: its next file in the commands of its newest (by version, not name),
// numbered on, which both tools read.
TEST_F(ScaffoldTest, ASqlMigrateFolderGetsSqlMigratesCommands) {
  dir_.write("9_create_a.sql", "-- migrate:up\nSELECT 1;\n");
  dir_.write("10_create_b.sql", "-- +migrate Up\nSELECT 1;\n-- +migrate Down\nSELECT 2;\n");
  const auto path = create_one(dir_.path(), "Add users", /*sequential=*/true);
  EXPECT_EQ(path.filename(), "11_add_users.sql");
  EXPECT_EQ(content_of(path), "-- +migrate Up\n\n-- +migrate Down\n");
  EXPECT_EQ(load_migrations(dir_.path(), ".sql").size(), 3u);
}

TEST_F(ScaffoldTest, AGolangMigrateFolderGetsAnEmptyPairThatLoadsAsEmpty) {
  dir_.write("0001_a.up.sql", "SELECT 1;");
  dir_.write("0001_a.down.sql", "SELECT 2;");
  const auto paths = create_migration_files(dir_.path(), "add users", false, {}, ".sql", kNow);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].filename(), "0002_add_users.up.sql");
  EXPECT_EQ(paths[1].filename(), "0002_add_users.down.sql");
  EXPECT_EQ(content_of(paths[0]), "");
  const std::vector<Migration> loaded = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[1].name, "0002_add_users.up.sql");
  EXPECT_TRUE(loaded[1].up_empty);
  EXPECT_FALSE(loaded[0].up_empty);
}

TEST_F(ScaffoldTest, AGolangMigratePairNeverOverwrites) {
  dir_.write("20260102030405_b.up.sql", "keep me");
  EXPECT_THROW(create_migration_files(dir_.path(), "b", false, {}, ".sql", kNow),
               MigrationFileExistsError);
  EXPECT_EQ(content_of(dir_.path() / "20260102030405_b.up.sql"), "keep me");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "20260102030405_b.down.sql"));
}

TEST_F(ScaffoldTest, AFlywayFolderGetsTheNextMajorVersionWithTheTemplate) {
  dir_.write("V1__a.sql", "SELECT 1;");
  dir_.write("V3.2__c.sql", "SELECT 3;");
  const auto template_path = dir_.write("templates/flyway.sql", "-- TODO\n");
  const auto path = create_one(dir_.path(), "add users", false, template_path);
  EXPECT_EQ(path.filename(), "V4__add_users.sql");
  EXPECT_EQ(content_of(path), "-- TODO\n");
}

TEST_F(ScaffoldTest, AMixedFolderIsRefusedNamingTheOddFile) {
  dir_.write("V1__a.sql", "SELECT 1;");
  dir_.write("V2__b.sql", "SELECT 1;");
  dir_.write("20250101000000-c.sql", "-- migrate:up\nSELECT 1;\n");
  try {
    create_migration_files(dir_.path(), "d", false, {}, ".sql", kNow);
    FAIL() << "expected MigrationInvalidNameError";
  } catch (const MigrationInvalidNameError& error) {
    EXPECT_NE(std::string(error.what()).find("20250101000000-c.sql"), std::string::npos);
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_.path()), {}), 3);
}

}  // namespace
}  // namespace migronaut

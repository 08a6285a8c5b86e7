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
  testing::TempDir dir_;
};

TEST_F(ScaffoldTest, WritesTheDefaultSqlTemplateIntoANewFolder) {
  const auto folder = dir_.path() / "db" / "migrations";
  const auto path = create_migration_file(folder, "Add users", false, {}, ".sql", kNow);
  EXPECT_EQ(path, folder / "20260102030405-add-users.sql");
  EXPECT_EQ(content_of(path), "-- migrate:up\n\n-- migrate:down\n");
}

TEST_F(ScaffoldTest, DefaultJsonTemplateIsAnObjectWithUpAndDown) {
  const auto path = create_migration_file(dir_.path(), "index", false, {}, ".json", kNow);
  const nlohmann::json skeleton = nlohmann::json::parse(content_of(path));
  EXPECT_TRUE(skeleton["up"].is_array());
  EXPECT_TRUE(skeleton["down"].is_array());
}

TEST_F(ScaffoldTest, UsesTheTemplateFile) {
  const auto template_path = dir_.write("template.sql", "-- migrate:up\n-- TODO\n");
  const auto path =
      create_migration_file(dir_.path() / "m", "x", false, template_path, ".sql", kNow);
  EXPECT_EQ(content_of(path), "-- migrate:up\n-- TODO\n");
}

TEST_F(ScaffoldTest, MissingTemplateIsAConfigError) {
  EXPECT_THROW(
      create_migration_file(dir_.path(), "x", false, dir_.path() / "nope.sql", ".sql", kNow),
      ConfigInvalidError);
}

TEST_F(ScaffoldTest, SequentialNumbersFollowTheFolder) {
  dir_.write("0001-first.sql", "x");
  const auto path = create_migration_file(dir_.path(), "second", true, {}, ".sql", kNow);
  EXPECT_EQ(path.filename(), "0002-second.sql");
}

TEST_F(ScaffoldTest, RefusesToOverwrite) {
  dir_.write("20260102030405-users.sql", "keep me");
  EXPECT_THROW(create_migration_file(dir_.path(), "users", false, {}, ".sql", kNow),
               MigrationFileExistsError);
  EXPECT_EQ(content_of(dir_.path() / "20260102030405-users.sql"), "keep me");
}

TEST_F(ScaffoldTest, CreatedNamesLoadWithoutVersionClashes) {
  for (const char* title : {"one", "two", "three"}) {
    const auto path = create_migration_file(dir_.path(), title, false, {}, ".sql", kNow);
    std::ofstream(path) << "-- migrate:up\nSELECT 1;\n";
  }
  EXPECT_EQ(load_migrations(dir_.path(), ".sql").size(), 3u);
}

}  // namespace
}  // namespace migronaut

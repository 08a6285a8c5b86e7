// examples/embed, as built against the installed package (package_test.cmake): a service that
// migrates at boot comes up alone and as five copies started at once, and every migration runs
// exactly once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using ::testing::HasSubstr;
using testing::Process;
using testing::ProcessResult;
using testing::TempDir;

const std::vector<std::string> kMigrations = {
    "20260101090000-create-migration-log", "20260101090100-create-widgets",
    "20260101090200-seed-widgets", "20260101090300-add-widget-color"};

std::string example_binary() {
  const char* path = std::getenv("MIGRONAUT_EMBED_EXAMPLE");
  return path != nullptr ? path : "";
}

// name → value of the first two columns of each row `sql` returns.
std::map<std::string, std::string> query(const std::filesystem::path& database,
                                         const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
  std::map<std::string, std::string> rows;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    rows[reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))] =
        reinterpret_cast<const char*>(sqlite3_column_text(statement, 1));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return rows;
}

// Every migration ran once (the service's own log) and is recorded applied once.
void expect_migrated_once(const std::filesystem::path& database) {
  const auto runs =
      query(database, "SELECT name, count(*) FROM migration_log GROUP BY name ORDER BY name");
  const auto records = query(database, "SELECT name, status FROM _migronaut_migrations");
  ASSERT_EQ(runs.size(), kMigrations.size());
  ASSERT_EQ(records.size(), kMigrations.size());
  for (const std::string& name : kMigrations) {
    EXPECT_EQ(runs.count(name) == 1 ? runs.at(name) : "", "1") << name;
    const std::string record = name.ends_with("seed-widgets") ? name : name + ".sql";
    EXPECT_EQ(records.count(record) == 1 ? records.at(record) : "", "applied") << record;
  }
  EXPECT_EQ(query(database, "SELECT 'locks', count(*) FROM _migronaut_locks")["locks"], "0");
}

class EmbedExampleTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(example_binary().empty()) << "MIGRONAUT_EMBED_EXAMPLE"; }
  TempDir dir_{"migronaut-embed"};
};

TEST_F(EmbedExampleTest, MigratesAtBootThenFindsNothingPending) {
  const std::string database = dir_.file("app.db").string();
  Process first({example_binary(), database, "0"});
  const ProcessResult booted = first.wait();
  ASSERT_EQ(booted.exit_code, 0) << booted.err;
  EXPECT_THAT(booted.out, HasSubstr("migrated applied=4 "));
  EXPECT_THAT(booted.out, HasSubstr("ready " + std::to_string(first.pid())));

  Process again({example_binary(), database, "0"});
  const ProcessResult rebooted = again.wait();
  ASSERT_EQ(rebooted.exit_code, 0) << rebooted.err;
  EXPECT_THAT(rebooted.out, HasSubstr("migrated applied=0 waited=0 up_to_date=1"));
  expect_migrated_once(database);
}

TEST_F(EmbedExampleTest, FiveCopiesBootAtOnceAndMigrateOnce) {
  const std::string database = dir_.file("app.db").string();
  std::vector<std::unique_ptr<Process>> copies;
  for (int i = 0; i < 5; ++i) {
    copies.push_back(
        std::make_unique<Process>(std::vector<std::string>{example_binary(), database, "200"}));
  }
  int applied = 0;
  for (auto& copy : copies) {
    const ProcessResult result = copy->wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("ready " + std::to_string(copy->pid())));
    EXPECT_THAT(result.out, HasSubstr("stopped"));
    if (result.out.find("migrated applied=4 ") != std::string::npos) ++applied;
  }
  EXPECT_EQ(applied, 1);
  expect_migrated_once(database);
}

}  // namespace
}  // namespace migronaut

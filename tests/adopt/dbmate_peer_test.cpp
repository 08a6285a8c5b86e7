// The real dbmate binary (npm's Go build) applies a folder; `migronaut import --from dbmate`
// adopts that database without running anything, and migronaut carries on from there. Skipped,
// with the reason, when npm could not install dbmate here.
#include <gtest/gtest.h>

#include <fstream>

#include "adopt/adopted.hpp"

namespace migronaut::testing {
namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// dbmate's binary, or why it is not there.
std::filesystem::path dbmate_binary(std::string& why_not) {
  const char* dir = MIGRONAUT_NPM_DIR;  // where the npm_peers_install fixture installs
  const std::filesystem::path binary =
      std::filesystem::path(dir) / "node_modules/@dbmate/linux-x64/bin/dbmate";
  if (std::filesystem::exists(binary)) return binary;
  why_not = read_text(std::filesystem::path(dir) / "unavailable.txt");
  if (why_not.empty()) why_not = "dbmate is not installed in " + std::string(dir);
  return {};
}

constexpr const char* kUsers = R"(-- migrate:up
CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL);
-- migrate:down
DROP TABLE users;
)";
constexpr const char* kOrders = R"(-- migrate:up
CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users);
-- migrate:down
DROP TABLE orders;
)";
constexpr const char* kInvoices = R"(-- migrate:up
CREATE TABLE invoices (id INTEGER PRIMARY KEY);
-- migrate:down
DROP TABLE invoices;
)";

class DbmatePeerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    dbmate_ = dbmate_binary(why_not);
    if (dbmate_.empty()) GTEST_SKIP() << "dbmate unavailable: " << why_not;
  }
  // `dbmate up` of the project's folder, as a host still running dbmate makes it.
  ProcessResult dbmate_up(const std::string& table = "schema_migrations") const {
    return Process({dbmate_.string(), "--migrations-dir", project.migrations().string(),
                    "--migrations-table", table, "--no-dump-schema", "up"},
                   {{"DATABASE_URL", "sqlite:" + project.db_path().string()}}, project.cwd())
        .wait();
  }
  // users, applied by dbmate, then adopted by migronaut.
  void adopt_users() {
    project.write_migration("20260101120000_create_users.sql", kUsers);
    ASSERT_EQ(dbmate_up().exit_code, 0);
    ASSERT_EQ(project.run({"import", "--from", "dbmate"}).exit_code, 0);
  }

  // `up` refuses to run `name`, which dbmate applied, a second time (exit 24, naming it) and
  // leaves the database as dbmate left it; `import --force` records it, and `up` runs nothing.
  void expect_refused_until_imported(const std::string& name) {
    const std::string as_dbmate_left_it = dump_database(project.db_path());
    const ProcessResult refused = project.run({"up"});
    EXPECT_EQ(refused.exit_code, 24) << describe(refused);
    EXPECT_NE(refused.err.find(name), std::string::npos) << refused.err;
    EXPECT_EQ(dump_database(project.db_path()), as_dbmate_left_it);

    ASSERT_EQ(project.run({"import", "--from", "dbmate", "--force"}).exit_code, 0);
    const std::string imported = dump_database(project.db_path());
    const ProcessResult nothing = project.run({"up"});
    EXPECT_EQ(nothing.exit_code, 0) << describe(nothing);
    EXPECT_EQ(dump_database(project.db_path()), imported);
    EXPECT_EQ(project.statuses()[name], "applied");
  }

  SqliteProject project;

 private:
  std::filesystem::path dbmate_;
};

TEST_F(DbmatePeerTest, ADatabaseDbmateAppliedIsAdoptedAndCarriedOn) {
  project.write_migration("20260101120000_create_users.sql", kUsers);
  project.write_migration("20260102120000_create_orders.sql", kOrders);
  const ProcessResult applied = dbmate_up();
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  ASSERT_EQ(project.open().value("SELECT count(*) FROM schema_migrations"), "2");

  const ProcessResult imported = project.run({"import", "--from", "dbmate"});
  ASSERT_EQ(imported.exit_code, 0) << describe(imported);
  SqliteDb db = project.open();
  EXPECT_EQ(db.value("SELECT group_concat(version, ',') FROM schema_migrations"),
            "20260101120000,20260102120000");  // dbmate's table untouched

  // dbmate keeps no time of its own: the import stamps the database's time.
  expect_adopted(project, 2, "dbmate");

  const std::string before_up = dump_database(project.db_path());
  const ProcessResult nothing = project.run({"up"});
  EXPECT_EQ(nothing.exit_code, 0) << describe(nothing);
  EXPECT_EQ(dump_database(project.db_path()), before_up);  // nothing ran, nothing written

  project.write_migration("20260103120000_create_invoices.sql", kInvoices);
  const ProcessResult next = project.run({"up"});
  EXPECT_EQ(next.exit_code, 0) << describe(next);
  EXPECT_TRUE(project.open().has_table("invoices"));
  EXPECT_EQ(project.statuses()["20260103120000_create_invoices.sql"], "applied");
}

// dbmate ran with --migrations-table: the configuration names that table (importFrom,
// importTable), so a first `up` is refused as over dbmate's default table, with the database left
// as dbmate left it, and a bare `import` adopts it.
TEST_F(DbmatePeerTest, AHistoryUnderTheConfiguredTableIsRefusedUntilImported) {
  project.write_migration("20260101120000_create_users.sql", kUsers);
  project.write_migration("20260102120000_create_orders.sql", kOrders);
  const ProcessResult applied = dbmate_up("app_migrations");
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  std::ofstream(project.cwd() / "migronaut.config.json")
      << R"({"importFrom": "dbmate", "importTable": "app_migrations"})";

  const std::string as_dbmate_left_it = project.dump();
  const ProcessResult refused = project.run({"up"});
  EXPECT_EQ(refused.exit_code, 24) << describe(refused);
  EXPECT_NE(refused.err.find("app_migrations"), std::string::npos) << refused.err;
  EXPECT_EQ(project.dump(), as_dbmate_left_it);

  const ProcessResult imported = project.run({"import"});
  ASSERT_EQ(imported.exit_code, 0) << describe(imported);
  expect_adopted(project, 2, "dbmate");

  project.write_migration("20260103120000_create_invoices.sql", kInvoices);
  const ProcessResult next = project.run({"up"});
  EXPECT_EQ(next.exit_code, 0) << describe(next);
  EXPECT_TRUE(project.open().has_table("invoices"));
  EXPECT_EQ(project.statuses().size(), 3u);
}

// A host still running dbmate after the import applies the next migration: migronaut's `up`
// refuses to run it again (exit 24, naming it) and leaves the database as dbmate left it, until
// `import --force` records it; then `up` has nothing to do.
TEST_F(DbmatePeerTest, WhatDbmateAppliesAfterTheImportIsNotAppliedAgain) {
  adopt_users();
  project.write_migration("20260102120000_create_orders.sql", kOrders);
  const ProcessResult applied = dbmate_up();
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  ASSERT_TRUE(project.open().has_table("orders"));

  expect_refused_until_imported("20260102120000_create_orders.sql");
}

// migronaut applies a migration and rolls it back; a host still running dbmate then applies it
// (dbmate's table never saw migronaut's run). migronaut's `up` refuses to run it a second time,
// and `import --force` records it as dbmate's.
TEST_F(DbmatePeerTest, WhatDbmateAppliesAfterMigronautRevertedItIsNotAppliedAgain) {
  adopt_users();
  project.write_migration("20260102120000_create_orders.sql",
                          "-- migrate:up\nCREATE TABLE orders (id INTEGER);\n"
                          "INSERT INTO users (email) VALUES ('order-run');\n"
                          "-- migrate:down\nDROP TABLE orders;\n");
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  ASSERT_EQ(project.run({"down"}).exit_code, 0);
  const ProcessResult applied = dbmate_up();
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  const auto runs = [&] {
    return project.open().value("SELECT count(*) FROM users WHERE email = 'order-run'");
  };
  ASSERT_EQ(runs(), "2");  // migronaut's up, then dbmate's

  expect_refused_until_imported("20260102120000_create_orders.sql");
  EXPECT_EQ(runs(), "2");
}

}  // namespace
}  // namespace migronaut::testing

// The real sql-migrate binary (Debian's) applies a folder of its own files; migronaut reads
// those files as they are, `import --from sql-migrate` adopts the database without running
// anything, and migronaut carries on from there. Skipped, with the reason, when sql-migrate is not
// installed (scripts/install-deps test installs it).
#include <gtest/gtest.h>

#include <fstream>

#include "adopt/adopted.hpp"

namespace migronaut::testing {
namespace {

constexpr const char* kSqlMigrate = "/usr/bin/sql-migrate";

// A table and a trigger whose body holds a ';', which sql-migrate's splitter needs told.
constexpr const char* kUsers = R"(-- +migrate Up
CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL);
CREATE TABLE audit (email TEXT);
-- +migrate StatementBegin
CREATE TRIGGER users_audit AFTER INSERT ON users BEGIN
  INSERT INTO audit VALUES (new.email);
END;
-- +migrate StatementEnd

-- +migrate Down
DROP TABLE audit;
DROP TABLE users;
)";
constexpr const char* kOrders = R"(-- +migrate Up notransaction
CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users);
-- +migrate Down
DROP TABLE orders;
)";
constexpr const char* kInvoices = R"(-- +migrate Up
CREATE TABLE invoices (id INTEGER PRIMARY KEY);
-- +migrate Down
DROP TABLE invoices;
)";

class SqlMigratePeerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kSqlMigrate)) {
      GTEST_SKIP() << kSqlMigrate << " is not installed (scripts/install-deps test)";
    }
    configure_sql_migrate("");
  }
  // sql-migrate's dbconfig.yml for the project, with its history in `table` ("": its default).
  void configure_sql_migrate(const std::string& table) const {
    std::ofstream(project.cwd() / "dbconfig.yml")
        << "development:\n  dialect: sqlite3\n  datasource: " << project.db_path().string()
        << "\n  dir: " << project.migrations().string() << "\n"
        << (table.empty() ? "" : "  table: " + table + "\n");
  }
  // `sql-migrate up` of the project's folder, as a host still running sql-migrate makes it.
  ProcessResult sql_migrate_up() const {
    return Process({kSqlMigrate, "up"}, {}, project.cwd()).wait();
  }

  SqliteProject project;
};

TEST_F(SqlMigratePeerTest, ADatabaseSqlMigrateAppliedIsAdoptedAndCarriedOn) {
  project.write_migration("1_create_users.sql", kUsers);
  project.write_migration("2_create_orders.sql", kOrders);
  const ProcessResult applied = sql_migrate_up();
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  const std::string as_sql_migrate_left_it = project.dump();

  // Before the import, `up` would run both again: refused, naming the tool, nothing written.
  const ProcessResult refused = project.run({"up"});
  EXPECT_EQ(refused.exit_code, 24) << describe(refused);
  EXPECT_NE(refused.err.find("sql-migrate"), std::string::npos) << refused.err;
  EXPECT_EQ(project.dump(), as_sql_migrate_left_it);

  const ProcessResult imported = project.run({"import", "--from", "sql-migrate"});
  ASSERT_EQ(imported.exit_code, 0) << describe(imported);
  EXPECT_EQ(project.open().value("SELECT group_concat(id, ',') FROM gorp_migrations"),
            "1_create_users.sql,2_create_orders.sql");  // sql-migrate's table untouched
  expect_adopted(project, 2, "sql-migrate");

  const std::string before_up = project.dump();
  const ProcessResult nothing = project.run({"up"});
  EXPECT_EQ(nothing.exit_code, 0) << describe(nothing);
  EXPECT_EQ(project.dump(), before_up);  // nothing ran, nothing written

  project.write_migration("3_create_invoices.sql", kInvoices);
  const ProcessResult next = project.run({"up"});
  EXPECT_EQ(next.exit_code, 0) << describe(next);
  EXPECT_TRUE(project.open().has_table("invoices"));
  EXPECT_EQ(project.statuses()["3_create_invoices.sql"], "applied");

  // The Down sections revert as sql-migrate's would: the last migration, then the imported ones.
  ASSERT_EQ(project.run({"down"}).exit_code, 0);
  EXPECT_FALSE(project.open().has_table("invoices"));
  ASSERT_EQ(project.run({"down", "--to", "1"}).exit_code, 0);
  SqliteDb reverted = project.open();
  EXPECT_FALSE(reverted.has_table("orders"));
  EXPECT_TRUE(reverted.has_table("users"));
}

// sql-migrate writes each time as text in its host's zone, so text order is not time order: a
// host in India applied the first migration at 03:04:05.678 UTC, one in UTC the second 0.3 s
// later. The import keeps each time, rounded to the millisecond, and batches them in the
// order they ran, so that `down` reverts the second.
TEST_F(SqlMigratePeerTest, TimesWrittenInOtherZonesKeepTheirOrder) {
  project.write_migration("1_create_users.sql", kUsers);
  project.write_migration("2_create_orders.sql", kOrders);
  ASSERT_EQ(sql_migrate_up().exit_code, 0);
  SqliteDb db = project.open();
  db.exec(
      "UPDATE gorp_migrations SET applied_at = '2025-01-02 08:34:05.678901234+05:30'"
      " WHERE id = '1_create_users.sql'");
  db.exec(
      "UPDATE gorp_migrations SET applied_at = '2025-01-02 03:04:05.978000000+00:00'"
      " WHERE id = '2_create_orders.sql'");
  const ProcessResult imported = project.run({"import", "--from", "sql-migrate"});
  ASSERT_EQ(imported.exit_code, 0) << describe(imported);
  EXPECT_EQ(db.value("SELECT group_concat(name || '@' || applied_at || '#' || batch, ',') FROM"
                     " (SELECT * FROM _migronaut_migrations ORDER BY name)"),
            "1_create_users.sql@1735787045679#1,2_create_orders.sql@1735787045978#2");
  ASSERT_EQ(project.run({"down"}).exit_code, 0);
  EXPECT_FALSE(project.open().has_table("orders"));
  EXPECT_TRUE(project.open().has_table("users"));
}

// sql-migrate configured with another table (dbconfig.yml's `table:`): the import says where it
// looked and how to name the table, writes nothing, and with --table adopts it.
TEST_F(SqlMigratePeerTest, AHistoryUnderAnotherTableIsImportedByName) {
  configure_sql_migrate("app_migrations");
  project.write_migration("1_create_users.sql", kUsers);
  ASSERT_EQ(sql_migrate_up().exit_code, 0);
  ASSERT_TRUE(project.open().has_table("app_migrations"));
  const std::string before = project.dump();
  const ProcessResult missed = project.run({"import", "--from", "sql-migrate"});
  EXPECT_EQ(missed.exit_code, 6) << describe(missed);
  EXPECT_NE(missed.err.find("No sql-migrate history in sqlite:" + project.db_path().string() +
                            ": it has no table gorp_migrations (if sql-migrate was configured "
                            "with another table, name that with --table or importTable)"),
            std::string::npos)
      << missed.err;
  const ProcessResult bad =
      project.run({"import", "--from", "sql-migrate", "--table", "app_migrations; DROP"});
  EXPECT_EQ(bad.exit_code, 6) << describe(bad);
  EXPECT_NE(bad.err.find("import --table 'app_migrations; DROP'"), std::string::npos) << bad.err;
  EXPECT_EQ(project.dump(), before);

  const ProcessResult imported =
      project.run({"import", "--from", "sql-migrate", "--table", "app_migrations"});
  ASSERT_EQ(imported.exit_code, 0) << describe(imported);
  EXPECT_EQ(project.statuses()["1_create_users.sql"], "applied");
  const std::string adopted = project.dump();
  EXPECT_EQ(project.run({"up"}).exit_code, 0);
  EXPECT_EQ(project.dump(), adopted);  // nothing ran again
}

// The trigger sql-migrate kept whole between StatementBegin and StatementEnd runs whole under
// migronaut too, and a file sql-migrate would read otherwise is refused before anything runs.
TEST_F(SqlMigratePeerTest, MigronautRunsSqlMigrateFilesAsSqlMigrateDoes) {
  project.write_migration("1_create_users.sql", kUsers);
  const ProcessResult applied = project.run({"up"});
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  SqliteDb db = project.open();
  db.exec("INSERT INTO users (email) VALUES ('a@example.com')");
  EXPECT_EQ(db.value("SELECT email FROM audit"), "a@example.com");

  // "-- +migrate down": sql-migrate skips it, and would run the DROP as part of the up.
  project.write_migration("2_create_orders.sql",
                          "-- +migrate Up\nCREATE TABLE orders (id INTEGER);\n"
                          "-- +migrate down\nDROP TABLE users;\n");
  const std::string before = project.dump();
  const ProcessResult refused = project.run({"up"});
  EXPECT_NE(refused.exit_code, 0) << describe(refused);
  EXPECT_NE(refused.err.find("2_create_orders.sql at line 3: unknown sql-migrate command 'down'"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(project.dump(), before);
}

}  // namespace
}  // namespace migronaut::testing

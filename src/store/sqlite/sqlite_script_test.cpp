#include "store/sqlite/sqlite_script.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(SqliteScriptTest, RefusesTransactionControl) {
  for (const char* control :
       {"BEGIN", "BEGIN IMMEDIATE", "COMMIT", "END TRANSACTION", "ROLLBACK"}) {
    const std::optional<SqliteConflict> conflict =
        sqlite_transaction_conflict(std::string("CREATE TABLE t (a);\n  ") + control + ";");
    ASSERT_TRUE(conflict.has_value()) << control;
    EXPECT_EQ(conflict->rule, "transaction-nesting");
    EXPECT_EQ(conflict->offset, std::string("CREATE TABLE t (a);\n  ").size()) << control;
  }
}

TEST(SqliteScriptTest, AllowsSavepointsTheScriptOpens) {
  EXPECT_FALSE(sqlite_transaction_conflict("SAVEPOINT a; ROLLBACK TO a; RELEASE A;").has_value());
  const std::optional<SqliteConflict> misuse =
      sqlite_transaction_conflict("SAVEPOINT a; RELEASE a; RELEASE SAVEPOINT a;");
  ASSERT_TRUE(misuse.has_value());
  EXPECT_EQ(misuse->rule, "transaction-nesting");
  EXPECT_EQ(misuse->offset, std::string("SAVEPOINT a; RELEASE a; ").size());
}

TEST(SqliteScriptTest, RefusesVacuum) {
  const std::optional<SqliteConflict> conflict = sqlite_transaction_conflict("-- tidy up\nVACUUM;");
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(conflict->rule, "transaction-incompatible");
  EXPECT_EQ(conflict->offset, std::string("-- tidy up\n").size());
  EXPECT_EQ(conflict->statement, "VACUUM");
}

// SQLite ignores PRAGMA foreign_keys in a transaction: a table rebuild would run with the
// checks on. Setting it is refused there; reading it is not.
TEST(SqliteScriptTest, RefusesSettingForeignKeys) {
  for (const char* setting :
       {"PRAGMA foreign_keys=OFF", "pragma main.FOREIGN_KEYS = 0", "PRAGMA foreign_keys(false)"}) {
    const std::optional<SqliteConflict> conflict =
        sqlite_transaction_conflict(std::string("CREATE TABLE t (a);\n") + setting + ";");
    ASSERT_TRUE(conflict.has_value()) << setting;
    EXPECT_EQ(conflict->statement, setting);
    EXPECT_EQ(conflict->offset, 20u);
    EXPECT_EQ(conflict->rule, "transaction-incompatible");
  }
  EXPECT_FALSE(sqlite_transaction_conflict(
      "PRAGMA foreign_keys; PRAGMA foreign_key_check; PRAGMA defer_foreign_keys = ON;"));
  EXPECT_TRUE(sqlite_runs_only_outside_transaction("PRAGMA foreign_keys = OFF;"));
}

TEST(SqliteScriptTest, RunsOnlyOutsideATransactionWhatIsAllVacuum) {
  EXPECT_TRUE(sqlite_runs_only_outside_transaction("-- tidy up\nVACUUM;\n;\nVACUUM\n-- done\n"));
  EXPECT_FALSE(sqlite_runs_only_outside_transaction(""));
  EXPECT_FALSE(sqlite_runs_only_outside_transaction("-- nothing\n"));
  EXPECT_FALSE(sqlite_runs_only_outside_transaction("CREATE TABLE t (a); VACUUM;"));
  EXPECT_FALSE(sqlite_runs_only_outside_transaction("VACUUM; COMMIT;"));
  EXPECT_FALSE(sqlite_runs_only_outside_transaction("VACUUM; INSERT INTO missing VALUES (1);"));
}

TEST(SqliteScriptTest, ListsTheStatementsFromTheirFirstTokenWithoutSemicolons) {
  const std::vector<std::string_view> statements = sqlite_statements(
      "-- notes\nCREATE TABLE t (a TEXT DEFAULT 'x;y');\n/* ; */ ;\n"
      "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END;\n  INSERT INTO t VALUES ('z')");
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[0], "CREATE TABLE t (a TEXT DEFAULT 'x;y')");
  EXPECT_EQ(statements[1], "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END");
  EXPECT_EQ(statements[2], "INSERT INTO t VALUES ('z')");
}

TEST(SqliteScriptTest, SplitsWithSqlitesTokenizer) {
  // Semicolons and the word COMMIT inside strings, comments and a trigger body split nothing.
  EXPECT_FALSE(sqlite_transaction_conflict(
                   "CREATE TABLE t (a TEXT DEFAULT 'x; COMMIT;');\n"
                   "/* COMMIT; */ -- COMMIT;\n"
                   "CREATE TRIGGER g AFTER INSERT ON t BEGIN UPDATE t SET a = 'y; COMMIT'; END;\n"
                   "INSERT INTO t VALUES ('COMMIT')")
                   .has_value());
  // A last statement without its semicolon still counts.
  EXPECT_TRUE(sqlite_transaction_conflict("SELECT 1;\nCOMMIT").has_value());
}

}  // namespace
}  // namespace migronaut

#include "store/sqlite/script_run.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

class ScriptRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(":memory:", &raw), SQLITE_OK);
    db_.reset(raw);
  }

  // The error running `text` (starting on line `first_line` of its file) throws; fails the
  // test when it runs through.
  MigrationExecutionFailedError failure(const std::string& text, std::size_t first_line = 1) {
    try {
      run_sqlite_script(db_.get(), Script{text, first_line});
    } catch (const MigrationExecutionFailedError& e) {
      return e;
    }
    ADD_FAILURE() << "ran without an error: " << text;
    return MigrationExecutionFailedError("", {});
  }

  std::string value(const std::string& sql) {
    sqlite3_stmt* raw = nullptr;
    sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &raw, nullptr);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> statement(raw, &sqlite3_finalize);
    if (sqlite3_step(raw) != SQLITE_ROW) return "<none>";
    const auto* text = sqlite3_column_text(raw, 0);
    return text ? reinterpret_cast<const char*>(text) : "<null>";
  }

  std::unique_ptr<sqlite3, decltype(&sqlite3_close_v2)> db_{nullptr, &sqlite3_close_v2};
};

TEST_F(ScriptRunTest, RunsEveryStatementRowsCommentsAndTriggersIncluded) {
  run_sqlite_script(db_.get(), Script{"CREATE TABLE t (a TEXT);\nSELECT 1 UNION SELECT 2;\n"
                                      "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END;\n"
                                      "INSERT INTO t VALUES ('x;y'); /* done */ -- really\n"});
  EXPECT_EQ(value("SELECT group_concat(a) FROM t"), "x;y");
}

// Outside a transaction what ran before the failing statement stays: the error says how much.
TEST_F(ScriptRunTest, AFailureOutsideATransactionSaysWhatStaysApplied) {
  try {
    run_sqlite_script(db_.get(),
                      Script{"CREATE TABLE b (a);\nINSERT INTO b VALUES (1);\n"
                             "INSERT INTO missing VALUES (1);\n"},
                      /*transactional=*/false);
    ADD_FAILURE() << "ran without an error";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("The 2 statements before it ran and stay applied: outside a transaction"),
              std::string::npos)
        << error.what();
    EXPECT_EQ(error.context()["statementsApplied"], 2);
  }
  EXPECT_EQ(value("SELECT count(*) FROM b"), "1");
  // In a transaction, what ran is the caller's to roll back: nothing is said of it.
  EXPECT_EQ(std::string(failure("INSERT INTO missing VALUES (1);").what()).find("stay"),
            std::string::npos);
}

// Outside migronaut's transaction, a BEGIN of the script's own left open would be committed, or
// refused, by the record written next: it is rolled back and the migration fails, naming it.
TEST_F(ScriptRunTest, ATransactionTheScriptLeavesOpenIsRolledBackAndFails) {
  const auto run = [&](const std::string& text) -> std::string {
    try {
      run_sqlite_script(db_.get(), Script{text, 1}, /*transactional=*/false);
    } catch (const MigrationExecutionFailedError& error) {
      EXPECT_EQ(error.context()["statementsApplied"], 1) << error.what();
      return error.what();
    }
    ADD_FAILURE() << "ran without an error: " << text;
    return "";
  };
  const std::string unclosed = run("CREATE TABLE a (x);\nBEGIN;\nCREATE TABLE b (x);\n");
  EXPECT_NE(unclosed.find("line 2, column 1 in `BEGIN`: the transaction it opens is never "
                          "committed (no COMMIT or END after it)"),
            std::string::npos)
      << unclosed;
  const std::string failed =
      run("CREATE TABLE c (x);\nBEGIN;\nCREATE TABLE d (x);\nSELECT * FROM gone;\n");
  EXPECT_NE(failed.find("The transaction the script opened on line 2 was rolled back."),
            std::string::npos)
      << failed;
  // SQLite ends the transaction itself (ON CONFLICT ROLLBACK): what ran in it is undone all the
  // same.
  const std::string conflict =
      run("CREATE TABLE u (id PRIMARY KEY);\nBEGIN;\nINSERT INTO u VALUES (1);\n"
          "INSERT OR ROLLBACK INTO u VALUES (1);\n");
  EXPECT_NE(conflict.find("The transaction the script opened on line 2 was rolled back."),
            std::string::npos)
      << conflict;
  EXPECT_EQ(sqlite3_get_autocommit(db_.get()), 1);
  EXPECT_EQ(value("SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE type = "
                  "'table' ORDER BY name)"),
            "a,c,u");
  EXPECT_EQ(value("SELECT count(*) FROM u"), "0");
  // A transaction the script commits is its own business.
  run_sqlite_script(db_.get(), Script{"BEGIN;\nCREATE TABLE e (x);\nCOMMIT;\n", 1}, false);
  EXPECT_EQ(value("SELECT count(*) FROM sqlite_master WHERE name = 'e'"), "1");
}

TEST_F(ScriptRunTest, AFailingStepIsPlacedAtItsStatementInTheFile) {
  const MigrationExecutionFailedError error = failure(
      "CREATE TABLE t (id INTEGER PRIMARY KEY);\nINSERT INTO t VALUES (1);\n\n"
      "  -- again\n  INSERT INTO t\n    VALUES (1);\nINSERT INTO t VALUES (2);\n",
      3);
  EXPECT_STREQ(error.what(),
               "line 7, column 3 in `INSERT INTO t VALUES (1)`: UNIQUE constraint failed: t.id");
  EXPECT_EQ(error.context()["line"], 7);
  EXPECT_EQ(error.context()["column"], 3);
  EXPECT_EQ(error.context()["statement"], "INSERT INTO t VALUES (1)");
  EXPECT_EQ(error.context()["error"], "UNIQUE constraint failed: t.id");
  // The statements before it ran; rolling them back is the caller's transaction's job.
  EXPECT_EQ(value("SELECT count(*) FROM t"), "1");
}

TEST_F(ScriptRunTest, ASyntaxErrorIsPlacedAtTheTokenSqliteBlames) {
  const MigrationExecutionFailedError error =
      failure("SELECT 1;\nCREATE TABEL v (id INTEGER);\nSELECT 2;\n");
  EXPECT_STREQ(error.what(),
               "line 2, column 8 in `CREATE TABEL v (id INTEGER)`: near \"TABEL\": syntax error");
}

TEST_F(ScriptRunTest, AMissingTableIsPlacedInAFileOfManyLines) {
  std::string text = "CREATE TABLE t (id INTEGER);\n";
  for (int i = 0; i < 20000; ++i) text += "INSERT INTO t VALUES (" + std::to_string(i) + ");\n";
  text += "SELECT * FROM nosuch;\n";
  const MigrationExecutionFailedError error = failure(text, 2);
  EXPECT_EQ(error.context()["line"], 20003) << error.what();
  EXPECT_EQ(error.context()["statement"], "SELECT * FROM nosuch");
  EXPECT_NE(std::string(error.what()).find(": no such table: nosuch"), std::string::npos)
      << error.what();
}

}  // namespace
}  // namespace migronaut

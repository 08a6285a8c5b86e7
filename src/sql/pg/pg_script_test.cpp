#include "sql/pg/pg_script.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(PgScriptTest, SplitsStatementsAtTheirFirstToken) {
  const std::string script =
      "CREATE TABLE t (id bigint);\n-- a comment\n  INSERT INTO t VALUES (1);\nSELECT 2";
  const std::vector<PgStatement> statements = parse_pg_script(script);
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[0].kind(), "CreateStmt");
  EXPECT_EQ(statements[1].kind(), "InsertStmt");
  EXPECT_EQ(statements[1].text(script), "INSERT INTO t VALUES (1)");
  EXPECT_EQ(statements[2].text(script), "SELECT 2");
  EXPECT_EQ(statement_at(statements, script.find("VALUES")), &statements[1]);
}

TEST(PgScriptTest, KeepsFunctionBodiesWhole) {
  const std::string script =
      "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN COMMIT; RETURN 1; END $$;\n"
      "SELECT f();";
  const std::vector<PgStatement> statements = parse_pg_script(script);
  ASSERT_EQ(statements.size(), 2u);
  EXPECT_EQ(statements[0].kind(), "CreateFunctionStmt");
  EXPECT_EQ(statements[1].kind(), "SelectStmt");
}

TEST(PgScriptTest, OneUnparsableStatementHidesNoOther) {
  const std::string script = "SELECT 1;\nCREAT TABLE oops (id int);\nCOMMIT;";
  const std::vector<PgStatement> statements = parse_pg_script(script);
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_TRUE(statements[0].parsed());
  EXPECT_FALSE(statements[1].parsed());
  EXPECT_NE(statements[1].error.find("syntax error"), std::string::npos);
  EXPECT_EQ(statements[1].error_offset, script.find("CREAT"));
  EXPECT_EQ(statements[2].kind(), "TransactionStmt");
  EXPECT_EQ(statements[2].offset, script.find("COMMIT"));
}

TEST(PgScriptTest, AnUnterminatedQuoteIsOneUnparsedStatement) {
  const std::vector<PgStatement> statements = parse_pg_script("SELECT 'open");
  ASSERT_EQ(statements.size(), 1u);
  EXPECT_FALSE(statements[0].parsed());
  EXPECT_FALSE(statements[0].error.empty());
}

TEST(PgScriptTest, TreeLocationsCountFromTreeBase) {
  const std::string script = "SELECT 1;\nSELEC 2;\nCREATE INDEX i ON users (email);";
  const std::vector<PgStatement> statements = parse_pg_script(script);
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_FALSE(statements[1].parsed());  // the scanner drops it; the parse error still shows
  EXPECT_EQ(statements[1].error_offset, script.find("SELEC "));
  const PgStatement& index = statements[2];
  const int location = index.node()["relation"]["location"];
  EXPECT_EQ(index.tree_base + location, script.find("users"));
}

}  // namespace
}  // namespace migronaut

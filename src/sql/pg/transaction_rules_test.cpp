#include "sql/pg/transaction_rules.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

// The rule and statement text of each conflict in `script`.
std::vector<std::pair<std::string, std::string>> conflicts_of(const std::string& script) {
  const std::vector<PgStatement> statements = parse_pg_script(script);
  std::vector<std::pair<std::string, std::string>> found;
  for (const TransactionConflict& conflict : transaction_conflicts(statements)) {
    found.emplace_back(conflict.rule, std::string(conflict.statement->text(script)));
  }
  return found;
}

using Found = std::vector<std::pair<std::string, std::string>>;

TEST(TransactionRulesTest, RefusesTransactionControl) {
  EXPECT_EQ(conflicts_of("INSERT INTO t VALUES (1);\ncommit;\nINSERT INTO t VALUES (2);"),
            (Found{{"transaction-nesting", "commit"}}));
  for (const char* control :
       {"BEGIN", "START TRANSACTION", "END", "ROLLBACK", "ABORT", "COMMIT AND CHAIN",
        "PREPARE TRANSACTION 'x'", "COMMIT PREPARED 'x'", "ROLLBACK PREPARED 'x'"}) {
    EXPECT_EQ(conflicts_of(std::string("SELECT 1; ") + control + ";"),
              (Found{{"transaction-nesting", control}}))
        << control;
  }
}

TEST(TransactionRulesTest, AllowsSavepointsTheScriptOpens) {
  EXPECT_TRUE(conflicts_of("SAVEPOINT a; SAVEPOINT b; ROLLBACK TO a; RELEASE a;").empty());
  EXPECT_EQ(conflicts_of("SAVEPOINT a; RELEASE a; RELEASE a;"),
            (Found{{"transaction-nesting", "RELEASE a"}}));
  EXPECT_EQ(conflicts_of("ROLLBACK TO SAVEPOINT outer_one;"),
            (Found{{"transaction-nesting", "ROLLBACK TO SAVEPOINT outer_one"}}));
}

TEST(TransactionRulesTest, RefusesWhatCannotRunInATransactionBlock) {
  EXPECT_EQ(conflicts_of("CREATE INDEX CONCURRENTLY i ON t (a)"),
            (Found{{"ban-concurrent-index-creation-in-transaction",
                    "CREATE INDEX CONCURRENTLY i ON t (a)"}}));
  for (const char* statement :
       {"DROP INDEX CONCURRENTLY i", "VACUUM t", "VACUUM", "REINDEX INDEX CONCURRENTLY i",
        "REINDEX DATABASE d", "CREATE DATABASE d", "DROP DATABASE d", "ALTER SYSTEM SET x = 1",
        "CREATE TABLESPACE s LOCATION '/x'", "DISCARD ALL",
        "ALTER TABLE p DETACH PARTITION c CONCURRENTLY"}) {
    EXPECT_EQ(conflicts_of(statement), (Found{{"transaction-incompatible", statement}}))
        << statement;
  }
}

TEST(TransactionRulesTest, PassesOrdinaryStatements) {
  EXPECT_TRUE(conflicts_of("CREATE TABLE t (id bigint); CREATE INDEX i ON t (id); ANALYZE t;"
                           " REINDEX TABLE t; DROP INDEX i; DISCARD TEMP;"
                           " ALTER TABLE p DETACH PARTITION c;"
                           " DO $$ BEGIN PERFORM 1; END $$;")
                  .empty());
  // The server, not the check, judges what the parser cannot read.
  EXPECT_TRUE(conflicts_of("SELEC 1;").empty());
}

bool only_outside(const std::string& script) { return runs_only_outside_transaction(script); }

TEST(TransactionRulesTest, RunsOnlyOutsideWhenEveryStatementCannotRunInABlock) {
  EXPECT_TRUE(only_outside("CREATE INDEX CONCURRENTLY i ON t (a);"));
  EXPECT_TRUE(
      only_outside("-- the email index\nCREATE INDEX CONCURRENTLY i ON t (a);\n"
                   "/* and the old one */ DROP INDEX CONCURRENTLY j;\n-- done\n"));
  EXPECT_TRUE(only_outside("VACUUM t; REINDEX INDEX CONCURRENTLY i;"));
}

TEST(TransactionRulesTest, RunsInATransactionWhatMixesOrNeedsNone) {
  EXPECT_FALSE(only_outside(""));
  EXPECT_FALSE(only_outside("-- nothing but a comment\n"));
  EXPECT_FALSE(only_outside("CREATE TABLE t (a text);"));
  EXPECT_FALSE(only_outside("CREATE TABLE t (a text); CREATE INDEX CONCURRENTLY i ON t (a);"));
  EXPECT_FALSE(only_outside("CREATE INDEX CONCURRENTLY i ON t (a); SET lock_timeout = '1s';"));
  // Transaction control is refused, not a reason to run outside one.
  EXPECT_FALSE(only_outside("BEGIN; CREATE INDEX CONCURRENTLY i ON t (a); COMMIT;"));
  EXPECT_FALSE(only_outside("COMMIT; CREATE INDEX CONCURRENTLY i ON t (a);"));
  // What the parser cannot read might need a transaction: the server judges it, in one.
  EXPECT_FALSE(only_outside("CREATE INDEX CONCURRENTLY i ON t (a); SELEC 1;"));
}

}  // namespace
}  // namespace migronaut

#include "store/postgres/blockers.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

// Another session's statement may carry a secret: only its kind is ever shown.
TEST(StatementKindTest, IsTheLeadingKeywordsAndNeverTheText) {
  EXPECT_EQ(statement_kind("ALTER ROLE app PASSWORD 'hunter2'"), "ALTER ROLE");
  EXPECT_EQ(statement_kind("lock table accounts in access exclusive mode;"), "LOCK TABLE");
  EXPECT_EQ(statement_kind("SELECT count(*) FROM accounts WHERE token = 's3cret';"), "SELECT");
  EXPECT_EQ(statement_kind("select(1)"), "SELECT");
  EXPECT_EQ(statement_kind("UPDATE users SET password = 'x'"), "UPDATE");
  EXPECT_EQ(statement_kind("CREATE(x)"), "CREATE");
}

TEST(StatementKindTest, SkipsLeadingSpaceAndComments) {
  EXPECT_EQ(statement_kind("  -- report job\n/* nightly */\tINSERT INTO t VALUES (1)"), "INSERT");
  EXPECT_EQ(statement_kind("DROP /* gone */ TABLE t"), "DROP TABLE");
}

TEST(StatementKindTest, IsEmptyWithoutALeadingWord) {
  EXPECT_EQ(statement_kind(""), "");
  EXPECT_EQ(statement_kind("<insufficient privilege>"), "");
  EXPECT_EQ(statement_kind("/* unterminated"), "");
  EXPECT_EQ(statement_kind("'hunter2'"), "");
}

// No statement text, and no doubled ';' before what a message adds after it.
TEST(DescribeBlockersTest, NamesTheSessionAndTheKindOfItsStatement) {
  const nlohmann::json blockers = nlohmann::json::array({{{"pid", 42},
                                                          {"application", "psql"},
                                                          {"user", "app"},
                                                          {"state", "idle in transaction"},
                                                          {"seconds", 3.2},
                                                          {"command", "LOCK TABLE"}},
                                                         {{"pid", 43},
                                                          {"application", ""},
                                                          {"user", ""},
                                                          {"state", "unknown state"},
                                                          {"seconds", nullptr},
                                                          {"command", ""}}});
  EXPECT_EQ(describe_blockers(blockers),
            "pid 42 (application 'psql', user 'app', idle in transaction for 3.2 s): LOCK TABLE; "
            "pid 43 (application '', user '', unknown state)");
  EXPECT_EQ(describe_blockers(nlohmann::json::array()),
            "a session that was not identified in time");
}

}  // namespace
}  // namespace migronaut

#include "sql/blank_sql.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(BlankSqlTest, NothingButCommentsSemicolonsAndSpaceIsBlank) {
  EXPECT_TRUE(is_blank_sql(""));
  EXPECT_TRUE(is_blank_sql(" \n\t"));
  EXPECT_TRUE(is_blank_sql("-- TODO write this\n"));
  EXPECT_TRUE(is_blank_sql("-- no newline at the end"));
  EXPECT_TRUE(is_blank_sql("/* later */ ;\n;"));
  EXPECT_TRUE(is_blank_sql("/* a\n-- b\n*/\n-- c /* d\n"));
}

TEST(BlankSqlTest, AnyStatementIsNot) {
  EXPECT_FALSE(is_blank_sql("SELECT 1"));
  EXPECT_FALSE(is_blank_sql("-- first\nCREATE TABLE t (id int);"));
  EXPECT_FALSE(is_blank_sql("/* c */ DROP TABLE t"));
  EXPECT_FALSE(is_blank_sql("- 1"));
  EXPECT_FALSE(is_blank_sql("/* never closed"));
}

}  // namespace
}  // namespace migronaut

#include "sql/pg/client_copy.hpp"

#include <gtest/gtest.h>

#include <string>

namespace migronaut {
namespace {

// The text of the first statement that copies through the client, or "".
std::string client_copy_of(const std::string& script) {
  const std::vector<PgStatement> statements = parse_pg_script(script);
  const PgStatement* copy = first_client_copy(statements);
  return copy == nullptr ? "" : std::string(copy->text(script));
}

TEST(ClientCopyTest, FindsACopyThroughTheClient) {
  EXPECT_EQ(client_copy_of("CREATE TABLE t (a int);\nCOPY t (a) FROM stdin;\n"),
            "COPY t (a) FROM stdin");
  EXPECT_EQ(client_copy_of("COPY t TO STDOUT WITH (FORMAT csv);"),
            "COPY t TO STDOUT WITH (FORMAT csv)");
  EXPECT_EQ(client_copy_of("SELECT 1; COPY (SELECT 1) TO stdout;"), "COPY (SELECT 1) TO stdout");
}

TEST(ClientCopyTest, LeavesTheServersOwnCopies) {
  EXPECT_EQ(client_copy_of("COPY t FROM '/srv/data/t.csv' WITH (FORMAT csv);"), "");
  EXPECT_EQ(client_copy_of("COPY t TO PROGRAM 'gzip > /tmp/t.gz';"), "");
  EXPECT_EQ(client_copy_of("SELECT 'COPY t FROM stdin';"), "");
}

}  // namespace
}  // namespace migronaut

#include "util/sqlite_uri.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(SqliteUriTest, NamesTheFileInEveryForm) {
  EXPECT_EQ(sqlite_file("sqlite:app.db"), "app.db");
  EXPECT_EQ(sqlite_file("sqlite://app.db"), "app.db");
  EXPECT_EQ(sqlite_file("sqlite://data/app.db"), "data/app.db");
  EXPECT_EQ(sqlite_file("sqlite:/srv/app.db"), "/srv/app.db");
  EXPECT_EQ(sqlite_file("sqlite:///srv/app.db"), "/srv/app.db");
  EXPECT_EQ(sqlite_file("sqlite::memory:"), ":memory:");
  EXPECT_EQ(sqlite_file("sqlite:"), "");
  EXPECT_EQ(sqlite_file("sqlite://"), "");
}

// dbmate's other spelling of the scheme.
TEST(SqliteUriTest, Sqlite3IsTheSameScheme) {
  EXPECT_TRUE(is_sqlite_uri("sqlite3:app.db"));
  EXPECT_FALSE(is_sqlite_uri("sqlite4:app.db"));
  EXPECT_EQ(sqlite_file("sqlite3:app.db"), "app.db");
  EXPECT_EQ(sqlite_file("sqlite3://data/app.db"), "data/app.db");
  EXPECT_EQ(sqlite_file("sqlite3:///srv/app.db"), "/srv/app.db");
  EXPECT_EQ(sqlite_uri_against("sqlite3:app.db", "/etc/svc"), "sqlite3:/etc/svc/app.db");
}

TEST(SqliteUriTest, RelativeFilesMoveToTheBaseAbsoluteOnesStay) {
  EXPECT_EQ(sqlite_uri_against("sqlite:app.db", "/etc/svc"), "sqlite:/etc/svc/app.db");
  EXPECT_EQ(sqlite_uri_against("sqlite://../app.db", "/etc/svc"), "sqlite:/etc/app.db");
  EXPECT_EQ(sqlite_uri_against("sqlite:///srv/app.db", "/etc/svc"), "sqlite:///srv/app.db");
  EXPECT_EQ(sqlite_uri_against("sqlite::memory:", "/etc/svc"), "sqlite::memory:");
  EXPECT_EQ(sqlite_uri_against("postgres://h/db", "/etc/svc"), "postgres://h/db");
}

}  // namespace
}  // namespace migronaut

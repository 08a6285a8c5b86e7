// Migrations that change their session's search_path or role, through the real binary against a
// throwaway server: migronaut's bookkeeping after them still reaches its own tables, as the
// connection's own role, and the next migration starts as the connection opened; and what the
// server tells a migration's session (its notices) reaches that migration's log.
#include <cctype>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "support/pg_cluster.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

class PgSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = test_schema("session_");
    uri_ = PgCluster::run_wide().fresh_schema_uri("postgres", schema_);
    app_ = schema_ + "_app";
    lowly_ = schema_ + "_lowly";
    // A role that may create in the test's schema but has no rights on migronaut's tables.
    value("DROP SCHEMA IF EXISTS " + app_ + " CASCADE; DROP ROLE IF EXISTS " + lowly_ +
          "; CREATE ROLE " + lowly_ + "; GRANT " + lowly_ +
          " TO CURRENT_USER; GRANT USAGE, "
          "CREATE ON SCHEMA " +
          schema_ + " TO " + lowly_);
  }

  ProcessResult up() const {
    return run_migronaut(
        {"--no-env", "--json", "--uri", uri_, "--dir", dir_.path().string(), "up"});
  }

  std::string value(const std::string& sql) const {
    return pg_query_value(uri_, sql).value_or("<null>");
  }
  // The changelog's names and statuses, in order: "a:applied,b:applied".
  std::string records() const {
    return value("SELECT string_agg(name || ':' || status, ',' ORDER BY name) FROM " + schema_ +
                 "._migronaut_migrations");
  }
  std::string owner_of(const std::string& table) const {
    return value("SELECT tableowner FROM pg_tables WHERE schemaname || '.' || tablename = '" +
                 table + "'");
  }
  // `up` applies both files: its exit code, both records, no lock left behind.
  void expect_both_applied(const std::string& first, const std::string& second) const {
    const ProcessResult result = up();
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_EQ(records(), first + ":applied," + second + ":applied");
    EXPECT_EQ(value("SELECT count(*) FROM " + schema_ + "._migronaut_locks"), "0");
  }

  TempDir dir_{"migronaut-pg-session"};
  std::string uri_;
  std::string schema_;
  std::string app_;
  std::string lowly_;
};

constexpr const char* kFirst = "20260101000001-first.sql";
constexpr const char* kSecond = "20260101000002-second.sql";

// The README's advice behind a transaction pooler: SET LOCAL in the migration.
TEST_F(PgSessionTest, SetLocalSearchPath) {
  dir_.write(kFirst, "-- migrate:up\nCREATE SCHEMA " + app_ + ";\nSET LOCAL search_path = " + app_ +
                         ";\nCREATE TABLE users (id bigint);\n");
  dir_.write(kSecond, "-- migrate:up\nCREATE TABLE orders (id bigint);\n");
  expect_both_applied(kFirst, kSecond);
  EXPECT_EQ(value("SELECT to_regclass('" + app_ + ".users') IS NOT NULL"), "t");
  EXPECT_EQ(value("SELECT to_regclass('" + schema_ + ".orders') IS NOT NULL"), "t");
}

// What pg_dump writes: an empty search_path for the rest of the session, so the next
// migration's bookkeeping runs in a session that has it too.
TEST_F(PgSessionTest, SessionWideEmptySearchPathFromPgDump) {
  dir_.write(kFirst,
             "-- migrate:up\nSELECT pg_catalog.set_config('search_path', '', false);\n"
             "CREATE TABLE " +
                 schema_ + ".users (id bigint);\n");
  dir_.write(kSecond, "-- migrate:up\nCREATE TABLE " + schema_ + ".orders (id bigint);\n");
  expect_both_applied(kFirst, kSecond);
  EXPECT_EQ(value("SELECT to_regclass('" + schema_ + ".users') IS NOT NULL"), "t");
  EXPECT_EQ(value("SELECT to_regclass('" + schema_ + ".orders') IS NOT NULL"), "t");
}

// The migration's objects are the role's; migronaut's records are still written by its own.
TEST_F(PgSessionTest, SetLocalRoleWithoutRightsOnMigronautsTables) {
  dir_.write(kFirst,
             "-- migrate:up\nSET LOCAL ROLE " + lowly_ + ";\nCREATE TABLE users (id bigint);\n");
  dir_.write(kSecond,
             "-- migrate:up\nSET ROLE " + lowly_ + ";\nCREATE TABLE orders (id bigint);\n");
  expect_both_applied(kFirst, kSecond);
  EXPECT_EQ(owner_of(schema_ + ".users"), lowly_);
  EXPECT_EQ(owner_of(schema_ + ".orders"), lowly_);
  EXPECT_EQ(value("SELECT has_table_privilege('" + lowly_ + "', '" + schema_ +
                  "._migronaut_migrations', 'INSERT')"),
            "f");
}

// SET SESSION AUTHORIZATION (a superuser's, pg_dump's) changes the session's user, not only its
// role: the bookkeeping still runs as the connection's own, in a transaction and out of one, and
// the next migration starts as the connection opened.
TEST_F(PgSessionTest, SessionAuthorizationEndsWithItsMigration) {
  dir_.write(kFirst, "-- migrate:up\nSET SESSION AUTHORIZATION " + lowly_ +
                         ";\nCREATE TABLE users (id bigint);\n");
  dir_.write(kSecond, "-- migrate:up transaction:false\nSET SESSION AUTHORIZATION " + lowly_ +
                          ";\nCREATE TABLE orders (id bigint);\n");
  dir_.write("20260101000003-third.sql", "-- migrate:up\nCREATE TABLE items (id bigint);\n");
  const ProcessResult result = up();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(records(), std::string(kFirst) + ":applied," + kSecond +
                           ":applied,20260101000003-third.sql:applied");
  EXPECT_EQ(owner_of(schema_ + ".users"), lowly_);
  EXPECT_EQ(owner_of(schema_ + ".orders"), lowly_);
  EXPECT_EQ(owner_of(schema_ + ".items"), value("SELECT current_user"));
  EXPECT_EQ(value("SELECT count(*) FROM " + schema_ + "._migronaut_locks"), "0");
}

// Outside a transaction the settings last until the record right after the work, which is still
// written (no migration is left `interrupted`) and puts the session back as it opened: the next
// migration runs without them, as with Flyway.
TEST_F(PgSessionTest, TransactionFalseSessionSettings) {
  dir_.write(kFirst, "-- migrate:up transaction:false\nCREATE SCHEMA " + app_ +
                         ";\nGRANT USAGE, CREATE ON SCHEMA " + app_ + " TO " + lowly_ +
                         ";\nSET search_path = " + app_ + ";\nSET ROLE " + lowly_ +
                         ";\nCREATE TABLE users (id bigint);\n");
  dir_.write(kSecond, "-- migrate:up transaction:false\nCREATE TABLE orders (id bigint);\n");
  expect_both_applied(kFirst, kSecond);
  EXPECT_EQ(owner_of(app_ + ".users"), lowly_);
  EXPECT_EQ(owner_of(schema_ + ".orders"), value("SELECT current_user"));
}

// A migration that makes the session's next transactions read-only (a restore script's
// `SET default_transaction_read_only`) leaves the next migration, and its record, writable.
TEST_F(PgSessionTest, AReadOnlyDefaultEndsWithItsMigration) {
  for (const char* header : {"-- migrate:up\n", "-- migrate:up transaction:false\n"}) {
    SCOPED_TRACE(header);
    SetUp();
    dir_.write(kFirst, std::string(header) +
                           "CREATE TABLE users (id bigint);\n"
                           "SET default_transaction_read_only = on;\n");
    dir_.write(kSecond, "-- migrate:up\nCREATE TABLE orders (id bigint);\n");
    expect_both_applied(kFirst, kSecond);
  }
}

// A transaction:false migration sets its own timeouts for its session (the marker's options need
// a transaction): they end with it, and the next migration runs with the connection's own — here
// the URI's lock_timeout — not with the script's.
TEST_F(PgSessionTest, TransactionFalseTimeoutsEndWithTheirMigration) {
  dir_.write(kFirst,
             "-- migrate:up transaction:false\nSET statement_timeout = '1s';\n"
             "SET lock_timeout = '2s';\nCREATE TABLE IF NOT EXISTS users (id bigint);\n");
  dir_.write(kSecond,
             "-- migrate:up transaction:false\nCREATE TABLE seen AS SELECT "
             "current_setting('statement_timeout') AS statement, "
             "current_setting('lock_timeout') AS lock;\n");
  const ProcessResult result =
      run_migronaut({"--no-env", "--json", "--uri", uri_ + "%20-clock_timeout%3D42s", "--dir",
                     dir_.path().string(), "up"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(value("SELECT statement || ',' || lock FROM " + schema_ + ".seen"), "0,42s");
}

// dbmate's `?search_path=` URI parameter, which libpq does not know: the connection starts with
// that search_path (after the URI's own options, which stay), migronaut's tables land in its
// first schema as dbmate's do, and the lock connection, which extends the options with its
// bounds, keeps it too.
TEST_F(PgSessionTest, DbmateSearchPathParameter) {
  dir_.write(kFirst,
             "-- migrate:up\nCREATE TABLE seen AS SELECT current_setting('search_path') AS path, "
             "current_setting('work_mem') AS work_mem;\n");
  const std::string uri = PgCluster::run_wide().uri("postgres") +
                          "?options=-cwork_mem%3D5MB&search_path=" + schema_ + "," + app_;
  const ProcessResult result = run_migronaut(
      {"--no-env", "--json", "--uri", uri, "--dir", dir_.path().string(), "up", "--wait"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(value("SELECT path || ' ' || work_mem FROM " + schema_ + ".seen"),
            schema_ + "," + app_ + " 5MB");
  EXPECT_EQ(records(), std::string(kFirst) + ":applied");
  EXPECT_EQ(value("SELECT count(*) FROM " + schema_ + "._migronaut_locks"), "0");
}

// A migration's notices reach the log, like psql's, named by their migration, in a
// transaction and out of one: RAISE NOTICE with its detail, a WARNING as a warning with its hint,
// what the server sends made safe for a terminal. migronaut's own statements' notices do not: a
// run that recreates its dropped index sends CREATE TABLE IF NOT EXISTS for tables that exist.
TEST_F(PgSessionTest, AMigrationsNoticesReachItsLog) {
  dir_.write(kFirst,
             "-- migrate:up\nDO $$ BEGIN RAISE NOTICE 'backfilled % rows', 42 USING DETAIL = "
             "'in batches'; RAISE WARNING 'took the slow path' USING HINT = 'add an index'; END "
             "$$;\n");
  dir_.write(kSecond,
             "-- migrate:up transaction:false\nDO $$ BEGIN RAISE NOTICE E'outside \\x1b[31mred';"
             " END $$;\nCREATE TABLE IF NOT EXISTS orders (id bigint);\n"
             "CREATE TABLE IF NOT EXISTS orders (id bigint);\n");
  const ProcessResult result =
      run_migronaut({"--no-env", "--no-color", "--uri", uri_, "--dir", dir_.path().string(), "up"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto shows = [&](const std::string& line) {
    return result.err.find(line) != std::string::npos;
  };
  const std::string first = std::string("[") + kFirst + "] ";
  const std::string second = std::string("[") + kSecond + "] ";
  EXPECT_TRUE(shows(first + "NOTICE: backfilled 42 rows (in batches)\n")) << result.err;
  EXPECT_TRUE(shows("⚠ " + first + "WARNING: took the slow path Hint: add an index\n"))
      << result.err;
  EXPECT_TRUE(shows(second + "NOTICE: outside red\n")) << result.err;
  EXPECT_TRUE(shows(second + "NOTICE: relation \"orders\" already exists, skipping\n"))
      << result.err;
  EXPECT_EQ(records(), std::string(kFirst) + ":applied," + kSecond + ":applied");

  value("DROP INDEX " + schema_ + "._migronaut_migrations_status_batch");
  dir_.write("20260101000003-third.sql", "-- migrate:up\nCREATE TABLE third (id bigint);\n");
  const ProcessResult again = up();
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(value("SELECT to_regclass('" + schema_ +
                  "._migronaut_migrations_status_batch') IS "
                  "NOT NULL"),
            "t");
  EXPECT_EQ(again.err.find("NOTICE"), std::string::npos) << again.err;
}

// A failing statement is quoted in the error, the log and the changelog record: a role's password
// in it is masked in each (and in --verbose's log of what is sent), the statement still named.
TEST_F(PgSessionTest, APasswordInAFailingStatementIsMaskedEverywhere) {
  dir_.write(kFirst, "-- migrate:up\nSELECT 1;\nALTER ROLE nobody_here PASSWORD 'topsecret42';\n");
  const auto run = [&](const std::string& command) {
    return run_migronaut(
        {"--no-env", "--json", "--verbose", "--uri", uri_, "--dir", dir_.path().string(), command});
  };
  const ProcessResult result = run("up");
  EXPECT_EQ(result.exit_code, 7) << result.out << result.err;
  EXPECT_NE(result.out.find("PASSWORD '***'"), std::string::npos) << result.out;
  const ProcessResult status = run("status");
  const std::string stored =
      value("SELECT error FROM " + schema_ + "._migronaut_migrations WHERE status = 'failed'");
  EXPECT_NE(stored.find("PASSWORD '***'"), std::string::npos) << stored;
  for (const std::string& text : {result.out, result.err, status.out, status.err, stored}) {
    EXPECT_EQ(text.find("topsecret42"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace migronaut::testing

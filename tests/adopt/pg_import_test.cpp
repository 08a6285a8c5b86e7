// `import --from` on PostgreSQL with the real binary: history tables created exactly as
// node-pg-migrate, Flyway and dbmate create them (from the tools' sources), then imported
// without running anything, and migronaut carries on from there.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/pg_cluster.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

class PgImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = test_schema("import_");
    uri_ = PgCluster::run_wide().fresh_schema_uri("postgres", schema_);
  }

  ProcessResult run(std::vector<std::string> args) const {
    std::vector<std::string> all{"--no-env", "--uri", uri_, "--dir", dir_.path().string()};
    all.insert(all.end(), args.begin(), args.end());
    return run_migronaut(all);
  }
  void expect(const std::vector<std::string>& args, int code) const {
    const ProcessResult result = run(args);
    EXPECT_EQ(result.exit_code, code) << result.out << result.err;
  }
  std::string value(const std::string& sql) const {
    return pg_query_value(uri_, sql).value_or("<null>");
  }
  void write(const std::string& name, const std::string& sql) const { dir_.write(name, sql); }
  // name → applied_at (ms) of the changelog's applied records.
  std::string applied() const {
    return value(
        "SELECT string_agg(name || '@' || (extract(epoch from applied_at) * 1000)::bigint, ','"
        " ORDER BY name) FROM _migronaut_migrations WHERE status = 'applied'");
  }

  std::string schema_;
  std::string uri_;
  TempDir dir_;
};

TEST_F(PgImportTest, NodePgMigrateHistoryKeepsItsTimes) {
  write("1700000000000_create-a.sql", "-- migrate:up\nCREATE TABLE a (id int);\n");
  write("1700000000001_create-b.sql", "-- migrate:up\nCREATE TABLE b (id int);\n");
  value(
      "CREATE TABLE pgmigrations (id SERIAL PRIMARY KEY, name varchar(255) NOT NULL,"
      " run_on timestamp NOT NULL)");
  value(
      "INSERT INTO pgmigrations (name, run_on) VALUES"
      " ('1700000000000_create-a', '2025-01-02 03:04:05')");
  expect({"import", "--from", "node-pg-migrate"}, 0);
  EXPECT_EQ(value("SELECT origin FROM _migronaut_migrations"), "node-pg-migrate");
  const std::string expected_ms = value(
      "SELECT (extract(epoch from '2025-01-02 03:04:05'::timestamp::timestamptz) * 1000)"
      "::bigint");
  EXPECT_EQ(applied(), "1700000000000_create-a.sql@" + expected_ms);
  expect({"up"}, 0);
  EXPECT_EQ(value("SELECT to_regclass('a') IS NULL"), "t");  // a never ran again
  EXPECT_EQ(value("SELECT to_regclass('b') IS NOT NULL"), "t");
  EXPECT_EQ(value("SELECT count(*) FROM pgmigrations"), "1");
}

// flyway_schema_history as Flyway's PostgreSQL support creates it. The rows' checksums are
// Flyway's of the files the tests write (CRC-32 of the lines, as a signed number).
constexpr const char* kFlywayHistory =
    "CREATE TABLE flyway_schema_history (installed_rank integer NOT NULL,"
    " version varchar(50), description varchar(200) NOT NULL, type varchar(20) NOT NULL,"
    " script varchar(1000) NOT NULL, checksum integer, installed_by varchar(100) NOT NULL,"
    " installed_on timestamp NOT NULL DEFAULT now(), execution_time integer NOT NULL,"
    " success boolean NOT NULL, CONSTRAINT flyway_schema_history_pk PRIMARY KEY"
    " (installed_rank))";

TEST_F(PgImportTest, FlywayHistoryWithAFailedRowIsRefusedUntilRepaired) {
  write("V1__create_a.sql", "CREATE TABLE a (id int);\n");
  write("V1.1__create_b.sql", "CREATE TABLE b (id int);\n");
  value(kFlywayHistory);
  value(
      "INSERT INTO flyway_schema_history VALUES"
      " (1, '1', 'create a', 'SQL', 'V1__create_a.sql', -623083431, 'dba', '2025-03-04 05:06:07',"
      " 3, true),"
      " (2, '1.1', 'create b', 'SQL', 'V1.1__create_b.sql', 1128195672, 'dba', now(), 3, false)");
  expect({"import", "--from", "flyway"}, 24);
  EXPECT_EQ(value("SELECT to_regclass('_migronaut_migrations') IS NULL"), "t");
  value("DELETE FROM flyway_schema_history WHERE NOT success");  // what `flyway repair` does
  expect({"import", "--from", "flyway"}, 0);
  EXPECT_EQ(value("SELECT string_agg(name, ',') FROM _migronaut_migrations"), "V1__create_a.sql");
  expect({"up"}, 0);
  EXPECT_EQ(value("SELECT to_regclass('b') IS NOT NULL"), "t");
  EXPECT_EQ(value("SELECT to_regclass('a') IS NULL"), "t");
}

// As `flyway baseline -baselineVersion=1.1` then `flyway migrate` leave it: V1 and V1.1 are
// covered by the baseline, V2 ran.
TEST_F(PgImportTest, AFlywayBaselineCoversEverythingUpToItsVersion) {
  write("V1__create_a.sql", "CREATE TABLE a (id int);\n");
  write("V1.1__create_b.sql", "CREATE TABLE b (id int);\n");
  write("V2__create_c.sql", "CREATE TABLE c (id int);\n");
  write("V3__create_d.sql", "CREATE TABLE d (id int);\n");
  value(kFlywayHistory);
  value(
      "INSERT INTO flyway_schema_history (installed_rank, version, description, type, script,"
      " checksum, installed_by, installed_on, execution_time, success) VALUES"
      " (1, '1.1', '<< Flyway Baseline >>', 'BASELINE', '<< Flyway Baseline >>', NULL, 'dba',"
      " '2025-03-04 05:06:07', 0, true),"
      " (2, '2', 'create c', 'SQL', 'V2__create_c.sql', -2102380136, 'dba', now(), 3, true)");
  expect({"import", "--from", "flyway"}, 0);
  EXPECT_EQ(value("SELECT string_agg(name || ' ' || origin || ' ' || coalesce(reason, '-'), ', '"
                  " ORDER BY batch) FROM _migronaut_migrations"),
            "V1__create_a.sql baseline covered by the Flyway baseline at version 1.1, "
            "V1.1__create_b.sql baseline covered by the Flyway baseline at version 1.1, "
            "V2__create_c.sql flyway -");
  const std::string baseline_ms = value(
      "SELECT (extract(epoch from '2025-03-04 05:06:07'::timestamp::timestamptz) * 1000)::bigint");
  EXPECT_EQ(value("SELECT string_agg(DISTINCT (extract(epoch from applied_at) * 1000)::bigint"
                  "::text, ',') FROM _migronaut_migrations WHERE reason IS NOT NULL"),
            baseline_ms);
  expect({"up"}, 0);  // only V3 runs
  EXPECT_EQ(value("SELECT to_regclass('d') IS NOT NULL"), "t");
  EXPECT_EQ(value("SELECT to_regclass('a') IS NULL AND to_regclass('c') IS NULL"), "t");
}

TEST_F(PgImportTest, DbmateHistoryAndADirtyGolangMigrateOne) {
  write("20260101120000_create_a.sql", "-- migrate:up\nCREATE TABLE a (id int);\n");
  value("CREATE TABLE schema_migrations (version varchar(128) PRIMARY KEY)");
  value("INSERT INTO schema_migrations VALUES ('20260101120000')");
  expect({"import", "--from", "golang-migrate"}, 20);  // dbmate's table has no dirty column
  expect({"import", "--from", "dbmate", "--dry-run"}, 0);
  EXPECT_EQ(value("SELECT to_regclass('_migronaut_migrations') IS NULL"), "t");
  expect({"import", "--from", "dbmate"}, 0);
  EXPECT_EQ(value("SELECT status || ' ' || origin FROM _migronaut_migrations"), "applied dbmate");
  expect({"up"}, 0);
  EXPECT_EQ(value("SELECT to_regclass('a') IS NULL"), "t");
}

// sql-migrate's table as gorp creates it for PostgreSQL (id text, applied_at with time zone).
// Before the import `up` would run the migration it applied again: refused. After it, the
// record keeps sql-migrate's time, and `up` runs only what sql-migrate did not.
TEST_F(PgImportTest, SqlMigrateHistoryKeepsItsTimes) {
  write("1_create_a.sql",
        "-- +migrate Up\nCREATE TABLE a (id int);\n-- +migrate Down\nDROP TABLE a;\n");
  write("2_create_b.sql", "-- +migrate Up notransaction\nCREATE TABLE b (id int);\n");
  value(
      "CREATE TABLE gorp_migrations (id text NOT NULL PRIMARY KEY,"
      " applied_at timestamp with time zone)");
  value("INSERT INTO gorp_migrations VALUES ('1_create_a.sql', '2025-01-02 03:04:05.678+00')");
  expect({"up"}, 24);
  EXPECT_EQ(value("SELECT to_regclass('a') IS NULL"), "t");
  expect({"import", "--from", "sql-migrate"}, 0);
  EXPECT_EQ(applied(), "1_create_a.sql@1735787045678");
  EXPECT_EQ(value("SELECT origin FROM _migronaut_migrations"), "sql-migrate");
  expect({"up"}, 0);
  EXPECT_EQ(value("SELECT to_regclass('a') IS NULL"), "t");  // sql-migrate's run stands
  EXPECT_EQ(value("SELECT to_regclass('b') IS NOT NULL"), "t");
}

// Flyway run with -schemas=hist keeps its history there: named with --table schema.table.
TEST_F(PgImportTest, AHistoryInAnotherSchemaIsImportedByItsQualifiedName) {
  write("V1__create_a.sql", "CREATE TABLE a (id int);\n");
  value("CREATE SCHEMA " + schema_ + "_hist");
  value("CREATE TABLE " + schema_ +
        "_hist.flyway_schema_history (installed_rank int PRIMARY KEY, version varchar(50),"
        " description varchar(200) NOT NULL, type varchar(20) NOT NULL, script varchar(1000)"
        " NOT NULL, checksum int, installed_by varchar(100) NOT NULL, installed_on timestamp NOT"
        " NULL DEFAULT now(), execution_time int NOT NULL, success boolean NOT NULL)");
  value("INSERT INTO " + schema_ +
        "_hist.flyway_schema_history VALUES (1, '1', 'create a', 'SQL', 'V1__create_a.sql', NULL,"
        " 'me', '2025-01-02 03:04:05', 1, true)");
  expect({"import", "--from", "flyway"}, 6);
  expect({"import", "--from", "flyway", "--table", schema_ + "_hist.flyway_schema_history"}, 0);
  EXPECT_EQ(value("SELECT status || ' ' || origin FROM _migronaut_migrations"), "applied flyway");
  expect({"up"}, 0);
  EXPECT_EQ(value("SELECT to_regclass('a') IS NULL"), "t");  // Flyway's run stands
  value("DROP SCHEMA " + schema_ + "_hist CASCADE");
}

}  // namespace
}  // namespace migronaut::testing

// golang-migrate and Flyway files (plain SQL, no `-- migrate:` markers) whose statements all
// cannot run in a transaction block (CREATE INDEX CONCURRENTLY, …), with the real binary on
// PostgreSQL: up runs them outside a transaction, as Flyway does, and a file that mixes them with
// other statements is refused before anything runs, with advice the file can follow (split it).
// migronaut's own files still say it with a marker.
#include <gtest/gtest.h>

#include <map>

#include "support/pg_cluster.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

constexpr int kInvalidFormat = 20;

class PgPlainUntransactedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = PgCluster::run_wide().fresh_schema_uri("postgres", test_schema("plaintx_"));
  }

  // Runs `args` on the folder, expecting `code`; the output of both streams.
  std::string expect(const std::vector<std::string>& args, int code,
                     const std::map<std::string, std::string>& env = {}) const {
    std::vector<std::string> all{"--no-env", "--uri", uri_, "--dir", dir_.path().string()};
    all.insert(all.end(), args.begin(), args.end());
    const ProcessResult result = run_migronaut(all, env);
    EXPECT_EQ(result.exit_code, code) << result.out << result.err;
    return result.out + result.err;
  }
  std::string value(const std::string& sql) const {
    return pg_query_value(uri_, sql).value_or("<null>");
  }
  // "t" when the index exists and is valid (a failed CREATE INDEX CONCURRENTLY leaves it invalid).
  std::string index_valid(const std::string& index) const {
    return value(
        "SELECT coalesce((SELECT indisvalid::text FROM pg_index WHERE indexrelid = "
        "to_regclass('" +
        index + "')), 'missing')");
  }
  // Each record as name:status; "" when there is no changelog (nothing was written).
  std::string records() const {
    if (value("SELECT to_regclass('_migronaut_migrations') IS NULL") == "t") return "";
    return value(
        "SELECT coalesce(string_agg(name || ':' || status, ',' ORDER BY name), '') FROM "
        "_migronaut_migrations");
  }
  void write(const std::string& name, const std::string& sql) const { dir_.write(name, sql); }

  std::string uri_;
  TempDir dir_;
};

TEST_F(PgPlainUntransactedTest, AGolangMigrateConcurrentIndexFileRunsOutsideATransaction) {
  write("000001_t.up.sql", "CREATE TABLE t (email text);\n");
  write("000002_email_idx.up.sql",
        "-- index the e-mails without blocking writes\n"
        "CREATE INDEX CONCURRENTLY t_email ON t (email);\n");
  write("000002_email_idx.down.sql", "DROP INDEX CONCURRENTLY t_email;\n");
  expect({"up"}, 0);
  EXPECT_EQ(index_valid("t_email"), "true");
  EXPECT_EQ(records(), "000001_t.up.sql:applied,000002_email_idx.up.sql:applied");

  // Its down file alike.
  expect({"down", "--steps", "1"}, 0);
  EXPECT_EQ(index_valid("t_email"), "missing");
  EXPECT_EQ(records(), "000001_t.up.sql:applied,000002_email_idx.up.sql:reverted");

  // An explicit useTransaction: true is the default such a file overrides: in a transaction it
  // could not run at all.
  expect({"up"}, 0, {{"MIGRONAUT_USE_TRANSACTION", "true"}});
  EXPECT_EQ(index_valid("t_email"), "true");
}

TEST_F(PgPlainUntransactedTest, AFlywayConcurrentIndexFileRunsOutsideATransactionAndLintsClean) {
  write("V1__t.sql", "CREATE TABLE t (email text);\n");
  write("V2__idx.sql",
        "CREATE INDEX CONCURRENTLY t_email ON t (email);\n"
        "/* the old one */ DROP INDEX CONCURRENTLY IF EXISTS t_email_old;\n");
  // lint judges the file as up runs it: outside a transaction, so nothing to report.
  expect({"up", "--lint"}, 0);
  EXPECT_EQ(index_valid("t_email"), "true");
  EXPECT_EQ(records(), "V1__t.sql:applied,V2__idx.sql:applied");
}

TEST_F(PgPlainUntransactedTest, APlainFileMixingThemIsRefusedWithAdviceToSplitIt) {
  write("000001_t.up.sql", "CREATE TABLE t (email text);\n");
  write("000002_email_idx.up.sql",
        "CREATE TABLE u (id bigint);\n"
        "CREATE INDEX CONCURRENTLY t_email ON t (email);\n");
  const std::string refused = expect({"up"}, kInvalidFormat);
  EXPECT_NE(refused.find("Invalid migration 000002_email_idx.up.sql at line 2, column 1"),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.find("split the file"), std::string::npos) << refused;
  EXPECT_EQ(refused.find("transaction:false"), std::string::npos) << refused;
  // Refused before anything ran: not even the first migration.
  EXPECT_EQ(value("SELECT to_regclass('t') IS NULL AND to_regclass('u') IS NULL"), "t");
  EXPECT_EQ(records(), "");
}

TEST_F(PgPlainUntransactedTest, AMigronautFileWithoutItsMarkerIsStillRefused) {
  write("20260101000001-t.sql", "-- migrate:up\nCREATE TABLE t (email text);\n");
  write("20260101000002-email-idx.sql",
        "-- migrate:up\nCREATE INDEX CONCURRENTLY t_email ON t (email);\n");
  const std::string refused = expect({"up"}, kInvalidFormat);
  EXPECT_NE(refused.find("Invalid migration 20260101000002-email-idx.sql at line 2"),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.find("marked '-- migrate:up transaction:false'"), std::string::npos) << refused;
  EXPECT_EQ(value("SELECT to_regclass('t') IS NULL"), "t");
  EXPECT_EQ(records(), "");
}

}  // namespace
}  // namespace migronaut::testing

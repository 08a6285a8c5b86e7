// `lint`, `lint --pending` and `up --lint` on golang-migrate and Flyway folders as they are, with
// the real binary on PostgreSQL: each file read as up loads it (plain SQL, no `-- migrate:`
// markers), each finding named by its own file and line. And a down file's refused statement
// named by that file, not by its migration's up file; a file named like a migration that up
// skips fails all three.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/pg_cluster.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

constexpr int kLintFailed = 45;
constexpr std::string_view kIndexRule = ": error [require-concurrent-index-creation]";

class PgForeignLintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = PgCluster::run_wide().fresh_schema_uri("postgres", test_schema("lint_"));
    value("CREATE TABLE users (email text)");
  }

  ProcessResult run(std::vector<std::string> args, bool with_uri = true) const {
    std::vector<std::string> all{"--no-env", "--dir", dir_.path().string()};
    if (with_uri) all.insert(all.end(), {"--uri", uri_});
    all.insert(all.end(), args.begin(), args.end());
    return run_migronaut(all);
  }
  // Runs `args`, expecting `code`; the output of both streams.
  std::string expect(const std::vector<std::string>& args, int code, bool with_uri = true) const {
    const ProcessResult result = run(args, with_uri);
    EXPECT_EQ(result.exit_code, code) << result.out << result.err;
    return result.out + result.err;
  }
  // `lint` (no database), `lint --pending` and `up --lint` all pass: up applies.
  void all_lint_clean() const {
    EXPECT_NE(expect({"lint"}, 0, /*with_uri=*/false).find("0 error(s)"), std::string::npos);
    expect({"lint", "--pending"}, 0);
    expect({"up", "--lint"}, 0);
  }
  // `lint`, `lint --pending` and `up --lint` all report `finding`; up applies nothing.
  void all_lint_refuse(const std::string& finding) const {
    const std::string records = applied();
    for (const auto& [args, with_uri] :
         {std::pair{std::vector<std::string>{"lint"}, false},
          std::pair{std::vector<std::string>{"lint", "--pending"}, true},
          std::pair{std::vector<std::string>{"up", "--lint"}, true}}) {
      const std::string output = expect(args, kLintFailed, with_uri);
      EXPECT_NE(output.find(finding), std::string::npos) << args.front() << ": " << output;
    }
    EXPECT_EQ(value("SELECT to_regclass('users_email') IS NULL"), "t");
    EXPECT_EQ(applied(), records);
  }
  std::string value(const std::string& sql) const {
    return pg_query_value(uri_, sql).value_or("<null>");
  }
  std::string applied() const {
    return value(
        "SELECT coalesce(string_agg(name, ',' ORDER BY name), '') FROM _migronaut_migrations "
        "WHERE status = 'applied'");
  }
  void write(const std::string& name, const std::string& sql) const { dir_.write(name, sql); }

  std::string uri_;
  TempDir dir_;
};

TEST_F(PgForeignLintTest, AGolangMigrateFolderLintsItsUpFiles) {
  write("000001_create_a.up.sql", "-- the a table\nCREATE TABLE a (id bigint);\n");
  write("000001_create_a.down.sql", "DROP TABLE a;\n");
  all_lint_clean();
  EXPECT_EQ(applied(), "000001_create_a.up.sql");

  write("000002_idx.up.sql", "-- index the e-mails\nCREATE INDEX users_email ON users (email);\n");
  write("000002_idx.down.sql", "\nDROP INDEX users_email;\n");
  all_lint_refuse("000002_idx.up.sql:2:1" + std::string(kIndexRule));
  // A down file named on the command line is linted as the down it is, at its own lines.
  const std::string down = (dir_.path() / "000002_idx.down.sql").string();
  EXPECT_NE(expect({"lint", down}, kLintFailed, /*with_uri=*/false)
                .find("000002_idx.down.sql:2:1: error [require-concurrent-index-deletion]"),
            std::string::npos);
}

TEST_F(PgForeignLintTest, AFlywayFolderLintsItsVersionedAndRepeatableFiles) {
  write("V1__create_a.sql", "CREATE TABLE a (id bigint);\n");
  write("U1__create_a.sql", "DROP TABLE a;\n");
  write("R__views.sql", "CREATE OR REPLACE VIEW a_ids AS SELECT id FROM a;\n");
  all_lint_clean();
  EXPECT_EQ(applied(), "R__views.sql,V1__create_a.sql");
  EXPECT_EQ(value("SELECT to_regclass('a_ids') IS NOT NULL"), "t");

  write("V2__idx.sql", "\n\nCREATE INDEX users_email ON users (email);\n");
  all_lint_refuse("V2__idx.sql:3:1" + std::string(kIndexRule));
  write("V2__idx.sql", "CREATE TABLE b (id bigint);\n");
  write("R__views.sql",
        "CREATE OR REPLACE VIEW a_ids AS SELECT id FROM a;\nCREATE INDEX users_email ON users "
        "(email);\n");
  all_lint_refuse("R__views.sql:2:1" + std::string(kIndexRule));
}

// A file meant as a migration that up skips for its name would never run: lint, lint --pending
// and up --lint fail naming it, and nothing is applied; up alone names it and applies the rest.
// An editor's backup beside its migration fails nothing.
TEST_F(PgForeignLintTest, AFileNamedLikeAMigrationThatUpSkipsFailsLint) {
  write("V1__create_a.sql", "CREATE TABLE a (id bigint);\n");
  write("V1__create_a.sql~", "CREATE TABLE a (id bigint);\n");
  all_lint_clean();
  write("V2__create_b.psql", "CREATE TABLE b (id bigint);\n");
  write("V3__create_c.sql", "CREATE TABLE c (id bigint);\n");
  all_lint_refuse("V2__create_b.psql: error [ignored-migration-file]");

  const ProcessResult up = run({"up"});
  EXPECT_EQ(up.exit_code, 0) << up.out << up.err;
  EXPECT_NE(up.err.find("Ignored V2__create_b.psql: named like a migration"), std::string::npos)
      << up.err;
  EXPECT_EQ(applied(), "V1__create_a.sql,V3__create_c.sql");
  EXPECT_EQ(value("SELECT to_regclass('b') IS NULL"), "t");
}

// A Flyway placeholder that up would refuse fails lint, where it is; with the database, as up
// refuses it (exit 20), before anything runs.
TEST_F(PgForeignLintTest, AFlywayPlaceholderFailsLint) {
  write("V1__a.sql", "CREATE TABLE a (who text);\n");
  all_lint_clean();
  write("V2__b.sql", "CREATE TABLE b (who text);\nINSERT INTO b VALUES ('${owner}');\n");
  EXPECT_NE(
      expect({"lint"}, 45, /*with_uri=*/false).find("V2__b.sql:2:24: error [flyway-placeholder]"),
      std::string::npos);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"lint", "--pending"}, std::vector<std::string>{"up", "--lint"}}) {
    EXPECT_NE(expect(args, 20).find("V2__b.sql at line 2: the Flyway placeholder ${owner}"),
              std::string::npos);
  }
  EXPECT_EQ(applied(), "V1__a.sql");
  EXPECT_EQ(value("SELECT to_regclass('b') IS NULL"), "t");
}

TEST_F(PgForeignLintTest, ADownFilesRefusedStatementIsNamedByThatFile) {
  write("000001_create_a.up.sql", "CREATE TABLE a (id bigint);\n");
  write("000002_idx.up.sql", "CREATE INDEX a_id ON a (id);\n");
  write("000002_idx.down.sql",
        "DROP INDEX a_id;\n-- put back the old one\nCREATE INDEX CONCURRENTLY a_old ON a (id);\n");
  expect({"up"}, 0);
  const std::string refused = expect({"down", "--steps", "1"}, 20);
  EXPECT_NE(refused.find("Invalid migration 000002_idx.down.sql at line 3"), std::string::npos)
      << refused;
  EXPECT_EQ(refused.find("000002_idx.up.sql at line"), std::string::npos) << refused;
  EXPECT_EQ(value("SELECT to_regclass('a_id') IS NOT NULL"), "t");
  EXPECT_EQ(applied(), "000001_create_a.up.sql,000002_idx.up.sql");
}

}  // namespace
}  // namespace migronaut::testing

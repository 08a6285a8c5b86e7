#include "sql/pg/lint.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

// "rule@offset" for each finding of `script`.
std::vector<std::string> findings_of(const std::string& script, LintOptions options = {}) {
  std::vector<std::string> found;
  for (const LintFinding& finding : lint_pg_script(script, options)) {
    found.push_back(std::string(finding.rule->id) + "@" + std::to_string(finding.offset));
  }
  return found;
}

using Found = std::vector<std::string>;
constexpr LintOptions kTimeoutsSet{
    .transactional = true, .runner_sets_lock_timeout = true, .runner_sets_statement_timeout = true};

TEST(LintTest, EveryRuleHasItsTextAndIsFoundById) {
  for (const LintRule& rule : lint_rules()) {
    EXPECT_EQ(find_lint_rule(rule.id), &rule);
    EXPECT_FALSE(rule.why.empty()) << rule.id;
    EXPECT_FALSE(rule.help.empty()) << rule.id;
  }
  EXPECT_EQ(find_lint_rule("no-such-rule"), nullptr);
}

TEST(LintTest, TablesCreatedInTheMigrationAreNotLiveYet) {
  EXPECT_EQ(findings_of("CREATE INDEX i ON users (email);", kTimeoutsSet),
            (Found{"require-concurrent-index-creation@0"}));
  EXPECT_EQ(findings_of("CREATE TABLE t (id bigint, email text);\nCREATE INDEX i ON t (email);\n"
                        "ALTER TABLE t ADD COLUMN n bigint NOT NULL;",
                        kTimeoutsSet),
            Found{});
}

TEST(LintTest, TimeoutsAreReportedOnceWhereFirstNeeded) {
  EXPECT_EQ(findings_of("SELECT 1;\nDROP INDEX CONCURRENTLY IF EXISTS i;\n"
                        "DROP INDEX CONCURRENTLY IF EXISTS j;",
                        {.transactional = false}),
            (Found{"require-lock-timeout@10", "require-statement-timeout@10"}));
  EXPECT_EQ(findings_of("SET lock_timeout = '2s';\nSET statement_timeout = '1min';\n"
                        "DROP INDEX CONCURRENTLY IF EXISTS i;",
                        {.transactional = false}),
            Found{});
}

TEST(LintTest, AllowCommentsExemptOneStatementAndNeedAReason) {
  const std::string script =
      "-- migronaut:allow require-concurrent-index-creation the table is empty\n"
      "CREATE INDEX i ON users (email);\n"
      "CREATE INDEX j ON users (name); -- migronaut:allow require-concurrent-index-creation tiny\n"
      "CREATE INDEX k ON users (age);\n"
      "-- migronaut:allow require-concurrent-index-creation\n"
      "CREATE INDEX l ON users (zip);";
  EXPECT_EQ(
      findings_of(script, kTimeoutsSet),
      (Found{
          "require-concurrent-index-creation@" + std::to_string(script.find("CREATE INDEX k")),
          "require-concurrent-index-creation@" + std::to_string(script.find("CREATE INDEX l"))}));
}

TEST(LintTest, ReRunnabilityMattersOnlyOutsideATransaction) {
  const std::string script = "CREATE TABLE t (id bigint);";
  EXPECT_EQ(findings_of(script, kTimeoutsSet), Found{});
  EXPECT_EQ(findings_of(script, {.transactional = false}), (Found{"prefer-robust-stmts@0"}));
  EXPECT_EQ(findings_of("CREATE TABLE IF NOT EXISTS t (id bigint);", {.transactional = false}),
            Found{});
  EXPECT_EQ(findings_of("ALTER TABLE t DROP CONSTRAINT IF EXISTS c;\n"
                        "ALTER TABLE t ADD CONSTRAINT c CHECK (id > 0) NOT VALID;",
                        {.transactional = false,
                         .runner_sets_lock_timeout = true,
                         .runner_sets_statement_timeout = true}),
            Found{});
}

TEST(LintTest, TransactionConflictsAndParseErrorsAreFindings) {
  EXPECT_EQ(findings_of("SELECT 1; COMMIT;", kTimeoutsSet), (Found{"transaction-nesting@10"}));
  EXPECT_EQ(findings_of("SELECT 1; COMMIT;", {.transactional = false}), Found{});
  EXPECT_EQ(findings_of("SELECT 1;\nSELEC 2;", kTimeoutsSet), (Found{"parse-error@10"}));
}

TEST(LintTest, VolatileDefaultsOnly) {
  EXPECT_EQ(findings_of("ALTER TABLE t ADD COLUMN c timestamptz DEFAULT now();", kTimeoutsSet),
            Found{});
  EXPECT_EQ(findings_of("ALTER TABLE t ADD COLUMN c uuid DEFAULT gen_random_uuid();", kTimeoutsSet),
            (Found{"adding-field-with-default@0"}));
}

}  // namespace
}  // namespace migronaut

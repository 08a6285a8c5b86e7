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
  // In a transaction CONCURRENTLY is refused as that alone: "outside a transaction" would not be
  // what the file says, and the error's detail does not repeat its rule's words.
  const std::vector<LintFinding> concurrent =
      lint_pg_script("CREATE INDEX CONCURRENTLY i ON t (c);", kTimeoutsSet);
  ASSERT_EQ(concurrent.size(), 1u);
  EXPECT_EQ(concurrent[0].rule->id, "ban-concurrent-index-creation-in-transaction");
  EXPECT_EQ(concurrent[0].detail, "");
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

// A transaction:false section's usual statement: an enum's new value, which fails "already
// exists" when a half-applied section runs again, unless IF NOT EXISTS.
TEST(LintTest, AnEnumValueAddedOutsideATransactionNeedsIfNotExists) {
  constexpr LintOptions kOutside{.transactional = false};
  EXPECT_EQ(findings_of("ALTER TYPE mood ADD VALUE 'happy';", kOutside),
            (Found{"prefer-robust-stmts@0"}));
  EXPECT_EQ(findings_of("ALTER TYPE mood RENAME VALUE 'sad' TO 'blue';", kOutside),
            (Found{"prefer-robust-stmts@0"}));
  EXPECT_EQ(findings_of("ALTER TYPE mood ADD VALUE IF NOT EXISTS 'happy';", kOutside), Found{});
  EXPECT_EQ(findings_of("ALTER TYPE mood ADD VALUE 'happy';", kTimeoutsSet), Found{});
}

// The remedy prefer-robust-stmts' help gives for an index: dropped IF EXISTS earlier in the
// file, the same index (as named), which also removes an INVALID one a failed build left.
TEST(LintTest, AnIndexDroppedIfExistsBeforeItIsReRunnable) {
  constexpr LintOptions kOutside{.transactional = false,
                                 .runner_sets_lock_timeout = true,
                                 .runner_sets_statement_timeout = true};
  EXPECT_EQ(findings_of("DROP INDEX CONCURRENTLY IF EXISTS i;\n"
                        "CREATE UNIQUE INDEX CONCURRENTLY i ON t (c);",
                        kOutside),
            Found{});
  EXPECT_EQ(findings_of("DROP INDEX CONCURRENTLY IF EXISTS s.i;\n"
                        "CREATE INDEX CONCURRENTLY i ON s.t (c);",
                        kOutside),
            Found{});
  // Another index, one dropped after, one the drop may not name (a search_path decides).
  EXPECT_EQ(
      findings_of("DROP INDEX CONCURRENTLY IF EXISTS j;\nCREATE INDEX CONCURRENTLY i ON t (c);",
                  kOutside),
      (Found{"prefer-robust-stmts@37"}));
  EXPECT_EQ(
      findings_of("CREATE INDEX CONCURRENTLY i ON t (c);\nDROP INDEX CONCURRENTLY IF EXISTS i;",
                  kOutside),
      (Found{"prefer-robust-stmts@0"}));
  EXPECT_EQ(findings_of("DROP INDEX CONCURRENTLY IF EXISTS i;\n"
                        "CREATE INDEX CONCURRENTLY i ON s.t (c);",
                        kOutside),
            (Found{"prefer-robust-stmts@37"}));
}

// The rules' help agrees with the README: IF NOT EXISTS alone skips an INVALID index; and a
// transaction:false migration cannot take a timeout option on its marker.
TEST(LintTest, HelpAdvisesWhatTheMigrationCanDo) {
  EXPECT_NE(find_lint_rule("require-concurrent-index-creation")
                ->help.find("DROP INDEX CONCURRENTLY IF EXISTS …, then CREATE INDEX CONCURRENTLY"),
            std::string_view::npos);
  const std::string_view statement_timeout = find_lint_rule("require-statement-timeout")->help;
  EXPECT_TRUE(statement_timeout.starts_with("SET statement_timeout")) << statement_timeout;
  EXPECT_NE(statement_timeout.find("(transactional migrations only) a 'statement_timeout:'"),
            std::string_view::npos);
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

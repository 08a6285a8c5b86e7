// `migronaut lint` on the corpus (tests/lint/corpus: <rule>.fail.sql and <rule>.pass.sql for
// every rule), through the real binary; and squawk as the reference: on every corpus file, each
// finding squawk reports for a rule lint implements is reported by lint on the same line.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sql/pg/lint.hpp"
#include "support/process.hpp"

namespace migronaut::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = MIGRONAUT_LINT_CORPUS;
const fs::path kSquawk =
    fs::path(MIGRONAUT_SQUAWK_PREFIX) / "node_modules/@squawk-cli/linux-x64/bin/squawk";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// (rule, line) of a finding.
using Finding = std::pair<std::string, int>;

struct LintRun {
  int exit_code = -1;
  std::set<Finding> findings;
};

LintRun lint(const fs::path& file) {
  const ProcessResult result = run_migronaut({"--no-env", "--json", "lint", file.string()});
  LintRun run{result.exit_code, {}};
  const nlohmann::json document = nlohmann::json::parse(result.out);
  for (const nlohmann::json& finding : document.at("findings")) {
    run.findings.emplace(finding["rule"], finding["line"]);
  }
  return run;
}

std::set<std::string> rules_of(const std::set<Finding>& findings) {
  std::set<std::string> rules;
  for (const auto& [rule, line] : findings) rules.insert(rule);
  return rules;
}

bool has_error(const std::set<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& finding) {
    return find_lint_rule(finding.first)->severity == LintSeverity::kError;
  });
}

// squawk's findings on `file` for the rules lint implements, lines made 1-based. It lints the
// file as migronaut runs it: inside a transaction unless the migration says transaction:false.
std::set<Finding> squawk(const fs::path& file) {
  std::vector<std::string> argv{kSquawk.string(), "--reporter", "json"};
  if (read(file).find("transaction:false") == std::string::npos) {
    argv.emplace_back("--assume-in-transaction");
  }
  argv.push_back(file.string());
  Process process(argv);
  const std::optional<ProcessResult> result = process.wait_for(std::chrono::seconds(30));
  if (!result) throw std::runtime_error("squawk did not finish on " + file.string());
  std::set<Finding> findings;
  for (const nlohmann::json& finding : nlohmann::json::parse(result->out)) {
    const std::string rule = finding["rule_name"];
    if (find_lint_rule(rule) != nullptr) findings.emplace(rule, finding["line"].get<int>() + 1);
  }
  return findings;
}

TEST(LintCorpusTest, EveryRuleFailsItsFailingCaseAndPassesItsPassingOne) {
  for (const LintRule& rule : lint_rules()) {
    const std::string id(rule.id);
    const fs::path failing = kCorpus / (id + ".fail.sql");
    const fs::path passing = kCorpus / (id + ".pass.sql");
    ASSERT_TRUE(fs::exists(failing) && fs::exists(passing)) << "no corpus for " << id;

    const LintRun failed = lint(failing);
    EXPECT_TRUE(rules_of(failed.findings).contains(id)) << failing;
    EXPECT_EQ(failed.exit_code, has_error(failed.findings) ? 45 : 0) << failing;
    if (rule.severity == LintSeverity::kError) {
      EXPECT_EQ(failed.exit_code, 45) << failing;
    }
    const LintRun passed = lint(passing);
    EXPECT_EQ(passed.findings, std::set<Finding>{}) << passing;
    EXPECT_EQ(passed.exit_code, 0) << passing;
  }
}

TEST(LintCorpusTest, ReportsEveryFindingSquawkReportsForTheRulesItImplements) {
  if (!fs::exists(kSquawk)) {
    const std::string log = read(fs::path(MIGRONAUT_SQUAWK_PREFIX) / "install.log");
    GTEST_SKIP() << "squawk is not installed (npm): " << log;
  }
  std::size_t compared = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kCorpus)) {
    const std::set<Finding> lint_findings = lint(entry.path()).findings;
    for (const Finding& expected : squawk(entry.path())) {
      EXPECT_TRUE(lint_findings.contains(expected))
          << entry.path().filename() << ": squawk reports " << expected.first << " on line "
          << expected.second << "; lint does not";
      ++compared;
    }
  }
  // The corpus is what squawk judges too: a run that compared nothing proves nothing.
  EXPECT_GE(compared, lint_rules().size() - 3);
}

}  // namespace
}  // namespace migronaut::testing

// `migronaut lint` on PostgreSQL migrations: each statement, as PostgreSQL's parser reads it,
// checked for what blocks or breaks a running application (plain index builds on live tables,
// rewrites, validating constraints under a lock, renames and drops clients still use, 32-bit
// keys, statements that cannot run or be re-run where the migration runs them). Rule ids are
// squawk's where squawk has the rule, so teams moving over keep their vocabulary.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace migronaut {

enum class LintSeverity { kWarning, kError };
std::string_view lint_severity_name(LintSeverity severity);  // "warning" / "error"

struct LintRule {
  std::string_view id;  // "require-concurrent-index-creation"
  LintSeverity severity;
  std::string_view why;   // what goes wrong in production
  std::string_view help;  // the safe alternative
};

// Every rule lint implements, in a stable order.
const std::vector<LintRule>& lint_rules();
const LintRule* find_lint_rule(std::string_view id);

struct LintFinding {
  const LintRule* rule = nullptr;
  std::size_t offset = 0;  // the statement's first token, in bytes from the script's start
  std::string detail;      // what this statement does, when the rule's text alone is vague
};

// How the script will run, which decides what is safe.
struct LintOptions {
  bool transactional = true;
  // migronaut sets these itself for the migration (SET LOCAL in its transaction).
  bool runner_sets_lock_timeout = false;
  bool runner_sets_statement_timeout = false;
};

// The findings of `script`, in statement order. A statement preceded by (or ending its line
// with) `-- migronaut:allow <rule> <reason>` is exempt from that rule; the reason is required.
std::vector<LintFinding> lint_pg_script(std::string_view script, const LintOptions& options);

}  // namespace migronaut

// The per-statement checks behind lint_pg_script() (src/sql/pg/lint.cpp), which owns the rule
// table and the suppressions.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "sql/pg/lint.hpp"
#include "sql/pg/pg_script.hpp"

namespace migronaut {

// What the statements so far have done, for the checks that depend on it.
struct LintState {
  LintOptions options;
  std::set<std::string> created_tables;         // new in this migration: nobody reads them yet
  std::set<std::string> not_valid_constraints;  // added NOT VALID in this migration
  std::set<std::string> dropped_constraints;    // dropped IF EXISTS in this migration
  std::set<std::string> dropped_indexes;        // likewise, named as written ("s.i" or "i")
  bool lock_timeout_set = false;
  bool statement_timeout_set = false;
};

// Reports a finding of rule `id` on the statement being checked.
using LintReport = std::function<void(std::string_view id, std::string detail)>;

void check_statement(const PgStatement& statement, LintState& state, const LintReport& report);

}  // namespace migronaut

// A PostgreSQL script as PostgreSQL's own parser reads it (libpg_query, the PostgreSQL 15
// grammar): its statements, where each lies in the text, and the parse tree of each in
// libpg_query's JSON form ({"IndexStmt": {...}}). One parser serves the transaction check, lint
// and error positions.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace migronaut {

struct PgStatement {
  std::size_t offset = 0;  // the statement's first token, in bytes from the script's start
  std::size_t end = 0;     // one past its last byte (its ';' excluded)
  // The node under "stmt": {"IndexStmt": {...}}; null when the statement does not parse.
  nlohmann::json tree;
  // What the "location" fields inside `tree` count from, in bytes from the script's start.
  std::size_t tree_base = 0;
  std::string error;             // the parser's message when it does not parse
  std::size_t error_offset = 0;  // where the parser stopped, in bytes from the script's start

  bool parsed() const { return !tree.is_null(); }
  // "IndexStmt", "TransactionStmt", …; empty when the statement does not parse.
  std::string kind() const;
  // The statement's own node: tree[kind()].
  const nlohmann::json& node() const;
  std::string_view text(std::string_view script) const {
    return script.substr(offset, end - offset);
  }
};

// Splits and parses `script`. The whole script is parsed at once when it parses (the parser
// splits best: function bodies, CREATE RULE); otherwise the scanner splits it and each statement
// is parsed alone, so one statement the grammar does not know (a newer server's syntax) hides
// none of the others.
std::vector<PgStatement> parse_pg_script(std::string_view script);

// The statement of `statements` that holds byte `offset`, or nullptr.
const PgStatement* statement_at(const std::vector<PgStatement>& statements, std::size_t offset);

}  // namespace migronaut

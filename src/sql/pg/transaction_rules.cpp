#include "sql/pg/transaction_rules.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "sql/pg/lint.hpp"
#include "sql/savepoints.hpp"

namespace migronaut {
namespace {

using nlohmann::json;

struct Verdict {
  std::string rule;
  std::string reason;
};

Verdict nesting(const std::string& reason) { return {"transaction-nesting", reason}; }
Verdict incompatible(const std::string& what) {
  return {"transaction-incompatible", what + " cannot run inside a transaction block"};
}

// Whether a list of DefElem options (REINDEX's "params") holds `name`.
bool has_option(const json& node, const char* list, const char* name) {
  for (const json& option : node.value(list, json::array())) {
    if (option.contains("DefElem") && option["DefElem"].value("defname", "") == name) return true;
  }
  return false;
}

// BEGIN, COMMIT and their kin; SAVEPOINT, RELEASE and ROLLBACK TO only when misused.
std::optional<Verdict> judge_transaction(const json& stmt, SavepointStack& savepoints) {
  const std::string kind = stmt.value("kind", "");
  const std::string name = stmt.value("savepoint_name", "");
  if (kind == "TRANS_STMT_SAVEPOINT") {
    savepoints.open(name);
    return std::nullopt;
  }
  if ((kind == "TRANS_STMT_RELEASE" && savepoints.release(name)) ||
      (kind == "TRANS_STMT_ROLLBACK_TO" && savepoints.rollback_to(name))) {
    return std::nullopt;
  }
  if (kind == "TRANS_STMT_RELEASE" || kind == "TRANS_STMT_ROLLBACK_TO") {
    return nesting("savepoint \"" + name + "\" was not opened by this migration");
  }
  if (kind == "TRANS_STMT_BEGIN" || kind == "TRANS_STMT_START") {
    return nesting("the migration already runs in a transaction; BEGIN would nest one");
  }
  // COMMIT, END, ROLLBACK, PREPARE TRANSACTION, COMMIT/ROLLBACK PREPARED.
  return nesting(
      "it ends the transaction migronaut runs the migration in: what came before it would "
      "commit (or vanish) without the migration being recorded");
}

std::optional<Verdict> judge_alter_table(const json& node) {
  for (const json& cmd : node.value("cmds", json::array())) {
    const json& alter = cmd.value("AlterTableCmd", json::object());
    if (alter.value("subtype", "") == "AT_DetachPartition" &&
        alter.value("def", json::object())
            .value("PartitionCmd", json::object())
            .value("concurrent", false)) {
      return incompatible("DETACH PARTITION CONCURRENTLY");
    }
  }
  return std::nullopt;
}

std::optional<Verdict> judge(const PgStatement& statement, SavepointStack& savepoints) {
  const std::string kind = statement.kind();
  const json& node = statement.node();
  if (kind == "TransactionStmt") return judge_transaction(node, savepoints);
  if (kind == "IndexStmt" && node.value("concurrent", false)) {
    constexpr std::string_view kRule = "ban-concurrent-index-creation-in-transaction";
    return Verdict{std::string(kRule), std::string(find_lint_rule(kRule)->why)};  // its words
  }
  if (kind == "DropStmt" && node.value("concurrent", false)) {
    return incompatible("DROP INDEX CONCURRENTLY");
  }
  if (kind == "ReindexStmt" && has_option(node, "params", "concurrently")) {
    return incompatible("REINDEX CONCURRENTLY");
  }
  static const std::set<std::string> kWholeReindex = {
      "REINDEX_OBJECT_SCHEMA", "REINDEX_OBJECT_SYSTEM", "REINDEX_OBJECT_DATABASE"};
  if (kind == "ReindexStmt" && kWholeReindex.contains(node.value("kind", ""))) {
    return incompatible("REINDEX SCHEMA, SYSTEM or DATABASE");
  }
  if (kind == "VacuumStmt" && node.value("is_vacuumcmd", false)) return incompatible("VACUUM");
  if (kind == "AlterTableStmt") return judge_alter_table(node);
  static const std::set<std::string> kNeverInTransaction = {
      "CreatedbStmt",        "DropdbStmt",      "CreateTableSpaceStmt",
      "DropTableSpaceStmt",  "AlterSystemStmt", "CreateSubscriptionStmt",
      "DropSubscriptionStmt"};
  if (kNeverInTransaction.contains(kind)) {
    return incompatible(kind.substr(0, kind.size() - std::string("Stmt").size()));
  }
  if (kind == "DiscardStmt" && node.value("target", "") == "DISCARD_ALL") {
    return incompatible("DISCARD ALL");
  }
  return std::nullopt;
}

}  // namespace

std::vector<TransactionConflict> transaction_conflicts(const std::vector<PgStatement>& statements) {
  std::vector<TransactionConflict> conflicts;
  SavepointStack savepoints;
  for (const PgStatement& statement : statements) {
    if (!statement.parsed()) continue;
    if (std::optional<Verdict> verdict = judge(statement, savepoints)) {
      conflicts.push_back({&statement, std::move(verdict->rule), std::move(verdict->reason)});
    }
  }
  return conflicts;
}

bool runs_only_outside_transaction(std::string_view script) {
  const std::vector<PgStatement> statements = parse_pg_script(script);
  const std::vector<TransactionConflict> conflicts = transaction_conflicts(statements);
  // One conflict at most per statement, and none for a statement that does not parse.
  return !statements.empty() && conflicts.size() == statements.size() &&
         std::none_of(conflicts.begin(), conflicts.end(),
                      [](const TransactionConflict& c) { return c.rule == "transaction-nesting"; });
}

}  // namespace migronaut

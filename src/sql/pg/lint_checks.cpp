#include "sql/pg/lint_checks.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace migronaut {
namespace {

using nlohmann::json;

const json& field(const json& node, const char* key) {
  static const json kNull;
  const auto found = node.find(key);
  return found == node.end() ? kNull : *found;
}

const json& items(const json& node, const char* key) {
  static const json kEmpty = json::array();
  const json& list = field(node, key);
  return list.is_array() ? list : kEmpty;
}

std::string text(const json& node, const char* key) {
  const json& value = field(node, key);
  return value.is_string() ? value.get<std::string>() : "";
}

bool flag(const json& node, const char* key) {
  const json& value = field(node, key);
  return value.is_boolean() && value.get<bool>();
}

std::string table_of(const json& node) { return text(field(node, "relation"), "relname"); }

// A CREATE INDEX's name as a DROP INDEX would write it: qualified when its table is.
std::string index_name(const json& node) {
  const std::string schema = text(field(node, "relation"), "schemaname");
  const std::string name = text(node, "idxname");
  return schema.empty() || name.empty() ? name : schema + "." + name;
}

// The names a DROP removes, each as written: "i", "s.i".
std::vector<std::string> dropped_names(const json& node) {
  std::vector<std::string> names;
  for (const json& object : items(node, "objects")) {
    std::string name;
    for (const json& part : items(field(object, "List"), "items")) {
      name += (name.empty() ? "" : ".") + text(field(part, "String"), "sval");
    }
    names.push_back(name);
  }
  return names;
}

// The type's own name: "int4" for int, "serial" for serial, "varchar" for varchar(20).
std::string type_name(const json& column) {
  const json& names = items(field(column, "typeName"), "names");
  if (names.empty()) return "";
  std::string name = text(field(names.back(), "String"), "sval");
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::vector<json> constraints_of(const json& column) {
  std::vector<json> constraints;
  for (const json& item : items(column, "constraints")) {
    if (item.contains("Constraint")) constraints.push_back(item["Constraint"]);
  }
  return constraints;
}

bool has_constraint(const json& column, std::string_view contype) {
  const std::vector<json> constraints = constraints_of(column);
  return std::any_of(constraints.begin(), constraints.end(),
                     [&](const json& c) { return text(c, "contype") == contype; });
}

// Functions a column default may call without PostgreSQL rewriting the table: their value is
// computed once for the ALTER and stored in the catalog.
bool is_stable_function(const json& call) {
  static const std::set<std::string> kStable = {"now", "transaction_timestamp",
                                                "statement_timestamp", "current_setting"};
  const json& names = items(call, "funcname");
  return !names.empty() && kStable.contains(text(field(names.back(), "String"), "sval"));
}

// Whether an expression calls anything but a known-stable function.
bool calls_volatile(const json& node) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      if (key == "FuncCall" && !is_stable_function(value)) return true;
      if (calls_volatile(value)) return true;
    }
  } else if (node.is_array()) {
    return std::any_of(node.begin(), node.end(), [](const json& n) { return calls_volatile(n); });
  }
  return false;
}

void check_column_type(const json& column, const LintReport& report) {
  static const std::set<std::string> kInt = {"int4", "int", "integer", "serial", "serial4"};
  static const std::set<std::string> kSmallInt = {"int2", "smallint", "smallserial", "serial2"};
  static const std::set<std::string> kSerial = {"serial",  "serial4",     "serial2",
                                                "serial8", "smallserial", "bigserial"};
  const std::string type = type_name(column);
  const std::string name = text(column, "colname");
  if (kInt.contains(type)) report("prefer-bigint-over-int", "column " + name + " is " + type);
  if (kSmallInt.contains(type)) {
    report("prefer-bigint-over-smallint", "column " + name + " is " + type);
  }
  if (kSerial.contains(type)) report("prefer-identity", "column " + name + " is " + type);
  if (type == "varchar" && !items(field(column, "typeName"), "typmods").empty()) {
    report("prefer-text-field", "column " + name + " is varchar(n)");
  }
}

void check_added_column(const json& column, bool existing, const LintReport& report) {
  check_column_type(column, report);
  if (!existing) return;
  const std::string name = text(column, "colname");
  for (const json& constraint : constraints_of(column)) {
    const std::string type = text(constraint, "contype");
    if ((type == "CONSTR_DEFAULT" && calls_volatile(field(constraint, "raw_expr"))) ||
        (type == "CONSTR_GENERATED")) {
      report("adding-field-with-default", "column " + name);
    }
    if (type == "CONSTR_FOREIGN" && !flag(constraint, "skip_validation")) {
      report("adding-foreign-key-constraint", "column " + name);
    }
  }
  if (has_constraint(column, "CONSTR_NOTNULL") && !has_constraint(column, "CONSTR_DEFAULT") &&
      !has_constraint(column, "CONSTR_GENERATED") && !has_constraint(column, "CONSTR_IDENTITY")) {
    report("adding-required-field", "column " + name);
  }
}

void check_added_constraint(const json& constraint, bool existing, LintState& state,
                            const LintReport& report) {
  const std::string type = text(constraint, "contype");
  const std::string name = text(constraint, "conname");
  const bool not_valid = flag(constraint, "skip_validation");
  const bool using_index = !text(constraint, "indexname").empty();
  if (not_valid) state.not_valid_constraints.insert(name);
  if (!existing) return;
  static const std::set<std::string> kValidated = {
      "CONSTR_CHECK", "CONSTR_FOREIGN", "CONSTR_UNIQUE", "CONSTR_PRIMARY", "CONSTR_EXCLUSION"};
  if (kValidated.contains(type) && !not_valid && !using_index) {
    report("constraint-missing-not-valid", "constraint " + name);
  }
  if (type == "CONSTR_FOREIGN" && !not_valid) {
    report("adding-foreign-key-constraint", "constraint " + name);
  }
  if (type == "CONSTR_UNIQUE" && !using_index) {
    report("disallowed-unique-constraint", "constraint " + name);
  }
}

// Whether a command of ALTER TABLE could be run again after a partial failure.
bool rerunnable(const json& cmd, const LintState& state) {
  const std::string subtype = text(cmd, "subtype");
  if (subtype == "AT_ValidateConstraint") return true;
  if (subtype == "AT_AddColumn" || subtype == "AT_DropColumn" || subtype == "AT_DropConstraint") {
    return flag(cmd, "missing_ok");
  }
  if (subtype == "AT_AddConstraint") {
    return state.dropped_constraints.contains(
        text(field(field(cmd, "def"), "Constraint"), "conname"));
  }
  return false;
}

void check_alter_table(const json& node, LintState& state, const LintReport& report) {
  const std::string table = table_of(node);
  const bool existing = !state.created_tables.contains(table);
  for (const json& item : items(node, "cmds")) {
    const json& cmd = field(item, "AlterTableCmd");
    const std::string subtype = text(cmd, "subtype");
    const std::string column = text(cmd, "name");
    if (!state.options.transactional && !rerunnable(cmd, state)) {
      report("prefer-robust-stmts", "ALTER TABLE " + table);
    }
    if (subtype == "AT_AddColumn") {
      check_added_column(field(field(cmd, "def"), "ColumnDef"), existing, report);
    } else if (subtype == "AT_AddConstraint") {
      check_added_constraint(field(field(cmd, "def"), "Constraint"), existing, state, report);
    } else if (subtype == "AT_DropConstraint" && flag(cmd, "missing_ok")) {
      state.dropped_constraints.insert(column);
    } else if (subtype == "AT_ValidateConstraint" && state.options.transactional &&
               state.not_valid_constraints.contains(column)) {
      report("constraint-missing-not-valid",
             "constraint " + column + " is validated in the transaction that added it");
    } else if (subtype == "AT_SetNotNull" && existing) {
      report("adding-not-nullable-field", "column " + column);
    } else if (subtype == "AT_AlterColumnType" && existing) {
      report("changing-column-type", "column " + column);
    } else if (subtype == "AT_DropColumn") {
      report("ban-drop-column", "column " + column);
    }
  }
}

void check_create_table(const json& node, LintState& state, const LintReport& report) {
  state.created_tables.insert(table_of(node));
  if (!state.options.transactional && !flag(node, "if_not_exists")) {
    report("prefer-robust-stmts", "CREATE TABLE " + table_of(node));
  }
  for (const json& element : items(node, "tableElts")) {
    if (element.contains("ColumnDef")) check_column_type(element["ColumnDef"], report);
  }
}

void check_index(const json& node, const LintState& state, const LintReport& report) {
  const bool concurrent = flag(node, "concurrent");
  const std::string table = table_of(node);
  if (!concurrent && !state.created_tables.contains(table)) {
    report("require-concurrent-index-creation", "on table " + table);
  }
  // Outside a transaction (where CONCURRENTLY must run: inside one, another rule refuses it) an
  // index must survive being built again: IF NOT EXISTS does, and so does the index dropped IF
  // EXISTS before (which also removes an INVALID one a failed build left, which IF NOT EXISTS
  // would take for done).
  if (!state.options.transactional && !flag(node, "if_not_exists") &&
      !state.dropped_indexes.contains(index_name(node))) {
    report("prefer-robust-stmts", "CREATE INDEX on " + table);
  }
}

void check_drop(const json& node, LintState& state, const LintReport& report) {
  const std::string kind = text(node, "removeType");
  if (kind == "OBJECT_INDEX" && flag(node, "missing_ok")) {
    for (std::string& name : dropped_names(node)) state.dropped_indexes.insert(std::move(name));
  }
  if (kind == "OBJECT_INDEX" && !flag(node, "concurrent")) {
    report("require-concurrent-index-deletion", "");
  }
  if (kind == "OBJECT_TABLE") report("ban-drop-table", "");
  if (!state.options.transactional && !flag(node, "missing_ok")) {
    report("prefer-robust-stmts", "DROP without IF EXISTS");
  }
}

// ALTER TYPE … ADD VALUE runs again only with IF NOT EXISTS; RENAME VALUE never does.
void check_alter_enum(const json& node, const LintState& state, const LintReport& report) {
  if (state.options.transactional || flag(node, "skipIfNewValExists")) return;
  report("prefer-robust-stmts",
         text(node, "oldVal").empty() ? "ADD VALUE without IF NOT EXISTS" : "RENAME VALUE");
}

void check_rename(const json& node, const LintState& state, const LintReport& report) {
  const std::string kind = text(node, "renameType");
  if (kind == "OBJECT_COLUMN") report("renaming-column", "column " + text(node, "subname"));
  if (kind == "OBJECT_TABLE") report("renaming-table", "table " + table_of(node));
  if (!state.options.transactional) report("prefer-robust-stmts", "RENAME");
}

// Statements that queue for a lock on a table others use, where a lock timeout keeps a long
// wait from stalling every query behind it.
bool waits_for_a_table_lock(const PgStatement& statement) {
  static const std::set<std::string> kLocking = {"AlterTableStmt", "IndexStmt", "DropStmt",
                                                 "RenameStmt", "TruncateStmt"};
  return kLocking.contains(statement.kind());
}

void check_timeouts(const PgStatement& statement, LintState& state, const LintReport& report) {
  if (statement.kind() == "VariableSetStmt") {
    const std::string name = text(statement.node(), "name");
    if (name == "lock_timeout") state.lock_timeout_set = true;
    if (name == "statement_timeout") state.statement_timeout_set = true;
    return;
  }
  if (!waits_for_a_table_lock(statement)) return;
  // One finding per migration: the first statement that needed it.
  if (!state.lock_timeout_set && !state.options.runner_sets_lock_timeout) {
    report("require-lock-timeout", "");
    state.lock_timeout_set = true;
  }
  if (!state.statement_timeout_set && !state.options.runner_sets_statement_timeout) {
    report("require-statement-timeout", "");
    state.statement_timeout_set = true;
  }
}

}  // namespace

void check_statement(const PgStatement& statement, LintState& state, const LintReport& report) {
  const std::string kind = statement.kind();
  const json& node = statement.node();
  check_timeouts(statement, state, report);
  if (kind == "CreateStmt") check_create_table(node, state, report);
  if (kind == "IndexStmt") check_index(node, state, report);
  if (kind == "AlterTableStmt") check_alter_table(node, state, report);
  if (kind == "DropStmt") check_drop(node, state, report);
  if (kind == "RenameStmt") check_rename(node, state, report);
  if (kind == "AlterEnumStmt") check_alter_enum(node, state, report);
}

}  // namespace migronaut

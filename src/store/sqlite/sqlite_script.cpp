#include "store/sqlite/sqlite_script.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sql/savepoints.hpp"
#include "sql/text_position.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

struct Piece {
  std::size_t offset;
  std::string_view text;
};

// One past the semicolon that ends the statement starting at `start`, where SQLite's tokenizer
// says it is complete (so semicolons in strings, comments and trigger bodies do not end it);
// the script's end when none does.
std::size_t statement_end(std::string_view script, std::size_t start) {
  for (std::size_t semicolon = script.find(';', start); semicolon != std::string_view::npos;
       semicolon = script.find(';', semicolon + 1)) {
    const std::string candidate(script.substr(start, semicolon + 1 - start));
    if (sqlite3_complete(candidate.c_str()) != 0) return semicolon + 1;
  }
  return script.size();
}

// The script's statements, each with the blanks and comments before it.
std::vector<Piece> split_statements(std::string_view script) {
  std::vector<Piece> pieces;
  for (std::size_t start = 0; skip_blank(script, start) < script.size();) {
    const std::size_t end = statement_end(script, start);
    pieces.push_back({start, script.substr(start, end - start)});
    start = end;
  }
  return pieces;
}

// The statement of `piece`: from its first token (past blanks and comments), without its
// semicolon.
Piece statement_of(std::string_view script, const Piece& piece) {
  const std::size_t first = skip_blank(script, piece.offset);
  std::string_view statement = script.substr(first, piece.offset + piece.text.size() - first);
  if (statement.ends_with(';')) statement.remove_suffix(1);
  return {first, statement};
}

struct Opcode {
  std::string name;
  int p1 = 0;
  int p2 = 0;
  std::string p4;
};

class Compiler {
 public:
  Compiler() {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr) !=
        SQLITE_OK) {
      sqlite3_close_v2(db);
      throw std::runtime_error("sqlite: cannot open an in-memory database to check a script");
    }
    db_.reset(db);
  }

  // The program `statement` compiles to; empty when it does not compile here.
  std::vector<Opcode> explain(std::string_view statement) {
    const std::string sql = "EXPLAIN " + std::string(statement);
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
      sqlite3_finalize(raw);
      return {};
    }
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(raw, &sqlite3_finalize);
    std::vector<Opcode> program;
    while (sqlite3_step(stmt.get()) == SQLITE_ROW) {
      const auto* p4 = reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), 5));
      program.push_back({reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), 1)),
                         sqlite3_column_int(stmt.get(), 2), sqlite3_column_int(stmt.get(), 3),
                         p4 ? p4 : ""});
    }
    return program;
  }

 private:
  std::unique_ptr<sqlite3, decltype(&sqlite3_close_v2)> db_{nullptr, &sqlite3_close_v2};
};

struct Verdict {
  std::string rule;
  std::string reason;
};

// The verdict on one opcode of a statement's program, if it is one the transaction forbids.
std::optional<Verdict> judge(const Opcode& op, SavepointStack& savepoints) {
  if (op.name == "AutoCommit" && op.p1 == 0) {
    return Verdict{"transaction-nesting",
                   "the migration already runs in a transaction; BEGIN would nest one"};
  }
  if (op.name == "AutoCommit") {
    return Verdict{"transaction-nesting",
                   "it ends the transaction migronaut runs the migration in: what came before "
                   "it would commit (or vanish) without the migration being recorded"};
  }
  if (op.name == "Savepoint") {
    const std::string name = lower_case(op.p4);
    if (op.p1 == 0) {
      savepoints.open(name);
      return std::nullopt;
    }
    if (op.p1 == 1 ? savepoints.release(name) : savepoints.rollback_to(name)) return std::nullopt;
    return Verdict{"transaction-nesting",
                   "savepoint \"" + op.p4 + "\" was not opened by this migration"};
  }
  if (op.name == "Vacuum") {
    return Verdict{"transaction-incompatible", "VACUUM cannot run inside a transaction"};
  }
  return std::nullopt;
}

// SQLite ignores PRAGMA foreign_keys inside a transaction, and its program (Expire opcodes) is
// every flag pragma's: told by its text. A table rebuild that turns the checks off there would
// run with them on. A query of it ("PRAGMA foreign_keys") sets nothing.
std::optional<Verdict> judge_text(std::string_view statement) {
  const std::string text = lower_case(statement);
  // "pragma [schema.]foreign_keys" and then "=" or "(": not defer_foreign_keys, which works
  // inside a transaction and is what a rebuild there should use.
  std::size_t at = text.find_first_not_of(" \t\r\n", std::string_view("pragma").size());
  if (!text.starts_with("pragma") || at == std::string::npos || at == 6) return std::nullopt;
  const std::size_t dot = text.find('.', at);
  const std::size_t name_end = text.find_first_of(" \t\r\n=(", at);
  if (dot != std::string::npos && dot < name_end) at = dot + 1;
  const std::string_view name = std::string_view(text).substr(at, name_end - at);
  const std::size_t after = text.find_first_not_of(" \t\r\n", name_end);
  if ((name != "foreign_keys" && name != "\"foreign_keys\"") || after == std::string::npos ||
      (text[after] != '=' && text[after] != '(')) {
    return std::nullopt;
  }
  return Verdict{"transaction-incompatible",
                 "PRAGMA foreign_keys has no effect inside a transaction (SQLite ignores it "
                 "there): run this migration with transaction:false"};
}

}  // namespace

std::vector<std::string_view> sqlite_statements(std::string_view script) {
  std::vector<std::string_view> statements;
  for (const Piece& piece : split_statements(script)) {
    const std::string_view statement = statement_of(script, piece).text;
    if (!statement.empty()) statements.push_back(statement);
  }
  return statements;
}

std::string_view sqlite_statement_at(std::string_view script, std::size_t start) {
  const std::size_t end = statement_end(script, start);
  return statement_of(script, {start, script.substr(start, end - start)}).text;
}

std::optional<SqliteConflict> sqlite_transaction_conflict(std::string_view script) {
  Compiler compiler;
  SavepointStack savepoints;
  for (const Piece& piece : split_statements(script)) {
    const Piece statement = statement_of(script, piece);
    const auto conflict = [&](Verdict verdict) {
      return SqliteConflict{statement.offset, std::string(statement.text), std::move(verdict.rule),
                            std::move(verdict.reason)};
    };
    if (std::optional<Verdict> verdict = judge_text(statement.text)) return conflict(*verdict);
    for (const Opcode& op : compiler.explain(piece.text)) {
      if (std::optional<Verdict> verdict = judge(op, savepoints)) return conflict(*verdict);
    }
  }
  return std::nullopt;
}

bool sqlite_runs_only_outside_transaction(std::string_view script) {
  Compiler compiler;
  SavepointStack savepoints;
  bool any = false;
  for (const Piece& piece : split_statements(script)) {
    const std::string_view statement = statement_of(script, piece).text;
    if (statement.empty()) continue;  // a lone ';'
    bool incompatible = judge_text(statement).has_value();
    for (const Opcode& op : compiler.explain(piece.text)) {
      const std::optional<Verdict> verdict = judge(op, savepoints);
      if (verdict && verdict->rule == "transaction-nesting") return false;
      incompatible = incompatible || verdict.has_value();
    }
    if (!incompatible) return false;
    any = true;
  }
  return any;
}

}  // namespace migronaut

#include "store/script_check.hpp"

#include <fmt/format.h>

#include "migronaut/errors.hpp"
#include "util/redact.hpp"
#include "util/text.hpp"

namespace migronaut {
std::string statements_left_applied(std::size_t ran_before, nlohmann::json& context) {
  context["statementsApplied"] = ran_before;
  if (ran_before == 0) return "\nIt was the migration's first statement: nothing ran before it.";
  return fmt::format(
      "\nThe {} statement{} before it ran and stay{} applied: outside a transaction nothing is "
      "rolled back.",
      ran_before, ran_before == 1 ? "" : "s", ran_before == 1 ? "s" : "");
}

namespace {

constexpr std::size_t kShownStatementLength = 80;

}  // namespace

std::string shown_statement(std::string_view statement) {
  // Masked before the cut, which could split a secret from its keyword, and here, not only where
  // it is printed: the message reaches a library's caller as it is.
  const std::string masked = redact(statement);
  std::string flat;
  for (char c : trim(masked)) {
    const bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (flat.empty() || flat.back() == ' ')) continue;
    flat += space ? ' ' : c;
  }
  if (flat.size() <= kShownStatementLength) return flat;
  std::size_t cut = kShownStatementLength;
  while (cut > 0 && (static_cast<unsigned char>(flat[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return flat.substr(0, cut) + "…";
}

TextPosition position_in_file(const Script& script, std::size_t offset) {
  TextPosition position = position_at(script.text, offset);
  position.line += script.first_line - 1;
  return position;
}

std::string place_in_file(const Script& script, std::size_t offset, std::string_view statement,
                          nlohmann::json& context) {
  const TextPosition at = position_in_file(script, offset);
  context["line"] = at.line;
  context["column"] = at.column;
  std::string where = fmt::format("line {}, column {}", at.line, at.column);
  if (statement.empty()) return where;
  const std::string shown = shown_statement(statement);
  context["statement"] = shown;
  return where + " in `" + shown + "`";
}

void track_own_transaction(std::optional<OwnTransaction>& own, bool in_transaction,
                           std::size_t offset, std::size_t ran) {
  if (!in_transaction) {
    own.reset();
  } else if (!own) {
    own = OwnTransaction{offset, ran};
  }
}

std::string own_transaction_rolled_back(const Script& script, const OwnTransaction& own,
                                        nlohmann::json& context) {
  return fmt::format("\nThe transaction the script opened on line {} was rolled back.",
                     position_in_file(script, own.offset).line) +
         statements_left_applied(own.ran_before, context);
}

void fail_open_transaction(const Script& script, const OwnTransaction& own,
                           std::string_view statement) {
  nlohmann::json context = {{"error", "transaction left open"}};
  // Unplaced when the script went whole (one the parser could not split).
  const std::string message =
      statement.empty()
          ? "the script leaves a transaction of its own open (a BEGIN with no COMMIT or END "
            "after it), so it was rolled back"
          : place_in_file(script, own.offset, statement, context) +
                ": the transaction it opens is never committed (no COMMIT or END after it), so "
                "it was rolled back" +
                statements_left_applied(own.ran_before, context);
  throw MigrationExecutionFailedError(message, std::move(context));
}

namespace {

// What to do about a statement a transaction cannot hold, after its reason; other rules'
// reasons say it themselves.
std::string what_to_do(const Script& script, const std::string& rule) {
  if (rule == "transaction-nesting") {
    return "; remove it: migronaut commits each migration together with its changelog record";
  }
  if (rule != "transaction-incompatible" &&
      rule != "ban-concurrent-index-creation-in-transaction") {
    return "";
  }
  // Another tool's plain file has no marker to hold: its content alone takes it out of a
  // transaction (Store::runs_outside_transaction).
  if (script.plain_file) {
    return "; split the file: a migration file whose statements all cannot run in a transaction "
           "runs outside one, and the others run in one";
  }
  return "; move it to a migration of its own marked '-- migrate:up transaction:false'";
}

}  // namespace

void refuse_statement(std::string_view file, const Script& script, std::size_t offset,
                      std::string_view statement, const std::string& rule,
                      const std::string& reason) {
  const TextPosition position = position_in_file(script, offset);
  const std::size_t line = position.line;
  const std::string text = shown_statement(statement);
  throw MigrationInvalidFormatError(
      fmt::format("Invalid migration {} at line {}, column {}: `{}`: {}{}", file, line,
                  position.column, text, reason, what_to_do(script, rule)),
      {{"file", file},
       {"line", line},
       {"column", position.column},
       {"statement", text},
       {"rule", rule},
       {"reason", reason}});
}

}  // namespace migronaut

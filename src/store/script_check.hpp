// Statements of a migration's script placed in its file: the refusal a store's check_script()
// throws for a statement it will not run, and the place a failed statement names.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "sql/text_position.hpp"
#include "store/store.hpp"

namespace migronaut {

// Throws MigrationInvalidFormatError naming `file`, the statement (shortened), its line and
// column in the file (`offset` is the statement's byte offset in `script.text`), the lint
// `rule` it breaks and `reason`.
[[noreturn]] void refuse_statement(std::string_view file, const Script& script, std::size_t offset,
                                   std::string_view statement, const std::string& rule,
                                   const std::string& reason);

// `statement` on one line, its secrets masked (redact()), shortened to what a message can carry.
std::string shown_statement(std::string_view statement);

// Where byte `offset` of `script.text` lies in the script's file.
TextPosition position_in_file(const Script& script, std::size_t offset);

// "line L, column C in `statement`" for byte `offset` of `script.text`, which lies in
// `statement` (shortened; left out when empty); `context` gets "line", "column" and
// "statement". How every store's failed statement is named.
std::string place_in_file(const Script& script, std::size_t offset, std::string_view statement,
                          nlohmann::json& context);

// What a failure outside a transaction leaves: "\nThe N statements before it ran and stay
// applied: …" (or that it was the first), `ran_before` set as the context's "statementsApplied".
std::string statements_left_applied(std::size_t ran_before, nlohmann::json& context);

// A transaction a script opened itself, outside migronaut's (`-- migrate:up transaction:false`):
// the byte of its BEGIN in the script and the number of statements that ran before it.
struct OwnTransaction {
  std::size_t offset = 0;
  std::size_t ran_before = 0;
};

// After the `ran`th statement (at byte `offset`) ran outside migronaut's transaction, with the
// session `in_transaction` or not: notes the script's own BEGIN, forgets it once it ended.
void track_own_transaction(std::optional<OwnTransaction>& own, bool in_transaction,
                           std::size_t offset, std::size_t ran);

// What a failure inside `own`, rolled back, leaves: "\nThe transaction the script opened on line
// L was rolled back." and statements_left_applied() of the statements before its BEGIN.
std::string own_transaction_rolled_back(const Script& script, const OwnTransaction& own,
                                        nlohmann::json& context);

// Throws MigrationExecutionFailedError for a script that ended with `own` still open, which the
// caller rolled back: the changelog record written next would have committed it, or been
// refused inside it. `statement` is its BEGIN ("" when unknown: the message places nothing).
[[noreturn]] void fail_open_transaction(const Script& script, const OwnTransaction& own,
                                        std::string_view statement);

}  // namespace migronaut

// The refusal a store's check_script() throws for a statement it will not run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "store/store.hpp"

namespace migronaut {

// Throws MigrationInvalidFormatError naming `file`, the statement (shortened), its line and
// column in the file (`offset` is the statement's byte offset in `script.text`), the lint
// `rule` it breaks and `reason`.
[[noreturn]] void refuse_statement(std::string_view file, const Script& script, std::size_t offset,
                                   std::string_view statement, const std::string& rule,
                                   const std::string& reason);

// `statement` on one line, shortened to what a message can carry.
std::string shown_statement(std::string_view statement);

}  // namespace migronaut

// A PostgreSQL script that ends inside a dollar quote, a block comment, a quoted string or a
// quoted identifier. The server would read what migronaut sends after the script (its
// bookkeeping, the lock's nonce) as part of it and quote all of that back in its error, and it
// would refuse the script only once earlier migrations had run: such a script is refused before
// anything runs.
#pragma once

#include <string_view>

#include "store/store.hpp"

namespace migronaut {

// Throws MigrationInvalidFormatError naming `file`, the line and column where the text that is
// never closed opens, and what it is, when PostgreSQL's scanner finds `script` ending inside it.
void refuse_unterminated_text(std::string_view file, const Script& script);

}  // namespace migronaut

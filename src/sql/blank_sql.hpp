// Whether a script holds any statement at all, before any database sees it.
#pragma once

#include <string_view>

namespace migronaut {

// True when `text` holds no statement: only whitespace, `--` and `/* */` comments and
// semicolons. Such an up section would be recorded as applied having done nothing, so it counts
// as empty. (A block comment nested PostgreSQL's way ends at its first `*/` here, which can only
// make a section count as holding a statement.)
bool is_blank_sql(std::string_view text);

}  // namespace migronaut

// dbmate's `search_path` URI parameter, which libpq does not know.
#pragma once

#include <string>

namespace migronaut {

// `uri` with each `search_path=<schemas>` query parameter moved into libpq's `options` as
// `-c search_path=<schemas>` (after any options the URI has), so the connection starts with
// that search_path, as dbmate's does; migronaut then keeps its tables in the first schema, as
// dbmate keeps its own. Any other URI is returned as it is.
std::string with_search_path_in_options(const std::string& uri);

}  // namespace migronaut

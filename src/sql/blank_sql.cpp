#include "sql/blank_sql.hpp"

#include <cctype>

namespace migronaut {

bool is_blank_sql(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == ';') {
      ++i;
    } else if (text.substr(i, 2) == "--") {
      i = text.find('\n', i);
    } else if (text.substr(i, 2) == "/*") {
      const std::size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) return false;  // unterminated: the database says so
      i = end + 2;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace migronaut

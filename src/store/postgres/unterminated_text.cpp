#include "store/postgres/unterminated_text.hpp"

#include <fmt/format.h>

#include <string>

#include "migronaut/errors.hpp"
#include "sql/pg/pg_parser.hpp"
#include "sql/text_position.hpp"
#include "store/script_check.hpp"

namespace migronaut {
namespace {

// Only these scanner errors: others ("trailing junk after numeric literal") may be a newer
// server's syntax, and quote one token, not the rest of the text.
constexpr std::string_view kUnterminated = "unterminated ";
// Where the scanner's message starts quoting the text itself.
constexpr std::string_view kQuoteStart = " at or near ";

struct Split {
  PgQuerySplitResult result;
  explicit Split(const std::string& text) : result(pg_parser().split_with_scanner(text.c_str())) {}
  ~Split() { pg_parser().free_split_result(result); }
};

}  // namespace

void refuse_unterminated_text(std::string_view file, const Script& script) {
  const Split split{script.text};
  if (split.result.error == nullptr) return;
  const std::string_view message = split.result.error->message;
  if (!message.starts_with(kUnterminated)) return;
  const std::string what(message.substr(0, message.find(kQuoteStart)));
  const int cursor = split.result.error->cursorpos;
  const std::size_t offset =
      byte_offset_of_character(script.text, cursor > 0 ? static_cast<std::size_t>(cursor - 1) : 0);
  const TextPosition position = position_in_file(script, offset);
  const std::size_t line = position.line;
  throw MigrationInvalidFormatError(
      fmt::format("Invalid migration {} at line {}, column {}: {}: the script ends inside it; "
                  "close it",
                  file, line, position.column, what),
      {{"file", file}, {"line", line}, {"column", position.column}, {"reason", what}});
}

}  // namespace migronaut

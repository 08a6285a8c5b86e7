#include "sql/pg/pg_script.hpp"

#include <algorithm>
#include <memory>

#include "sql/pg/pg_parser.hpp"
#include "sql/text_position.hpp"

namespace migronaut {
namespace {

struct ParseResult {
  PgQueryParseResult result;
  explicit ParseResult(const std::string& text) : result(pg_parser().parse(text.c_str())) {}
  ~ParseResult() { pg_parser().free_parse_result(result); }
};

struct SplitResult {
  PgQuerySplitResult result;
  explicit SplitResult(const std::string& text)
      : result(pg_parser().split_with_scanner(text.c_str())) {}
  ~SplitResult() { pg_parser().free_split_result(result); }
};

// The statements of a parse tree whose text begins at byte `base` of `script`.
void append_statements(std::string_view script, std::size_t base, std::size_t length,
                       const nlohmann::json& tree, std::vector<PgStatement>& out) {
  for (const nlohmann::json& raw : tree.value("stmts", nlohmann::json::array())) {
    const std::size_t location = base + raw.value("stmt_location", 0);
    const std::size_t stmt_len = raw.value("stmt_len", 0);
    PgStatement statement;
    statement.offset = skip_blank(script, location);
    statement.end = stmt_len == 0 ? base + length : location + stmt_len;
    statement.tree = raw.at("stmt");
    statement.tree_base = base;
    out.push_back(std::move(statement));
  }
}

// Parses the text at [base, base + length) of `script` alone; false when it does not parse.
bool parse_range(std::string_view script, std::size_t base, std::size_t length,
                 std::vector<PgStatement>& out, std::string* error, std::size_t* error_offset) {
  const std::string text(script.substr(base, length));
  const ParseResult parsed(text);
  if (parsed.result.error != nullptr) {
    *error = parsed.result.error->message;
    const int cursor = parsed.result.error->cursorpos;
    *error_offset = base + byte_offset_of_character(text, cursor > 0 ? cursor - 1 : 0);
    return false;
  }
  append_statements(script, base, length, nlohmann::json::parse(parsed.result.parse_tree), out);
  return true;
}

}  // namespace

std::string PgStatement::kind() const {
  if (!tree.is_object() || tree.empty()) return "";
  return tree.begin().key();
}

const nlohmann::json& PgStatement::node() const { return tree.begin().value(); }

std::vector<PgStatement> parse_pg_script(std::string_view script) {
  std::vector<PgStatement> statements;
  std::string error;
  std::size_t error_offset = 0;
  if (parse_range(script, 0, script.size(), statements, &error, &error_offset)) return statements;

  statements.clear();
  const std::string whole_error = error;
  const std::size_t whole_error_offset = error_offset;
  const SplitResult split{std::string(script)};
  if (split.result.error != nullptr) {  // not even the scanner gets through (an open quote)
    PgStatement unparsed;
    unparsed.offset = skip_blank(script, 0);
    unparsed.end = script.size();
    unparsed.error = error;
    unparsed.error_offset = error_offset;
    return {unparsed};
  }
  for (int i = 0; i < split.result.n_stmts; ++i) {
    const std::size_t base = split.result.stmts[i]->stmt_location;
    const std::size_t length = split.result.stmts[i]->stmt_len;
    if (parse_range(script, base, length, statements, &error, &error_offset)) continue;
    PgStatement unparsed;
    unparsed.offset = skip_blank(script, base);
    unparsed.end = base + length;
    unparsed.error = error;
    unparsed.error_offset = error_offset;
    statements.push_back(std::move(unparsed));
  }
  // The scanner leaves out some statements it cannot read (one of bare identifiers): the whole
  // script's error still marks where it went wrong.
  const bool error_kept = std::any_of(statements.begin(), statements.end(),
                                      [](const PgStatement& s) { return !s.parsed(); });
  if (!error_kept) {
    PgStatement unparsed;
    unparsed.offset = unparsed.end = unparsed.error_offset = whole_error_offset;
    unparsed.error = whole_error;
    const auto later =
        std::find_if(statements.begin(), statements.end(),
                     [&](const PgStatement& s) { return s.offset > whole_error_offset; });
    statements.insert(later, std::move(unparsed));
  }
  return statements;
}

const PgStatement* statement_at(const std::vector<PgStatement>& statements, std::size_t offset) {
  for (const PgStatement& statement : statements) {
    if (offset < statement.end) return &statement;
  }
  return nullptr;
}

}  // namespace migronaut

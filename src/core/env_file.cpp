#include "core/env_file.hpp"

#include <algorithm>
#include <cctype>

#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "util/file.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

constexpr std::uintmax_t kMaxEnvFileBytes = 1024 * 1024;

bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

// A name migronaut reads (MIGRONAUT*, and DATABASE_URL beneath them): a line of it that is no
// assignment, or a second assignment, is refused, as the config file refuses a repeated key.
// Other lines are the application's to judge: dotenv ignores what is not an assignment, and
// Docker's env files take a bare name from the environment.
bool read_by_migronaut(std::string_view name) {
  const bool ours = name.starts_with("MIGRONAUT") &&
                    (name.size() == 9 || std::isalnum(static_cast<unsigned char>(name[9])) == 0);
  return ours || name == "DATABASE_URL";
}

// The name a line starts with: its leading run of name characters.
std::string_view leading_name(std::string_view line) {
  const auto end = std::find_if_not(line.begin(), line.end(), is_key_char);
  return line.substr(0, static_cast<std::size_t>(end - line.begin()));
}

// Walks the text line by line; a double-quoted value may consume further lines.
class EnvParser {
 public:
  EnvParser(std::string_view text, std::string_view origin) : text_(text), origin_(origin) {}

  EnvPairs parse() {
    while (pos_ < text_.size()) parse_line();
    return std::move(pairs_);
  }

 private:
  void parse_line() {
    const std::size_t line_start_number = line_;
    std::string_view line = take_line();
    line = trim(line);
    if (line.empty() || line.front() == '#') return;
    if (line.starts_with("export") && line.size() > 6 && is_blank(line[6])) {
      line = trim(line.substr(6));
    }
    const std::size_t equals = line.find('=');
    const std::string_view key = trim(line.substr(0, equals));
    if (equals == std::string_view::npos || key.empty() ||
        !std::all_of(key.begin(), key.end(), is_key_char)) {
      // A name alone is Docker's pass-through of the process environment's value.
      const std::string_view name = leading_name(line);
      if (read_by_migronaut(name) && name != line) fail(line_start_number, "is not NAME=VALUE");
      return;
    }
    std::string_view rest = line.substr(equals + 1);
    while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
    set(std::string(key), parse_value(rest, line_start_number), line_start_number);
  }

  std::string parse_value(std::string_view rest, std::size_t line_number) {
    if (rest.starts_with('\'')) {
      const std::size_t close = rest.find('\'', 1);
      if (close == std::string_view::npos) fail_unterminated(line_number);
      return std::string(rest.substr(1, close - 1));
    }
    if (rest.starts_with('"')) return parse_double_quoted(rest.substr(1), line_number);
    return std::string(strip_inline_comment(rest));
  }

  static std::string_view strip_inline_comment(std::string_view value) {
    for (std::size_t i = 1; i < value.size(); ++i) {
      if (value[i] == '#' && is_blank(value[i - 1])) return trim(value.substr(0, i));
    }
    return value.starts_with('#') ? std::string_view() : trim(value);
  }

  // `rest` is the remainder of the current line after the opening quote; the closing quote
  // may be on a later line, which is then consumed.
  std::string parse_double_quoted(std::string_view rest, std::size_t line_number) {
    std::string value;
    while (true) {
      for (std::size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] == '"') return value;
        if (rest[i] == '\\' && i + 1 < rest.size()) {
          value.push_back(unescape(rest[++i]));
        } else {
          value.push_back(rest[i]);
        }
      }
      if (pos_ >= text_.size()) fail_unterminated(line_number);
      value.push_back('\n');
      rest = take_line();
    }
  }

  static char unescape(char c) {
    switch (c) {
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      default:
        return c;  // \" and \\, and any other escaped character as itself
    }
  }

  std::string_view take_line() {
    const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
    std::string_view line = text_.substr(pos_, end - pos_);
    if (line.ends_with('\r')) line.remove_suffix(1);
    pos_ = end + 1;
    ++line_;
    return line;
  }

  void set(std::string key, std::string value, std::size_t line_number) {
    const auto existing = std::find_if(pairs_.begin(), pairs_.end(),
                                       [&](const auto& pair) { return pair.first == key; });
    if (existing != pairs_.end()) {
      if (read_by_migronaut(key)) fail(line_number, "sets " + key + " again");
      existing->second = std::move(value);
    } else {
      pairs_.emplace_back(std::move(key), std::move(value));
    }
  }

  [[noreturn]] void fail_unterminated(std::size_t line_number) const {
    throw ConfigInvalidError("Unterminated quoted value in " + std::string(origin_) + " at line " +
                                 std::to_string(line_number),
                             {{"file", origin_}, {"line", line_number}});
  }

  // The line itself is not shown: it may hold a secret.
  [[noreturn]] void fail(std::size_t line_number, const std::string& what) const {
    throw ConfigInvalidError(fmt::format("Invalid configuration: line {} of the env file {} {}",
                                         line_number, origin_, what),
                             {{"file", origin_}, {"line", line_number}});
  }

  std::string_view text_;
  std::string_view origin_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  EnvPairs pairs_;
};

std::string read_small_regular_file(const std::filesystem::path& path) {
  std::error_code error;
  const nlohmann::json context = {{"file", path.string()}};
  if (!std::filesystem::is_regular_file(path, error)) {
    const bool exists = std::filesystem::exists(path, error);
    throw ConfigInvalidError(
        "The env file " + path.string() + (exists ? " is not a regular file" : " does not exist"),
        context);
  }
  if (std::filesystem::file_size(path, error) > kMaxEnvFileBytes || error) {
    throw ConfigInvalidError("The env file " + path.string() + " is larger than 1 MB", context);
  }
  std::optional<std::string> content = read_whole_file(path);
  if (!content) throw ConfigInvalidError("Cannot read the env file " + path.string(), context);
  return std::move(*content);
}

}  // namespace

EnvPairs parse_env(std::string_view text, std::string_view origin) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return EnvParser(text, origin).parse();
}

EnvPairs read_env_file(const std::filesystem::path& path) {
  const std::string content = read_small_regular_file(path);
  return parse_env(content, path.string());
}

}  // namespace migronaut

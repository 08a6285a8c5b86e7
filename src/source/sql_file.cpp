#include "source/sql_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "migronaut/errors.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kMarkerPrefix = "migrate:";
constexpr std::string_view kDescriptionPrefix = "description:";

bool is_blank(std::string_view text) { return trim(text).empty(); }

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (true) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) return lines;
    text.remove_prefix(end + 1);
  }
}

// The text after "--" on a comment line, or nullopt for a line that is not a comment.
std::optional<std::string_view> comment_body(std::string_view line) {
  if (!line.starts_with("--")) return std::nullopt;
  return trim(line.substr(2));
}

struct Section {
  std::size_t marker_line = 0;  // 1-based; 0 while the section is absent
  std::vector<std::string_view> lines;
};

class SqlParser {
 public:
  SqlParser(std::string_view name, std::string_view text) : name_(name), text_(text) {}

  Migration parse() {
    if (text_.starts_with("\xEF\xBB\xBF")) text_.remove_prefix(3);
    const std::vector<std::string_view> lines = split_lines(text_);
    for (std::size_t i = 0; i < lines.size(); ++i) parse_line(lines[i], i + 1);
    return build();
  }

 private:
  void parse_line(std::string_view line, std::size_t number) {
    const std::optional<std::string_view> comment = comment_body(line);
    if (comment && comment->starts_with(kMarkerPrefix)) {
      start_section(comment->substr(kMarkerPrefix.size()), number);
    } else if (current_ != nullptr) {
      current_->lines.push_back(line);
    } else if (comment) {
      take_description(*comment);
    } else if (!is_blank(line)) {
      fail(number, "only comments may come before the first '-- migrate:' marker");
    }
  }

  void take_description(std::string_view comment) {
    if (description_.empty() && comment.starts_with(kDescriptionPrefix)) {
      description_ = trim(comment.substr(kDescriptionPrefix.size()));
    }
  }

  // `marker` is what follows "migrate:": "up", "up transaction:false", "down".
  void start_section(std::string_view marker, std::size_t number) {
    const std::size_t space = marker.find_first_of(" \t");
    const std::string_view direction = marker.substr(0, space);
    const std::string_view options =
        space == std::string_view::npos ? std::string_view() : trim(marker.substr(space));
    if (direction == "up") {
      open(up_, "up", number);
      parse_options(options, number);
    } else if (direction == "down") {
      if (up_.marker_line == 0) fail(number, "'-- migrate:down' comes before '-- migrate:up'");
      open(down_, "down", number);
      if (!options.empty()) {
        fail(number, "options belong on the '-- migrate:up' marker and apply to both directions");
      }
    } else {
      fail(number, fmt::format("unknown marker '-- migrate:{}'", direction));
    }
  }

  void open(Section& section, std::string_view direction, std::size_t number) {
    if (section.marker_line != 0) {
      fail(number, fmt::format("duplicate '-- migrate:{}' marker (first on line {})", direction,
                               section.marker_line));
    }
    section.marker_line = number;
    current_ = &section;
  }

  void parse_options(std::string_view options, std::size_t number) {
    while (!options.empty()) {
      const std::size_t end = options.find_first_of(" \t");
      const std::string_view option = options.substr(0, end);
      if (option == "transaction:false") {
        transactional_ = false;
      } else if (option == "transaction:true") {
        transactional_ = true;
      } else {
        fail(number, fmt::format("unknown option '{}'", option));
      }
      options = end == std::string_view::npos ? std::string_view() : trim(options.substr(end));
    }
  }

  static std::string joined(const std::vector<std::string_view>& lines) {
    std::string text;
    for (std::string_view line : lines) {
      if (!text.empty()) text.push_back('\n');
      text += line;
    }
    return text;
  }

  Migration build() {
    if (up_.marker_line == 0) fail(1, "no '-- migrate:up' marker");
    Migration migration;
    migration.name = name_;
    migration.description = description_;
    migration.transactional = transactional_;
    const std::string up = joined(up_.lines);
    if (is_blank(up)) fail(up_.marker_line, "the up section is empty");
    migration.up = Script{up};
    if (const std::string down = joined(down_.lines); !is_blank(down)) {
      migration.down = Script{down};
    }
    return migration;
  }

  [[noreturn]] void fail(std::size_t line, const std::string& reason) const {
    throw MigrationInvalidFormatError(
        fmt::format("Invalid migration {} at line {}: {}", name_, line, reason),
        {{"file", name_}, {"line", line}, {"reason", reason}});
  }

  std::string name_;
  std::string_view text_;
  std::string description_;
  std::optional<bool> transactional_;
  Section up_;
  Section down_;
  Section* current_ = nullptr;
};

}  // namespace

Migration parse_sql_migration(std::string_view name, std::string_view text) {
  return SqlParser(name, text).parse();
}

}  // namespace migronaut

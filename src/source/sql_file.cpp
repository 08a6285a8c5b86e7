#include "source/sql_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <optional>
#include <vector>

#include "migronaut/errors.hpp"
#include "sql/blank_sql.hpp"
#include "sql/text_position.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kMarkerPrefix = "migrate:";
// sql-migrate's command lines: "-- +migrate Up", "-- +migrate Down", each optionally with
// "notransaction", and "-- +migrate StatementBegin" / "StatementEnd", which group statements
// for its own splitter and are the comments they look like to a script run whole.
constexpr std::string_view kSqlMigratePrefix = "-- +migrate ";
constexpr std::string_view kSqlMigrateWord = "+migrate";
constexpr std::string_view kDescriptionPrefix = "description:";
constexpr std::string_view kTransactionOption = "transaction:";
constexpr std::string_view kLockTimeoutOption = "lock_timeout:";
constexpr std::string_view kStatementTimeoutOption = "statement_timeout:";
// PostgreSQL's timeouts are 32-bit milliseconds.
constexpr std::int64_t kMaxTimeoutMs = 2'147'483'647;

bool is_blank(std::string_view text) { return trim(text).empty(); }

// The words of `text`, separated by blanks and tabs.
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> found;
  for (text = trim(text); !text.empty();) {
    const std::size_t end = text.find_first_of(" \t");
    found.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : trim(text.substr(end));
  }
  return found;
}

// The text after "--" on a comment line, or nullopt for a line that is not a comment.
std::optional<std::string_view> comment_body(std::string_view line) {
  if (!line.starts_with("--")) return std::nullopt;
  return trim(line.substr(2));
}

// "up" or "down" when `line` reads as a marker however it is written: indented, more dashes,
// any case, and ':', '_', '-', '.', a blank or nothing between "migrate" and the direction
// ("  -- migrate:down", "--- Migrate_Down", "-- migrate down"), the direction ending the line or
// followed by options ("transaction:false"). Prose goes on otherwise: "-- migrate up to v2".
std::optional<std::string> marker_direction(std::string_view line) {
  const std::size_t dashes = line.find_first_not_of(" \t");
  if (dashes == std::string_view::npos || line.substr(dashes, 2) != "--") return std::nullopt;
  std::string_view rest =
      line.substr(std::min(line.size(), line.find_first_not_of("- \t", dashes)));
  constexpr std::string_view kMigrate = "migrate";
  if (lower_case(rest.substr(0, kMigrate.size())) != kMigrate) return std::nullopt;
  rest.remove_prefix(kMigrate.size());
  if (!rest.empty() && std::string_view(":_-. \t").find(rest.front()) != std::string_view::npos) {
    rest.remove_prefix(1);
  }
  const std::size_t blank = std::min(rest.size(), rest.find_first_of(" \t"));
  std::string direction = lower_case(rest.substr(0, blank));
  if (direction != "up" && direction != "down") return std::nullopt;
  const std::string_view after = trim(rest.substr(blank));
  const std::string_view next = after.substr(0, after.find_first_of(" \t"));
  if (!next.empty() && next.find(':') == std::string_view::npos) return std::nullopt;
  return direction;
}

struct Section {
  std::size_t marker_line = 0;  // 1-based; 0 while the section is absent
  std::string text;             // its lines, joined by '\n' as they come
  bool has_lines = false;

  void add(std::string_view line) {
    if (has_lines) text.push_back('\n');
    text += line;
    has_lines = true;
  }
};

class SqlParser {
 public:
  SqlParser(std::string_view name, std::string_view text) : name_(name), text_(text) {}

  Migration parse() {
    if (text_.starts_with("\xEF\xBB\xBF")) {
      text_.remove_prefix(3);
      had_bom_ = true;
    }
    refuse_bad_bytes();
    std::string_view rest = text_;
    for (std::size_t number = 1;; ++number) {
      const std::size_t end = rest.find('\n');
      std::string_view line = rest.substr(0, end);
      if (line.ends_with('\r')) line.remove_suffix(1);
      parse_line(line, number);
      if (end == std::string_view::npos) return build();
      rest.remove_prefix(end + 1);
    }
  }

 private:
  // Which tool's markers the file uses: one file, one kind.
  enum class Markers { kNone, kMigronaut, kSqlMigrate };

  void parse_line(std::string_view line, std::size_t number) {
    const std::optional<std::string_view> comment = comment_body(line);
    if (is_sql_migrate_line(line)) {
      if (sql_migrate_command(line, number)) return;
    } else {
      refuse_marker_lookalike(line, comment, number);
    }
    if (comment && comment->starts_with(kMarkerPrefix)) {
      start_section(comment->substr(kMarkerPrefix.size()), number);
    } else if (current_ != nullptr) {
      current_->add(line);
    } else if (comment) {
      take_description(*comment);
    } else if (!is_blank(line)) {
      fail(number,
           "only comments may come before the first marker ('-- migrate:up', or sql-migrate's "
           "'-- +migrate Up')");
    }
  }

  // Whether `line` reads as one of sql-migrate's command lines however it is written.
  static bool is_sql_migrate_line(std::string_view line) {
    const std::optional<std::string_view> comment = comment_body(trim(line));
    return comment &&
           lower_case(comment->substr(0, comment->find_first_of(" \t"))) == kSqlMigrateWord;
  }

  // sql-migrate reads a command only from a line that starts with exactly "-- +migrate ", and
  // only the commands it knows; it skips any other line of that look without a word, its
  // section joined to the one before. So those are refused. Up and Down open their section
  // (true); StatementBegin and StatementEnd stay in it as the comments they are here (false).
  bool sql_migrate_command(std::string_view line, std::size_t number) {
    const std::vector<std::string_view> fields = sql_migrate_fields(line, number);
    const std::string_view command = fields.empty() ? "" : fields.front();
    if (command == "StatementBegin" || command == "StatementEnd") {
      // As sql-migrate reads them: a StatementBegin counts inside a section, until its End.
      if (current_ != nullptr) statement_begin_line_ = command == "StatementBegin" ? number : 0;
      return false;
    }
    if (command != "Up" && command != "Down") {
      fail(number, fmt::format("unknown sql-migrate command '{}': sql-migrate reads Up, Down, "
                               "StatementBegin and StatementEnd, in that case, and skips any other",
                               command));
    }
    use_markers(Markers::kSqlMigrate, number);
    const RunOptions options = sql_migrate_options({fields.begin() + 1, fields.end()}, number);
    if (command == "Up") {
      open(up_, number);
      up_options_ = options;
    } else {
      open(down_, number);
      down_options_ = options;
    }
    return true;
  }

  // The words after "-- +migrate ", on a line sql-migrate reads as a command.
  std::vector<std::string_view> sql_migrate_fields(std::string_view line,
                                                   std::size_t number) const {
    if (!line.starts_with(kSqlMigratePrefix)) {
      fail(number, fmt::format("'{}' is no sql-migrate command: sql-migrate reads one only from "
                               "a line that starts with exactly '-- +migrate ' (unindented, "
                               "lower-case), and skips this one",
                               trim(line)));
    }
    if (number == 1 && had_bom_) {
      fail(number,
           "a byte-order mark comes before '-- +migrate': sql-migrate does not read the line as "
           "a command then, and skips its section. Save the file without it");
    }
    return words(line.substr(kSqlMigratePrefix.size()));
  }

  // sql-migrate runs each direction in a transaction unless its own line says notransaction:
  // whatever the configuration's useTransaction says, and a down does not take the up's.
  RunOptions sql_migrate_options(const std::vector<std::string_view>& options,
                                 std::size_t number) const {
    RunOptions parsed;
    parsed.transactional = true;
    for (const std::string_view option : options) {
      if (option != "notransaction") {
        fail(number,
             fmt::format("unknown option '{}': sql-migrate knows only notransaction", option));
      }
      parsed.transactional = false;
    }
    return parsed;
  }

  void use_markers(Markers markers, std::size_t number) {
    if (markers_ != Markers::kNone && markers_ != markers) {
      fail(number,
           "the file mixes migronaut's '-- migrate:' markers with sql-migrate's "
           "'-- +migrate' commands: use one kind");
    }
    markers_ = markers;
  }

  // How the file names the marker of `direction` ("up", "down") in a message.
  std::string marker(std::string_view direction) const {
    if (markers_ != Markers::kSqlMigrate) return fmt::format("'-- migrate:{}'", direction);
    return direction == "up" ? "'-- +migrate Up'" : "'-- +migrate Down'";
  }

  // A marker spelled otherwise is read as a comment: its section would join the one before it,
  // or be missing (a `-- Migrate:Down` would leave the migration irreversible).
  void refuse_marker_lookalike(std::string_view line, std::optional<std::string_view> comment,
                               std::size_t number) const {
    if (comment && comment->starts_with(kMarkerPrefix)) return;  // a marker, read as one
    if (const std::optional<std::string> direction = marker_direction(line)) {
      const std::optional<std::string_view> unindented = comment_body(trim(line));
      if (unindented && unindented->starts_with(kMarkerPrefix)) {
        fail(number, fmt::format("'{}' is indented: a marker starts its line", trim(line)));
      }
      fail(number, fmt::format("'{}' is no marker: write '-- migrate:{}', lower-case, at the start "
                               "of its line",
                               trim(line), *direction));
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
    use_markers(Markers::kMigronaut, number);
    if (direction == "up") {
      open(up_, number);
      up_options_ = parse_options(options, number);
    } else if (direction == "down") {
      if (up_.marker_line == 0) fail(number, "'-- migrate:down' comes before '-- migrate:up'");
      open(down_, number);
      // A down marker with options runs the down with those alone, as dbmate reads them; one
      // without takes the up's, as such files always have.
      if (!options.empty()) down_options_ = parse_options(options, number);
    } else {
      fail(number, fmt::format("unknown marker '-- migrate:{}'", direction));
    }
  }

  void open(Section& section, std::size_t number) {
    if (section.marker_line != 0) {
      fail(number, fmt::format("duplicate {} marker (first on line {})",
                               marker(&section == &up_ ? "up" : "down"), section.marker_line));
    }
    section.marker_line = number;
    current_ = &section;
  }

  RunOptions parse_options(std::string_view options, std::size_t number) const {
    RunOptions parsed;
    std::string_view timeout_set;  // the last timeout option that is not off, as written
    for (const std::string_view option : words(options)) {
      std::optional<std::chrono::milliseconds>* timeout = nullptr;
      if (option == "transaction:false") {
        parsed.transactional = false;
      } else if (option == "transaction:true") {
        parsed.transactional = true;
      } else if (option.starts_with(kTransactionOption)) {
        fail(number,
             fmt::format("invalid value '{}' for option 'transaction': it takes true or false",
                         option.substr(kTransactionOption.size())));
      } else if (option.starts_with(kLockTimeoutOption)) {
        timeout = &parsed.lock_timeout;
      } else if (option.starts_with(kStatementTimeoutOption)) {
        timeout = &parsed.statement_timeout;
      } else {
        fail(number, fmt::format("unknown option '{}'", option));
      }
      if (timeout != nullptr) {
        *timeout = duration(option.substr(option.find(':') + 1), option, number);
        if (**timeout > std::chrono::milliseconds(0)) timeout_set = option;
      }
    }
    if (parsed.transactional == false && !timeout_set.empty()) {
      fail(number, untransacted_timeout_reason(timeout_set, "with 'transaction:false'"));
    }
    return parsed;
  }

  // "30s", "500ms", "5min", "1h", "250" (ms), "0" or "off" (none).
  std::chrono::milliseconds duration(std::string_view text, std::string_view option,
                                     std::size_t number) const {
    if (text == "off") return std::chrono::milliseconds(0);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    const std::string_view unit(end, text.data() + text.size() - end);
    static constexpr std::pair<std::string_view, std::int64_t> kUnits[] = {
        {"", 1}, {"ms", 1}, {"s", 1000}, {"min", 60'000}, {"h", 3'600'000}};
    for (const auto& [name, scale] : kUnits) {
      if (error == std::errc() && value >= 0 && unit == name && value <= kMaxTimeoutMs / scale) {
        return std::chrono::milliseconds(value * scale);
      }
    }
    fail(number, fmt::format("'{}' needs a duration such as 30s, 500ms, 5min or off", option));
  }

  Migration build() {
    if (up_.marker_line == 0) fail(1, fmt::format("no {} marker", marker("up")));
    if (statement_begin_line_ != 0) {
      fail(statement_begin_line_,
           "'-- +migrate StatementBegin' has no '-- +migrate StatementEnd' after it, which "
           "sql-migrate refuses");
    }
    Migration migration;
    migration.name = std::string(name_);
    migration.description = std::move(description_);
    migration.options = up_options_;
    migration.down_options = down_options_;
    migration.up_empty = is_blank_sql(up_.text);
    migration.up = Script{std::move(up_.text), up_.marker_line + 1};
    // A down section of comments alone would record the migration reverted having undone
    // nothing: it counts as none, and `down` refuses the migration as irreversible.
    if (!is_blank_sql(down_.text)) {
      migration.down = Script{std::move(down_.text), down_.marker_line + 1};
    }
    return migration;
  }

  // A NUL would cut the script short where the database reads it as a C string, and bytes that
  // are not UTF-8 are not SQL text: both are refused, naming where they are.
  void refuse_bad_bytes() const {
    const std::size_t bad = first_invalid_utf8(text_);
    if (bad == std::string_view::npos) return;
    const TextPosition position = position_at(text_, bad);
    fail(position.line,
         fmt::format("{} at column {} (byte {}): a .sql file must be UTF-8 text",
                     text_[bad] == '\0' ? "a NUL byte" : "invalid UTF-8", position.column, bad));
  }

  [[noreturn]] void fail(std::size_t line, const std::string& reason) const {
    throw MigrationInvalidFormatError(
        fmt::format("Invalid migration {} at line {}: {}", name_, line, reason),
        {{"file", name_}, {"line", line}, {"reason", reason}});
  }

  std::string_view name_;
  std::string_view text_;
  std::string description_;
  RunOptions up_options_;
  std::optional<RunOptions> down_options_;
  Section up_;
  Section down_;
  Section* current_ = nullptr;
  Markers markers_ = Markers::kNone;
  bool had_bom_ = false;
  std::size_t statement_begin_line_ = 0;  // an open StatementBegin's line, 0 when none is open
};

}  // namespace

// The script can set the timeout itself, for its session.
std::string untransacted_timeout_reason(std::string_view option, std::string_view where) {
  const std::size_t colon = option.find(':');
  return fmt::format(
      "'{}' cannot apply {}: migronaut sets the timeout with SET LOCAL in the migration's "
      "transaction, and this section runs without one. Make it a statement of the section "
      "instead, before the ones it bounds: SET {} = '{}'; (it holds for the session until the "
      "migration ends: migronaut resets it before the next)",
      option, where, option.substr(0, colon), option.substr(colon + 1));
}

Migration parse_sql_migration(std::string_view name, std::string_view text) {
  return SqlParser(name, text).parse();
}

bool has_sql_migrate_commands(std::string_view text) {
  return text.starts_with(kSqlMigratePrefix) ||
         text.find("\n" + std::string(kSqlMigratePrefix)) != std::string_view::npos;
}

}  // namespace migronaut

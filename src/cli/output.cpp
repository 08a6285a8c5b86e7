#include "cli/output.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "core/log.hpp"
#include "fmt/format.h"
#include "util/redact.hpp"

namespace migronaut::cli {
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::string shown(std::string_view text) { return sanitize_for_terminal(redact(text)); }

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The terminal's width in columns, or 0 when unknown.
std::size_t terminal_columns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

// Paints `text` with an SGR color code when `enabled`.
std::string sgr(bool enabled, Color color, std::string_view text) {
  if (!enabled || color == Color::kNone) return std::string(text);
  const char* code = color == Color::kGreen    ? "32"
                     : color == Color::kYellow ? "33"
                     : color == Color::kRed    ? "31"
                     : color == Color::kDim    ? "2"
                                               : "1";
  return fmt::format("\033[{}m{}\033[0m", code, text);
}

// `value` with every string redacted, keys included: redacting the serialized text instead
// could swallow a closing quote (`?password=…"`) and break the document.
nlohmann::json redacted(const nlohmann::json& value) {
  if (value.is_string()) return redact(value.get_ref<const std::string&>());
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const nlohmann::json& item : value) out.push_back(redacted(item));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto entry = value.begin(); entry != value.end(); ++entry) {
      out[redact(entry.key())] = redacted(entry.value());
    }
    return out;
  }
  return value;
}

class OutputLogger : public Logger {
 public:
  explicit OutputLogger(Output& output) : output_(output) {}
  void log(Level level, std::string_view message) override {
    switch (level) {
      case Level::kDebug:
        output_.debug(message);
        break;
      case Level::kInfo:
        output_.info(message);
        break;
      case Level::kWarn:
        output_.warn(message);
        break;
      case Level::kError:
        output_.error(message);
        break;
    }
  }
  bool enabled(Level level) const override { return level != Level::kDebug || output_.verbose(); }

 private:
  Output& output_;
};

}  // namespace

bool color_enabled(bool no_color_flag, bool stderr_is_terminal) {
  if (no_color_flag) return false;
  if (const char* force = env(kForceColorVariable.data())) return std::string_view(force) != "0";
  if (env(kNoColorVariable.data())) return false;
  if (const char* force = env("FORCE_COLOR")) return std::string_view(force) != "0";
  if (env("NO_COLOR")) return false;
  if (const char* term = env("TERM"); term && std::string_view(term) == "dumb") return false;
  return stderr_is_terminal;
}

Output::Output(bool json, bool quiet, bool verbose, bool no_color_flag)
    : json_(json),
      quiet_(quiet),
      verbose_(verbose),
      terminal_(isatty(STDERR_FILENO) == 1),
      color_(color_enabled(no_color_flag, terminal_)),
      report_color_(color_enabled(no_color_flag, isatty(STDOUT_FILENO) == 1)) {}

std::string Output::paint(Color color, std::string_view text) const {
  return sgr(color_, color, text);
}

std::string Output::paint_report(Color color, std::string_view text) const {
  return sgr(report_color_, color, text);
}

std::string fit_width(std::string_view text, std::size_t columns) {
  std::size_t shown_columns = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (continuation_byte(text[i])) continue;
    if (++shown_columns == columns && columns > 0) {
      // The last column: keep the rest if it fits exactly, else cut and mark the cut.
      std::size_t next = i + 1;
      while (next < text.size() && continuation_byte(text[next])) ++next;
      if (next == text.size()) return std::string(text);
      return std::string(text.substr(0, i)) + "…";
    }
  }
  return std::string(text);
}

// SIGPIPE is ignored (signals.hpp), so a write to a pipe whose reader is gone (`| head` ended)
// fails with EPIPE instead of killing the run mid-migration. Nothing more can reach that reader:
// the sink is given up rather than written again, line after line, to no one.
void Output::write(Sink& sink, std::string_view text) {
  if (sink.gone) return;
  const bool written = std::fwrite(text.data(), 1, text.size(), sink.file) == text.size() &&
                       std::fflush(sink.file) == 0;
  if (!written && errno == EPIPE) sink.gone = true;
}

void Output::line(Logger::Level level, Color color, std::string_view prefix,
                  std::string_view text) {
  if (quiet_ && level != Logger::Level::kError) return;
  if (level == Logger::Level::kDebug && !verbose_) return;
  std::lock_guard lock(mutex_);
  std::string written = live_shown_ ? "\r\033[K" : "";
  live_shown_ = false;
  if (!prefix.empty()) written += paint(color, prefix);
  written += shown(text) + "\n";
  write(err_, written);
}

void Output::report(std::string_view text) {
  if (json_) {
    line(Logger::Level::kInfo, Color::kNone, "", text);
    return;
  }
  std::lock_guard lock(mutex_);
  write(out_, shown(text) + "\n");
}

void Output::info(std::string_view text) { line(Logger::Level::kInfo, Color::kNone, "", text); }
void Output::success(std::string_view text) {
  line(Logger::Level::kInfo, Color::kGreen, "✔ ", text);
}
void Output::warn(std::string_view text) { line(Logger::Level::kWarn, Color::kYellow, "⚠ ", text); }
void Output::error(std::string_view text) { line(Logger::Level::kError, Color::kRed, "✖ ", text); }
void Output::debug(std::string_view text) { line(Logger::Level::kDebug, Color::kDim, "· ", text); }

void Output::live(std::string_view text) {
  if (!terminal_ || quiet_) return;
  std::lock_guard lock(mutex_);
  // One column spare: writing the last one makes some terminals wrap at once.
  const std::size_t columns = terminal_columns();
  const std::string body = shown(text);
  write(err_, "\r\033[K" + (columns > 1 ? fit_width(body, columns - 1) : body));
  live_shown_ = true;
}

void Output::clear_live() {
  std::lock_guard lock(mutex_);
  if (!live_shown_) return;
  write(err_, "\r\033[K");
  live_shown_ = false;
}

void Output::document(const nlohmann::json& value) {
  if (document_written_.exchange(true)) return;
  // Database strings may carry anything; dump() escapes controls, and redaction keeps
  // credentials out of pipelines that log stdout.
  const std::string text =
      redacted(value).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard lock(mutex_);
  write(out_, text + "\n");
}

std::shared_ptr<Logger> Output::logger() { return std::make_shared<OutputLogger>(*this); }

}  // namespace migronaut::cli

namespace migronaut {

// The library's default Logger in this binary, in place of spdlog's (core/log.hpp), so the CLI
// neither loads libspdlog nor builds its registry at start-up. Every command passes its own
// Output's logger (Context::migrator_options); a Migrator given none writes here, on stderr.
std::shared_ptr<Logger> default_logger() {
  static cli::Output output(false, false, false, false);
  return output.logger();
}

}  // namespace migronaut

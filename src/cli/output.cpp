#include "cli/output.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "fmt/format.h"
#include "util/redact.hpp"

namespace migronaut::cli {
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::string shown(std::string_view text) { return sanitize_for_terminal(redact(text)); }

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

 private:
  Output& output_;
};

}  // namespace

bool color_enabled(bool no_color_flag, bool stderr_is_terminal) {
  if (no_color_flag) return false;
  if (const char* force = env("MIGRONAUT_FORCE_COLOR")) return std::string_view(force) != "0";
  if (env("MIGRONAUT_NO_COLOR")) return false;
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
      color_(color_enabled(no_color_flag, terminal_)) {}

std::string Output::paint(Color color, std::string_view text) const {
  if (!color_ || color == Color::kNone) return std::string(text);
  const char* code = color == Color::kGreen    ? "32"
                     : color == Color::kYellow ? "33"
                     : color == Color::kRed    ? "31"
                     : color == Color::kDim    ? "2"
                                               : "1";
  return fmt::format("\033[{}m{}\033[0m", code, text);
}

void Output::line(Logger::Level level, Color color, std::string_view prefix,
                  std::string_view text) {
  if (quiet_ && level != Logger::Level::kError) return;
  if (level == Logger::Level::kDebug && !verbose_) return;
  std::lock_guard lock(mutex_);
  if (live_shown_) {
    std::fputs("\r\033[K", stderr);
    live_shown_ = false;
  }
  const std::string body = shown(text);
  std::fprintf(stderr, "%s%s\n", prefix.empty() ? "" : paint(color, prefix).c_str(), body.c_str());
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
  std::fprintf(stderr, "\r\033[K%s", shown(text).c_str());
  std::fflush(stderr);
  live_shown_ = true;
}

void Output::clear_live() {
  std::lock_guard lock(mutex_);
  if (!live_shown_) return;
  std::fputs("\r\033[K", stderr);
  live_shown_ = false;
}

void Output::document(const nlohmann::json& value) {
  // Database strings may carry anything; dump() escapes controls, and redaction keeps
  // credentials out of pipelines that log stdout.
  const std::string text =
      redacted(value).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fprintf(stdout, "%s\n", text.c_str());
  std::fflush(stdout);
}

std::shared_ptr<Logger> Output::logger() { return std::make_shared<OutputLogger>(*this); }

}  // namespace migronaut::cli

// The CLI's channels, where shells expect them: reports (status, list, lock, dry-run, help,
// --version) on stdout; progress, warnings and errors on stderr (colored on a terminal); with
// --json one JSON document on stdout and the human lines all on stderr. Everything shown is
// redacted and stripped of terminal controls, since much of it comes from the database. A stream
// whose reader is gone (`migronaut up --json | jq` with jq ended) is written no more: the run
// goes on and ends with its own exit status.
#pragma once

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "migronaut/migration.hpp"

namespace migronaut::cli {

enum class Color { kNone, kGreen, kYellow, kRed, kDim, kBold };

class Output {
 public:
  Output(bool json, bool quiet, bool verbose, bool no_color_flag);

  bool json_mode() const { return json_; }
  bool verbose() const { return verbose_; }
  bool terminal() const { return terminal_; }

  // A line of a report (a table row, a lock holder): stdout, or stderr under --json.
  void report(std::string_view line);
  void info(std::string_view line);
  void success(std::string_view line);
  void warn(std::string_view line);
  void error(std::string_view line);
  void debug(std::string_view line);
  // A line that is rewritten in place on a terminal (the lock-wait progress), cut to the
  // terminal's width so it never wraps; no-op elsewhere.
  void live(std::string_view line);
  void clear_live();

  // The one JSON document of a --json run.
  void document(const nlohmann::json& value);

  std::string paint(Color color, std::string_view text) const;
  // The same for a report line: colored only when stdout is a terminal.
  std::string paint_report(Color color, std::string_view text) const;
  // The Logger handed to the library: lines at or above the chosen level, on stderr.
  std::shared_ptr<Logger> logger();

 private:
  // stdout or stderr, and whether its reader is gone.
  struct Sink {
    std::FILE* file;
    bool gone = false;
  };

  void line(Logger::Level level, Color color, std::string_view prefix, std::string_view text);
  // Writes `text` to `sink` and flushes it; the caller holds mutex_.
  static void write(Sink& sink, std::string_view text);

  bool json_;
  bool quiet_;
  bool verbose_;
  bool terminal_;
  bool color_;
  bool report_color_;
  bool live_shown_ = false;
  std::mutex mutex_;  // heartbeat and signal threads print too
  Sink out_{stdout};
  Sink err_{stderr};
  // stdout carries one document: a second signal's, racing the command's own, is dropped.
  std::atomic<bool> document_written_ = false;
};

// The variables color_enabled() reads that are migronaut's own.
inline constexpr std::string_view kForceColorVariable = "MIGRONAUT_FORCE_COLOR";
inline constexpr std::string_view kNoColorVariable = "MIGRONAUT_NO_COLOR";

// Whether color is on: --no-color, then MIGRONAUT_FORCE_COLOR, MIGRONAUT_NO_COLOR, FORCE_COLOR,
// NO_COLOR, TERM=dumb, and finally whether stderr is a terminal.
bool color_enabled(bool no_color_flag, bool stderr_is_terminal);

// `text` cut to `columns` display columns (UTF-8 code points; an ellipsis marks the cut).
std::string fit_width(std::string_view text, std::size_t columns);

}  // namespace migronaut::cli

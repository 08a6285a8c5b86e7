#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "util/redact.hpp"

namespace migronaut {
namespace {

spdlog::level::level_enum spdlog_level(Logger::Level level) {
  switch (level) {
    case Logger::Level::kDebug:
      return spdlog::level::debug;
    case Logger::Level::kInfo:
      return spdlog::level::info;
    case Logger::Level::kWarn:
      return spdlog::level::warn;
    case Logger::Level::kError:
      break;
  }
  return spdlog::level::err;
}

constexpr const char* kLoggerName = "migronaut";

// The host's spdlog logger named "migronaut" if it registered one, else one on stderr: spdlog's
// own default writes to stdout, which a service may use for its output or its protocol.
std::shared_ptr<spdlog::logger> migronaut_logger() {
  if (auto registered = spdlog::get(kLoggerName)) return registered;
  try {
    return spdlog::stderr_color_mt(kLoggerName);
  } catch (const spdlog::spdlog_ex&) {
    return spdlog::get(kLoggerName);  // another thread registered it first
  }
}

}  // namespace

SpdlogLogger::SpdlogLogger(std::shared_ptr<spdlog::logger> logger)
    : logger_(logger ? std::move(logger) : migronaut_logger()) {}

void SpdlogLogger::log(Level level, std::string_view message) {
  logger_->log(spdlog_level(level), "{}", redact(message));
}

bool SpdlogLogger::enabled(Level level) const { return logger_->should_log(spdlog_level(level)); }

std::shared_ptr<Logger> default_logger() { return std::make_shared<SpdlogLogger>(); }

}  // namespace migronaut

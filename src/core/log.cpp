#include "core/log.hpp"

#include <spdlog/spdlog.h>

#include "util/redact.hpp"

namespace migronaut {

SpdlogLogger::SpdlogLogger(std::shared_ptr<spdlog::logger> logger)
    : logger_(logger ? std::move(logger) : spdlog::default_logger()) {}

void SpdlogLogger::log(Level level, std::string_view message) {
  const auto spd = level == Level::kDebug  ? spdlog::level::debug
                   : level == Level::kInfo ? spdlog::level::info
                   : level == Level::kWarn ? spdlog::level::warn
                                           : spdlog::level::err;
  logger_->log(spd, "{}", redact(message));
}

}  // namespace migronaut

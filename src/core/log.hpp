// The library's default Logger: spdlog, whose default sink is stderr.
#pragma once

#include <memory>

#include "migronaut/migration.hpp"

namespace spdlog {
class logger;
}

namespace migronaut {

class SpdlogLogger : public Logger {
 public:
  // Null: the spdlog logger registered as "migronaut", or else a new one on stderr.
  explicit SpdlogLogger(std::shared_ptr<spdlog::logger> logger = nullptr);
  void log(Level level, std::string_view message) override;
  bool enabled(Level level) const override;

 private:
  std::shared_ptr<spdlog::logger> logger_;
};

// The Logger of a Migrator given none: a SpdlogLogger(). Defined in
// log.cpp, its own layer, so that a program that always passes a Logger (the CLI) can define
// this instead and leave spdlog out of its process.
std::shared_ptr<Logger> default_logger();

}  // namespace migronaut

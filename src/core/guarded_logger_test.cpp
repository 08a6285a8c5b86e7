#include "core/guarded_logger.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace migronaut {
namespace {

// Throws on the lines it is told to, keeps the others.
class FailingSink : public Logger {
 public:
  void log(Level, std::string_view message) override {
    if (message.find("fail") != std::string_view::npos) throw std::runtime_error("sink full");
    lines.emplace_back(message);
  }
  bool enabled(Level level) const override {
    if (level == Level::kDebug) throw std::runtime_error("sink closed");
    return level != Level::kInfo;
  }
  std::vector<std::string> lines;
};

TEST(GuardedLoggerTest, WhatTheSinkThrowsIsDroppedAndLaterLinesStillGo) {
  const auto sink = std::make_shared<FailingSink>();
  GuardedLogger logger(sink);
  EXPECT_NO_THROW(logger.warn("this line will fail"));
  logger.warn("lock released");
  EXPECT_EQ(sink->lines, std::vector<std::string>{"lock released"});
  EXPECT_FALSE(logger.enabled(Logger::Level::kInfo));
  EXPECT_TRUE(logger.enabled(Logger::Level::kDebug));  // unknown: the line is built
}

}  // namespace
}  // namespace migronaut

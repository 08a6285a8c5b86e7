#include "core/log.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <string>

namespace migronaut {
namespace {

// What a child process that logs one warning through default_logger() writes to fd `fd`.
std::string written_to(int fd) {
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], fd);
    close(pipe_fds[0]);
    default_logger()->log(Logger::Level::kWarn, "a line for the host's log");
    spdlog::shutdown();
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return text;
}

// A service may use its stdout for its own output: the library's lines go to stderr.
TEST(DefaultLoggerTest, WritesToStderrNotStdout) {
  EXPECT_NE(written_to(STDERR_FILENO).find("a line for the host's log"), std::string::npos);
  EXPECT_EQ(written_to(STDOUT_FILENO), "");
}

TEST(DefaultLoggerTest, UsesTheLoggerTheHostRegistered) {
  std::ostringstream captured;
  auto host = std::make_shared<spdlog::logger>(
      "migronaut", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured));
  spdlog::register_logger(host);
  default_logger()->log(Logger::Level::kWarn, "through the host's sink");
  spdlog::drop("migronaut");
  EXPECT_NE(captured.str().find("through the host's sink"), std::string::npos);
}

}  // namespace
}  // namespace migronaut

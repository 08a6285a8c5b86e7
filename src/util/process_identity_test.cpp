#include "util/process_identity.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace migronaut {
namespace {

// The state letter /proc shows for `pid` ('\0' once it is gone).
char proc_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  const std::string line((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t end = line.rfind(')');
  return end == std::string::npos || end + 2 >= line.size() ? '\0' : line[end + 2];
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(ProcessRunningHereTest, ThisProcessRunsHereAndNowhereElse) {
  EXPECT_TRUE(process_running_here(getpid(), host_name(), now_ms()));
  EXPECT_FALSE(process_running_here(getpid(), host_name() + "-elsewhere", now_ms()));
  EXPECT_FALSE(process_running_here(0, host_name(), now_ms()));
}

// A holder that wrote its record before this process started is not this process: its pid was
// given again.
TEST(ProcessRunningHereTest, AProcessThatStartedAfterTheHolderLastWroteIsAnotherOne) {
  EXPECT_FALSE(process_running_here(getpid(), host_name(), now_ms() - 3'600'000));
}

// A holder stopped by SIGSTOP holds on to its database but makes no progress: not running.
TEST(ProcessRunningHereTest, AStoppedProcessDoesNotRunAndAReapedOneIsGone) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  EXPECT_TRUE(process_running_here(child, host_name(), now_ms()));
  ASSERT_EQ(kill(child, SIGSTOP), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);  // returns once it is stopped
  ASSERT_TRUE(WIFSTOPPED(status));
  EXPECT_EQ(proc_state(child), 'T');
  EXPECT_FALSE(process_running_here(child, host_name(), now_ms()));
  ASSERT_EQ(kill(child, SIGKILL), 0);
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_FALSE(process_running_here(child, host_name(), now_ms()));
}

}  // namespace
}  // namespace migronaut

// Real processes for process-level tests: the `migronaut` binary (or any program) started with
// fork/exec, its output captured to files (no pipe can fill up and stall it), signalled and
// waited for like an orchestrator would.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace migronaut::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that killed it, else 0
  std::string out;
  std::string err;
};

// How a process ended and what it said, for a failed assertion's message.
inline std::string describe(const ProcessResult& result) {
  return "exit " + std::to_string(result.exit_code) + " signal " + std::to_string(result.signal) +
         "\nstdout: " + result.out + "\nstderr: " + result.err;
}

// Where the child's stdout or stderr goes: a file the test reads back, or a pipe whose reader was
// gone before the child started (`migronaut up | true`), so that every write there fails.
enum class Sink { kCaptured, kReaderGone };
struct Sinks {
  Sink out = Sink::kCaptured;
  Sink err = Sink::kCaptured;
};

class Process {
 public:
  // `env` is added to (and overrides) this process's environment. stdin is read from
  // `stdin_from` (a FIFO the test keeps open makes a terminal-less prompt that waits); what the
  // child writes to a sink whose reader is gone reads back as "".
  Process(std::vector<std::string> argv, std::map<std::string, std::string> env = {},
          std::filesystem::path cwd = {}, const std::filesystem::path& stdin_from = "/dev/null",
          Sinks sinks = {});
  ~Process();  // SIGKILLs and reaps a process still running
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int signal) const;
  // Bounded: a process still running after kWaitLimit is killed (signal SIGKILL, a note at the
  // end of `err`), so a hung binary fails its test instead of hanging the suite.
  static constexpr std::chrono::milliseconds kWaitLimit{120'000};
  ProcessResult wait();
  // nullopt when still running after `timeout`.
  std::optional<ProcessResult> wait_for(std::chrono::milliseconds timeout);
  // The output so far (for waiting on a line the process prints).
  std::string err_so_far() const;

 private:
  ProcessResult collect(int status);

  pid_t pid_ = -1;
  std::filesystem::path out_path_;
  std::filesystem::path err_path_;
  std::optional<ProcessResult> result_;
};

// The binary under test: $MIGRONAUT_BIN (set by ctest for every test).
std::string migronaut_binary();
// Runs `migronaut args…` to completion.
ProcessResult run_migronaut(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env = {},
                            const std::filesystem::path& cwd = {});

// The lines of `output` that contain `part`, in order.
std::vector<std::string> lines_containing(const std::string& output, const std::string& part);

}  // namespace migronaut::testing

#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace migronaut::testing {
namespace {

std::filesystem::path capture_file(const char* stream) {
  static int counter = 0;
  return std::filesystem::temp_directory_path() / ("migronaut-test-" + std::to_string(getpid()) +
                                                   "-" + std::to_string(++counter) + "." + stream);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The suite's own variables (MIGRONAUT_BIN, MIGRONAUT_TEST_*), which the binary under test does
// not read: passed on, they would draw its warning about unknown MIGRONAUT_* variables.
bool is_suite_variable(const std::string& name) {
  return name == "MIGRONAUT_BIN" || name.starts_with("MIGRONAUT_TEST_");
}

// The descriptor the child writes `sink` to: the capture file `path`, or the write end of a pipe
// whose read end is closed here, before the child exists.
int sink_descriptor(Sink sink, const std::filesystem::path& path) {
  if (sink == Sink::kCaptured) {
    return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  }
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return -1;
  close(ends[0]);
  return ends[1];
}

}  // namespace

Process::Process(std::vector<std::string> argv, std::map<std::string, std::string> env,
                 std::filesystem::path cwd, const std::filesystem::path& stdin_from, Sinks sinks)
    : out_path_(capture_file("out")), err_path_(capture_file("err")) {
  // Everything the child needs is prepared before fork: only async-signal-safe calls after.
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string item(*entry);
    const std::string name = item.substr(0, item.find('='));
    if (!env.contains(name) && !is_suite_variable(name)) environment.push_back(item);
  }
  for (const auto& [name, value] : env) environment.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& item : environment) envp.push_back(item.data());
  envp.push_back(nullptr);
  const int out = sink_descriptor(sinks.out, out_path_);
  const int err = sink_descriptor(sinks.err, err_path_);
  const int in = open(stdin_from.c_str(), O_RDONLY | O_CLOEXEC);
  if (out < 0 || err < 0 || in < 0) throw std::runtime_error("cannot open capture files");

  pid_ = fork();
  if (pid_ == 0) {
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    // A test runner may block signals; the child must start with the default disposition.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // Also SIGPIPE's, which an ignoring runner would pass on through exec: a binary that dies of
    // a reader gone away, as it would under a shell, must not pass its test.
    ::signal(SIGPIPE, SIG_DFL);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(out);
  close(err);
  close(in);
  if (pid_ < 0) throw std::runtime_error("fork failed");
}

Process::~Process() {
  if (!result_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  std::error_code ignored;
  std::filesystem::remove(out_path_, ignored);
  std::filesystem::remove(err_path_, ignored);
}

void Process::signal(int signal) const { kill(pid_, signal); }

ProcessResult Process::collect(int status) {
  ProcessResult result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = read_file(out_path_);
  result.err = read_file(err_path_);
  result_ = result;
  return result;
}

ProcessResult Process::wait() {
  if (auto done = wait_for(kWaitLimit)) return *done;
  // Hung: a test fails with what it printed instead of hanging the suite.
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ProcessResult result = collect(status);
  result.err += "\n[test support: killed after " + std::to_string(kWaitLimit.count()) +
                " ms without exiting]";
  return result;
}

std::optional<ProcessResult> Process::wait_for(std::chrono::milliseconds timeout) {
  if (result_) return result_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) return collect(status);
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string Process::err_so_far() const { return read_file(err_path_); }

std::string migronaut_binary() {
  const char* path = std::getenv("MIGRONAUT_BIN");
  if (path == nullptr || *path == '\0') throw std::runtime_error("MIGRONAUT_BIN is not set");
  return path;
}

ProcessResult run_migronaut(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env,
                            const std::filesystem::path& cwd) {
  std::vector<std::string> argv = {migronaut_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  Process process(std::move(argv), env, cwd);
  return process.wait();
}

std::vector<std::string> lines_containing(const std::string& output, const std::string& part) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.find(part) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

}  // namespace migronaut::testing

#include "mongo/mock_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>

extern char** environ;

namespace migronaut::testing {

MockMongo::MockMongo(const std::string& scenario) {
  char pattern[] = "/tmp/migronaut-mongo-XXXXXX";
  const int record_fd = mkstemp(pattern);
  if (record_fd < 0) throw std::runtime_error("mkstemp failed");
  close(record_fd);
  record_ = pattern;

  int to_child[2];
  int from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, to_child[1]);
  posix_spawn_file_actions_addclose(&actions, from_child[0]);
  // Debian's interpreter: python3-mockupdb is installed for it, whatever else is on PATH.
  std::string python = "/usr/bin/python3";
  std::string script = MIGRONAUT_MONGO_SCENARIOS;
  std::string record = record_.string();
  std::array<char*, 5> argv = {python.data(), script.data(), const_cast<char*>(scenario.c_str()),
                               record.data(), nullptr};
  const int spawned = posix_spawn(&pid_, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  stdin_fd_ = to_child[1];
  if (spawned != 0) {
    close(from_child[0]);
    throw std::runtime_error("cannot start " + python);
  }
  FILE* out = fdopen(from_child[0], "r");
  if (out == nullptr || std::fscanf(out, "%d", &port_) != 1) {
    if (out != nullptr) std::fclose(out);
    throw std::runtime_error("the mockupdb scenario '" + scenario +
                             "' did not start (is python3-mockupdb installed?)");
  }
  std::fclose(out);
}

MockMongo::~MockMongo() {
  // Closing its stdin stops the server; it exits on its own.
  if (stdin_fd_ >= 0) close(stdin_fd_);
  if (pid_ > 0) {
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  std::error_code ignored;
  std::filesystem::remove(record_, ignored);
}

std::string MockMongo::uri(const std::string& path) const {
  return "mongodb://127.0.0.1:" + std::to_string(port_) + "/" + path +
         "?serverSelectionTimeoutMS=2000&directConnection=true";
}

std::vector<ReceivedCommand> MockMongo::received() const {
  std::vector<ReceivedCommand> commands;
  std::ifstream in(record_);
  for (std::string line; std::getline(in, line);) {
    auto entry = nlohmann::json::parse(line);
    commands.push_back({entry["command"].get<std::string>(), entry["doc"]});
  }
  return commands;
}

std::vector<ReceivedCommand> MockMongo::operations() const {
  static const std::set<std::string> kHousekeeping = {"isMaster", "ismaster", "hello", "ping",
                                                      "endSessions"};
  std::vector<ReceivedCommand> commands;
  for (auto& command : received()) {
    if (!kHousekeeping.contains(command.name)) commands.push_back(std::move(command));
  }
  return commands;
}

}  // namespace migronaut::testing

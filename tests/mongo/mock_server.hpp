// A scripted MongoDB server (tests/mongo/scenarios.py on mockupdb) for wire-level tests: it
// records every command it receives, which the test then reads back.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace migronaut::testing {

struct ReceivedCommand {
  std::string name;
  nlohmann::json doc;  // relaxed Extended JSON, as the server decoded it
};

class MockMongo {
 public:
  // Starts `scenario` and waits for its port. Throws std::runtime_error when it cannot start.
  explicit MockMongo(const std::string& scenario);
  ~MockMongo();
  MockMongo(const MockMongo&) = delete;
  MockMongo& operator=(const MockMongo&) = delete;

  int port() const { return port_; }
  // mongodb://127.0.0.1:PORT/<path>?serverSelectionTimeoutMS=2000&directConnection=true
  std::string uri(const std::string& path = "") const;

  // Everything received so far, handshakes included.
  std::vector<ReceivedCommand> received() const;
  // The received commands other than handshakes, pings and session cleanup.
  std::vector<ReceivedCommand> operations() const;

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int port_ = 0;
  std::filesystem::path record_;
};

}  // namespace migronaut::testing

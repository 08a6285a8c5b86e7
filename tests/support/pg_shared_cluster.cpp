// The ctest fixture around the tests that share one PostgreSQL cluster (PgCluster::run_wide):
// `start` starts it and records it for the ctest run that started it, `stop` stops that run's
// cluster and removes it and its record. A run cut short leaves its record: the next start
// stops every cluster whose run is gone.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "support/pg_cluster.hpp"

namespace {

namespace fs = std::filesystem;
using migronaut::testing::PgCluster;

// Stops the recorded cluster, if any, and forgets it; false when stopping it failed.
bool stop_recorded(const fs::path& state) {
  if (!fs::exists(state)) return true;
  bool stopped = true;
  try {
    PgCluster(state).stop();
  } catch (const std::exception& error) {
    std::cerr << error.what() << '\n';
    stopped = false;
  }
  fs::remove(state);
  return stopped;
}

// Stops the clusters of the ctest runs that ended without their `stop`.
void stop_left_behind(const fs::path& records) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(records, error)) {
    const pid_t run = static_cast<pid_t>(std::atol(entry.path().filename().c_str()));
    if (run <= 0 || (kill(run, 0) != 0 && errno == ESRCH)) stop_recorded(entry.path());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc == 2 ? argv[1] : "";
  if (command != "start" && command != "stop") {
    std::cerr << "usage: pg_shared_cluster start|stop\n";
    return 2;
  }
  const fs::path state = PgCluster::run_wide_record(getppid());
  if (command == "stop") return stop_recorded(state) ? 0 : 1;
  stop_left_behind(state.parent_path());
  try {
    fs::create_directories(state.parent_path());
    PgCluster().keep_running(state);
  } catch (const std::exception& error) {
    std::cerr << error.what() << '\n';
    return 1;
  }
  std::cout << "shared PostgreSQL cluster recorded in " << state.string() << '\n';
  return 0;
}

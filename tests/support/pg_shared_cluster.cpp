// The ctest fixture around the tests that share one PostgreSQL cluster (PgCluster::run_wide):
// `start` starts it and records it, `stop` stops it and removes it and its record.
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

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc == 2 ? argv[1] : "";
  if (command != "start" && command != "stop") {
    std::cerr << "usage: pg_shared_cluster start|stop\n";
    return 2;
  }
  const fs::path state = MIGRONAUT_PG_SHARED_STATE;
  if (command == "stop") return stop_recorded(state) ? 0 : 1;
  stop_recorded(state);  // a run cut short may have left its cluster running
  try {
    PgCluster().keep_running(state);
  } catch (const std::exception& error) {
    std::cerr << error.what() << '\n';
    return 1;
  }
  std::cout << "shared PostgreSQL cluster recorded in " << state.string() << '\n';
  return 0;
}

// A caller's Logger that cannot break a run.
#pragma once

#include <memory>
#include <string_view>

#include "migronaut/migration.hpp"

namespace migronaut {

// Forwards to `sink`, dropping what it throws. The engine logs from everywhere, between taking
// the lock and releasing it among other places: a sink that throws (a full disk, a closed
// pipe) would otherwise end the run there with an error that is not migronaut's, the lock left
// to its TTL. A line a sink fails to take is lost, as it would be in the sink.
class GuardedLogger : public Logger {
 public:
  explicit GuardedLogger(std::shared_ptr<Logger> sink) : sink_(std::move(sink)) {}
  void log(Level level, std::string_view message) override;
  bool enabled(Level level) const override;

 private:
  std::shared_ptr<Logger> sink_;
};

}  // namespace migronaut

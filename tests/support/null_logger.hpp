// A Logger that drops every line, for tests that need one but check none.
#pragma once

#include "migronaut/migration.hpp"

namespace migronaut::testing {

class NullLogger : public Logger {
 public:
  void log(Level, std::string_view) override {}
  bool enabled(Level) const override { return false; }
};

}  // namespace migronaut::testing

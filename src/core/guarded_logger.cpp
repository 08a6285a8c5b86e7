#include "core/guarded_logger.hpp"

namespace migronaut {

void GuardedLogger::log(Level level, std::string_view message) {
  try {
    sink_->log(level, message);
  } catch (...) {  // dropped: see the class comment
  }
}

bool GuardedLogger::enabled(Level level) const {
  try {
    return sink_->enabled(level);
  } catch (...) {
    return true;
  }
}

}  // namespace migronaut

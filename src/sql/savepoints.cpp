#include "sql/savepoints.hpp"

#include <algorithm>

namespace migronaut {

bool SavepointStack::unwind(const std::string& name, bool keep_it) {
  const auto found = std::find(open_.rbegin(), open_.rend(), name);
  if (found == open_.rend()) return false;
  const auto kept = static_cast<std::size_t>(open_.rend() - found) - (keep_it ? 0 : 1);
  open_.resize(kept);
  return true;
}

}  // namespace migronaut

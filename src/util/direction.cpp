#include "migronaut/migration.hpp"

namespace migronaut {

std::string_view direction_name(Direction direction) {
  return direction == Direction::kUp ? "up" : "down";
}

}  // namespace migronaut

#include "migronaut/migrator.hpp"

namespace migronaut {

std::string_view migration_state_name(MigrationState state) {
  switch (state) {
    case MigrationState::kPending:
      return "pending";
    case MigrationState::kApplied:
      return "applied";
    case MigrationState::kFailed:
      return "failed";
    case MigrationState::kReverted:
      return "reverted";
    case MigrationState::kInterrupted:
      return "interrupted";
    case MigrationState::kMissing:
      return "missing";
    case MigrationState::kApplying:
      return "applying";
    case MigrationState::kHalfReverted:
      return "half-reverted";
    case MigrationState::kReverting:
      return "reverting";
  }
  return "pending";
}

void to_json(nlohmann::json& out, MigrationState state) {
  out = std::string(migration_state_name(state));
}

bool needs_run(MigrationState state) {
  return state != MigrationState::kApplied && state != MigrationState::kMissing;
}

}  // namespace migronaut

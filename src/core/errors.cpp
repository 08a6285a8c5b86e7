#include "migronaut/errors.hpp"

namespace migronaut {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUnclassified: return "UNCLASSIFIED";
    case ErrorCode::kPendingMigrations: return "PENDING_MIGRATIONS";
    case ErrorCode::kLockAlreadyHeld: return "LOCK_ALREADY_HELD";
    case ErrorCode::kChecksumMismatch: return "CHECKSUM_MISMATCH";
    case ErrorCode::kConnectionFailed: return "CONNECTION_FAILED";
    case ErrorCode::kConfigInvalid: return "CONFIG_INVALID";
    case ErrorCode::kMigrationExecutionFailed: return "MIGRATION_EXECUTION_FAILED";
    case ErrorCode::kMigrationFileNotFound: return "MIGRATION_FILE_NOT_FOUND";
    case ErrorCode::kNotApplied: return "NOT_APPLIED";
    case ErrorCode::kLockLost: return "LOCK_LOST";
    case ErrorCode::kRunAborted: return "RUN_ABORTED";
    case ErrorCode::kHookFailed: return "HOOK_FAILED";
    case ErrorCode::kMigrationIrreversible: return "MIGRATION_IRREVERSIBLE";
    case ErrorCode::kMigrationTimeout: return "MIGRATION_TIMEOUT";
    case ErrorCode::kTransactionsUnsupported: return "TRANSACTIONS_UNSUPPORTED";
    case ErrorCode::kConfigFileExists: return "CONFIG_FILE_EXISTS";
    case ErrorCode::kMigrationFileExists: return "MIGRATION_FILE_EXISTS";
    case ErrorCode::kMigrationInvalidName: return "MIGRATION_INVALID_NAME";
    case ErrorCode::kMigrationInvalidFormat: return "MIGRATION_INVALID_FORMAT";
    case ErrorCode::kLockReleaseFailed: return "LOCK_RELEASE_FAILED";
    case ErrorCode::kAuditFailed: return "AUDIT_FAILED";
    case ErrorCode::kMigrationOutOfOrder: return "MIGRATION_OUT_OF_ORDER";
    case ErrorCode::kMigrationBlocked: return "MIGRATION_BLOCKED";
  }
  return "UNCLASSIFIED";
}

Error::Error(ErrorCode code, const std::string& message, nlohmann::json context)
    : std::runtime_error(message), code_(code), context_(std::move(context)) {
  if (!context_.is_object()) context_ = nlohmann::json::object();
}

nlohmann::json Error::to_json() const {
  return {{"code", code_name()}, {"message", what()}, {"context", context_}};
}

}  // namespace migronaut

#include "migronaut/errors.hpp"

namespace migronaut {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUnclassified:
      return "UNCLASSIFIED";
    case ErrorCode::kPendingMigrations:
      return "PENDING_MIGRATIONS";
    case ErrorCode::kLockAlreadyHeld:
      return "LOCK_ALREADY_HELD";
    case ErrorCode::kChecksumMismatch:
      return "CHECKSUM_MISMATCH";
    case ErrorCode::kConnectionFailed:
      return "CONNECTION_FAILED";
    case ErrorCode::kConfigInvalid:
      return "CONFIG_INVALID";
    case ErrorCode::kMigrationExecutionFailed:
      return "MIGRATION_EXECUTION_FAILED";
    case ErrorCode::kMigrationFileNotFound:
      return "MIGRATION_FILE_NOT_FOUND";
    case ErrorCode::kNotApplied:
      return "NOT_APPLIED";
    case ErrorCode::kLockLost:
      return "LOCK_LOST";
    case ErrorCode::kRunAborted:
      return "RUN_ABORTED";
    case ErrorCode::kHookFailed:
      return "HOOK_FAILED";
    case ErrorCode::kMigrationIrreversible:
      return "MIGRATION_IRREVERSIBLE";
    case ErrorCode::kMigrationTimeout:
      return "MIGRATION_TIMEOUT";
    case ErrorCode::kTransactionsUnsupported:
      return "TRANSACTIONS_UNSUPPORTED";
    case ErrorCode::kConfigFileExists:
      return "CONFIG_FILE_EXISTS";
    case ErrorCode::kImportTargetNotEmpty:
      return "IMPORT_TARGET_NOT_EMPTY";
    case ErrorCode::kMigrationFileExists:
      return "MIGRATION_FILE_EXISTS";
    case ErrorCode::kMigrationInvalidName:
      return "MIGRATION_INVALID_NAME";
    case ErrorCode::kMigrationInvalidFormat:
      return "MIGRATION_INVALID_FORMAT";
    case ErrorCode::kLockReleaseFailed:
      return "LOCK_RELEASE_FAILED";
    case ErrorCode::kAuditFailed:
      return "AUDIT_FAILED";
    case ErrorCode::kMigrationOutOfOrder:
      return "MIGRATION_OUT_OF_ORDER";
    case ErrorCode::kMigrationBlocked:
      return "MIGRATION_BLOCKED";
    case ErrorCode::kLintFailed:
      return "LINT_FAILED";
    case ErrorCode::kMigrationLockTimeout:
      return "MIGRATION_LOCK_TIMEOUT";
    case ErrorCode::kMigrationsDirNotFound:
      return "MIGRATIONS_DIR_NOT_FOUND";
    case ErrorCode::kMigrationFileUnreadable:
      return "MIGRATION_FILE_UNREADABLE";
    case ErrorCode::kChangelogInvalid:
      return "CHANGELOG_INVALID";
    case ErrorCode::kSchemaInvalid:
      return "SCHEMA_INVALID";
    case ErrorCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case ErrorCode::kLockRecordInvalid:
      return "LOCK_RECORD_INVALID";
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

namespace {

template <ErrorCode C>
[[noreturn]] void throw_as(const Error& error) {
  throw CodedError<C>(error.what(), error.context());
}

}  // namespace

void throw_typed(const Error& error) {
  switch (error.code()) {
    case ErrorCode::kUnclassified:
      throw_as<ErrorCode::kUnclassified>(error);
    case ErrorCode::kPendingMigrations:
      throw_as<ErrorCode::kPendingMigrations>(error);
    case ErrorCode::kLockAlreadyHeld:
      // The typed refusal survives when `error` still is the original.
      if (const auto* held = dynamic_cast<const LockAlreadyHeldError*>(&error)) throw *held;
      throw LockAlreadyHeldError(error.what(), error.context());
    case ErrorCode::kChecksumMismatch:
      throw_as<ErrorCode::kChecksumMismatch>(error);
    case ErrorCode::kConnectionFailed:
      throw_as<ErrorCode::kConnectionFailed>(error);
    case ErrorCode::kConfigInvalid:
      throw_as<ErrorCode::kConfigInvalid>(error);
    case ErrorCode::kMigrationExecutionFailed:
      throw_as<ErrorCode::kMigrationExecutionFailed>(error);
    case ErrorCode::kMigrationFileNotFound:
      throw_as<ErrorCode::kMigrationFileNotFound>(error);
    case ErrorCode::kNotApplied:
      throw_as<ErrorCode::kNotApplied>(error);
    case ErrorCode::kLockLost:
      throw_as<ErrorCode::kLockLost>(error);
    case ErrorCode::kRunAborted:
      throw_as<ErrorCode::kRunAborted>(error);
    case ErrorCode::kHookFailed:
      throw_as<ErrorCode::kHookFailed>(error);
    case ErrorCode::kMigrationIrreversible:
      throw_as<ErrorCode::kMigrationIrreversible>(error);
    case ErrorCode::kMigrationTimeout:
      throw_as<ErrorCode::kMigrationTimeout>(error);
    case ErrorCode::kTransactionsUnsupported:
      throw_as<ErrorCode::kTransactionsUnsupported>(error);
    case ErrorCode::kConfigFileExists:
      throw_as<ErrorCode::kConfigFileExists>(error);
    case ErrorCode::kImportTargetNotEmpty:
      throw_as<ErrorCode::kImportTargetNotEmpty>(error);
    case ErrorCode::kMigrationFileExists:
      throw_as<ErrorCode::kMigrationFileExists>(error);
    case ErrorCode::kMigrationInvalidName:
      throw_as<ErrorCode::kMigrationInvalidName>(error);
    case ErrorCode::kMigrationInvalidFormat:
      throw_as<ErrorCode::kMigrationInvalidFormat>(error);
    case ErrorCode::kLockReleaseFailed:
      throw_as<ErrorCode::kLockReleaseFailed>(error);
    case ErrorCode::kAuditFailed:
      throw_as<ErrorCode::kAuditFailed>(error);
    case ErrorCode::kMigrationOutOfOrder:
      throw_as<ErrorCode::kMigrationOutOfOrder>(error);
    case ErrorCode::kMigrationBlocked:
      throw_as<ErrorCode::kMigrationBlocked>(error);
    case ErrorCode::kLintFailed:
      throw_as<ErrorCode::kLintFailed>(error);
    case ErrorCode::kMigrationLockTimeout:
      throw_as<ErrorCode::kMigrationLockTimeout>(error);
    case ErrorCode::kMigrationsDirNotFound:
      throw_as<ErrorCode::kMigrationsDirNotFound>(error);
    case ErrorCode::kMigrationFileUnreadable:
      throw_as<ErrorCode::kMigrationFileUnreadable>(error);
    case ErrorCode::kChangelogInvalid:
      throw_as<ErrorCode::kChangelogInvalid>(error);
    case ErrorCode::kSchemaInvalid:
      throw_as<ErrorCode::kSchemaInvalid>(error);
    case ErrorCode::kPermissionDenied:
      throw_as<ErrorCode::kPermissionDenied>(error);
    case ErrorCode::kLockRecordInvalid:
      throw_as<ErrorCode::kLockRecordInvalid>(error);
  }
  throw_as<ErrorCode::kUnclassified>(error);
}

}  // namespace migronaut

// Typed errors. Every failure migronaut reports is a migronaut::Error carrying a code, a
// message (credentials already redacted) and a JSON context; the code decides the CLI's exit
// status, so orchestrators can act on it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "migronaut/lock.hpp"

namespace migronaut {

// The numbers are the original migronaut's exit codes; keep them stable.
enum class ErrorCode : int {
  kUnclassified = 1,
  kPendingMigrations = 2,
  kLockAlreadyHeld = 3,
  kChecksumMismatch = 4,
  kConnectionFailed = 5,
  kConfigInvalid = 6,
  kMigrationExecutionFailed = 7,
  kMigrationFileNotFound = 8,
  kNotApplied = 9,
  kLockLost = 10,
  kRunAborted = 11,
  kHookFailed = 12,
  kMigrationIrreversible = 13,
  kMigrationTimeout = 14,
  kTransactionsUnsupported = 15,
  kConfigFileExists = 16,
  kImportTargetNotEmpty = 17,
  kMigrationFileExists = 18,
  kMigrationInvalidName = 19,
  kMigrationInvalidFormat = 20,
  kLockReleaseFailed = 21,
  kAuditFailed = 22,
  kMigrationOutOfOrder = 23,
  kMigrationBlocked = 24,
  // 25–34 are the original's (queue, converge, background, sandbox); these are migronaut's own.
  kMigrationsDirNotFound = 35,
  kMigrationFileUnreadable = 36,
  kChangelogInvalid = 37,
  kSchemaInvalid = 38,
  kPermissionDenied = 39,
  kLockRecordInvalid = 40,
  kLintFailed = 45,
  kMigrationLockTimeout = 46,
};

// "LOCK_ALREADY_HELD" and so on: the string `--json` prints as error.code.
std::string_view error_code_name(ErrorCode code);

// The process exit status for `code`.
constexpr int exit_status(ErrorCode code) { return static_cast<int>(code); }

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message,
        nlohmann::json context = nlohmann::json::object());

  ErrorCode code() const noexcept { return code_; }
  std::string_view code_name() const { return error_code_name(code_); }
  const nlohmann::json& context() const noexcept { return context_; }
  nlohmann::json& context() noexcept { return context_; }

  // {"code": ..., "message": ..., "context": ...} as `--json` and events report it.
  nlohmann::json to_json() const;

 private:
  ErrorCode code_;
  nlohmann::json context_;
};

// One type per code, so callers can catch exactly what they handle:
//   catch (const migronaut::LockAlreadyHeldError& e) { ... }
template <ErrorCode C>
class CodedError : public Error {
 public:
  static constexpr ErrorCode kCode = C;
  explicit CodedError(const std::string& message, nlohmann::json context = nlohmann::json::object())
      : Error(C, message, std::move(context)) {}
};

using PendingMigrationsError = CodedError<ErrorCode::kPendingMigrations>;
// What a claim refused because another run holds the lock saw.
struct LockRefusal {
  std::optional<LockInfo> holder = std::nullopt;  // absent when the store could not read it
  std::int64_t claim_ttl_ms = 0;                  // the refused claimant's own TTL; 0 when unknown
  bool writer_busy = false;  // the holder is writing right now (SQLite's one write slot)
};

// LOCK_ALREADY_HELD. The refusal is typed for code that decides on it (the lock wait reads
// whether the holder's lockedAt advanced); the JSON context says the same for output.
class LockAlreadyHeldError : public CodedError<ErrorCode::kLockAlreadyHeld> {
 public:
  explicit LockAlreadyHeldError(const std::string& message,
                                nlohmann::json context = nlohmann::json::object(),
                                LockRefusal refusal = {})
      : CodedError(message, std::move(context)), refusal_(std::move(refusal)) {}

  const LockRefusal& refusal() const noexcept { return refusal_; }

 private:
  LockRefusal refusal_;
};

using ChecksumMismatchError = CodedError<ErrorCode::kChecksumMismatch>;
using ConnectionFailedError = CodedError<ErrorCode::kConnectionFailed>;
using ConfigInvalidError = CodedError<ErrorCode::kConfigInvalid>;
using MigrationExecutionFailedError = CodedError<ErrorCode::kMigrationExecutionFailed>;
using MigrationFileNotFoundError = CodedError<ErrorCode::kMigrationFileNotFound>;
using NotAppliedError = CodedError<ErrorCode::kNotApplied>;
using LockLostError = CodedError<ErrorCode::kLockLost>;
using RunAbortedError = CodedError<ErrorCode::kRunAborted>;
using HookFailedError = CodedError<ErrorCode::kHookFailed>;
using MigrationIrreversibleError = CodedError<ErrorCode::kMigrationIrreversible>;
using MigrationTimeoutError = CodedError<ErrorCode::kMigrationTimeout>;
using TransactionsUnsupportedError = CodedError<ErrorCode::kTransactionsUnsupported>;
using ConfigFileExistsError = CodedError<ErrorCode::kConfigFileExists>;
using ImportTargetNotEmptyError = CodedError<ErrorCode::kImportTargetNotEmpty>;
using MigrationFileExistsError = CodedError<ErrorCode::kMigrationFileExists>;
using MigrationInvalidNameError = CodedError<ErrorCode::kMigrationInvalidName>;
using MigrationInvalidFormatError = CodedError<ErrorCode::kMigrationInvalidFormat>;
using LockReleaseFailedError = CodedError<ErrorCode::kLockReleaseFailed>;
using MigrationOutOfOrderError = CodedError<ErrorCode::kMigrationOutOfOrder>;
using MigrationBlockedError = CodedError<ErrorCode::kMigrationBlocked>;
using LintFailedError = CodedError<ErrorCode::kLintFailed>;
using MigrationLockTimeoutError = CodedError<ErrorCode::kMigrationLockTimeout>;
using MigrationsDirNotFoundError = CodedError<ErrorCode::kMigrationsDirNotFound>;
using MigrationFileUnreadableError = CodedError<ErrorCode::kMigrationFileUnreadable>;
using ChangelogInvalidError = CodedError<ErrorCode::kChangelogInvalid>;
using SchemaInvalidError = CodedError<ErrorCode::kSchemaInvalid>;
using PermissionDeniedError = CodedError<ErrorCode::kPermissionDenied>;
using LockRecordInvalidError = CodedError<ErrorCode::kLockRecordInvalid>;

// Throws `error` as its coded type (LockLostError for kLockLost, …), so a caller catching the
// specific type sees an error that was stored or copied as a plain Error.
[[noreturn]] void throw_typed(const Error& error);

}  // namespace migronaut

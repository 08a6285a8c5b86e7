// The backend interface. A Store is one connection to one database: it keeps the lock record
// and the changelog, and runs migration bodies. It decides nothing: which record to write, when
// to take the lock and what a held lock means are the engine's business (src/core). What a store
// owns is atomicity — the lock statements are single statements judged in the database's clock,
// and a transactional migration commits its body, its changelog write and its fencing check
// together or not at all.
//
// A Store is used by one thread at a time. The engine opens a second one for the lock, so the
// heartbeat never waits behind a running migration; interrupt() alone may be called from
// another thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/config.hpp"
#include "migronaut/lock.hpp"
#include "migronaut/migration.hpp"

namespace migronaut {

// ----- Lock -----

// The id of the one lock record (SQL `id`, MongoDB `_id`), shared with the JavaScript original.
inline constexpr std::string_view kLockId = "migronaut_lock";

// Who asks for the lock. `nonce` is minted for every acquire and never shown.
struct LockClaim {
  std::string owner;  // the run id
  std::string nonce;
  std::int64_t ttl_ms = 0;
  std::int64_t pid = 0;
  std::string host;
  std::string executed_by;
};

// What renew, release and fencing match on: both must equal the record's.
struct LockToken {
  std::string owner;
  std::string nonce;
};

struct LockProgress {
  std::string migration;
  std::int64_t step = 0;
  std::int64_t total = 0;
};

struct AcquireResult {
  bool acquired = false;
  std::optional<LockInfo> holder;  // when refused: the holder as the store read it
};

// ----- Changelog writes -----

// The changelog's fields. Stores map them to their own spelling: field_name() gives MongoDB's
// camelCase, column_name() SQL's snake_case.
enum class Field {
  kBatch,
  kStatus,
  kAppliedAt,
  kFirstAppliedAt,
  kRevertedAt,
  kFailedAt,
  kError,
  kFailedChecksum,
  kDuration,
  kChecksum,
  kEnvironment,
  kExecutedBy,
  kRunId,
  kDescription,
  kOrigin,
  kRequestedBy,
  kReason,
};
inline constexpr Field kAllFields[] = {
    Field::kBatch,      Field::kStatus,      Field::kAppliedAt,   Field::kFirstAppliedAt,
    Field::kRevertedAt, Field::kFailedAt,    Field::kError,       Field::kFailedChecksum,
    Field::kDuration,   Field::kChecksum,    Field::kEnvironment, Field::kExecutedBy,
    Field::kRunId,      Field::kDescription, Field::kOrigin,      Field::kRequestedBy,
    Field::kReason};
std::string_view field_name(Field field);   // "appliedAt"
std::string_view column_name(Field field);  // "applied_at"
// Time fields hold ms since the epoch (int64 in SQL, BSON date in MongoDB).
bool is_time_field(Field field);

// The status a store read for the record `name` (nullopt: NULL or missing). One the engine does
// not know throws ChangelogInvalidError naming the record, the value and the way out: guessing
// one would apply a migration twice or skip it.
RecordStatus read_record_status(std::string_view name, const std::optional<std::string>& text);

struct ServerNow {};    // the database's current time
struct WorkElapsed {};  // ms the execution's work took, as the store measures it (execute only)
using FieldValue = std::variant<std::int64_t, std::string, ServerNow, WorkElapsed>;

// `write` with every WorkElapsed replaced by `elapsed_ms`, for stores that time the work
// themselves before writing the record.
struct RecordWrite;
RecordWrite resolve_elapsed(RecordWrite write, std::int64_t elapsed_ms);

// One upsert of the record named `name`, built by the engine (src/core/changelog.cpp), which
// alone decides what each status transition writes. A store translates it literally.
struct RecordWrite {
  std::string name;
  std::vector<std::pair<Field, FieldValue>> set;            // on insert and on update
  std::vector<std::pair<Field, FieldValue>> set_on_insert;  // only when the record is new
  std::vector<Field> unset;                                 // cleared (NULL / $unset)
  // When true, an existing record whose status is `applied` is left untouched (a failure
  // trace never demotes an applied migration).
  bool skip_if_applied = false;
};

// ----- Running a migration -----

// What one direction of a migration runs: a script in the store's own language (an SQL
// section, or a MongoDB JSON array of commands) or a C++ body.
struct Script {
  std::string text;
};
using Work = std::variant<Script, MigrationBody>;

struct Execution {
  const Work* work = nullptr;
  bool transactional = true;
  // Written after the body: inside the transaction when transactional, else right after it.
  const RecordWrite* record = nullptr;
  // Fencing: when set, a transactional execution commits only while the lock record still
  // carries this owner and nonce; otherwise it rolls back and throws LockLostError.
  const LockToken* fence = nullptr;
  // The context handed to a C++ body; the store fills in `handle`.
  MigrationContext* context = nullptr;
};

class Store {
 public:
  virtual ~Store() = default;

  // Its backend's kind in the registry (src/store/registry.cpp): "sqlite", "postgres", "mongo".
  virtual std::string_view kind() const = 0;

  // Creates the lock and changelog tables (collections, indexes) when missing; idempotent.
  // Cheap when read_changelog() already found them.
  virtual void ensure_schema() = 0;

  // --- lock ---
  // One atomic statement in the database's clock: take the lock when no record exists or its
  // holder is stale (lockedAt older than now − max(holder's ttl, claim.ttl_ms)); otherwise
  // leave it untouched and report the holder.
  virtual AcquireResult try_acquire(const LockClaim& claim) = 0;
  // Re-stamps lockedAt (database clock) and the progress, scoped to owner + nonce. False when
  // nothing matched: the lock is no longer ours.
  virtual bool renew(const LockToken& token, const LockProgress& progress) = 0;
  // Deletes the record scoped to owner + nonce; a no-op when it is not ours.
  virtual void release(const LockToken& token) = 0;
  virtual std::optional<LockInfo> read_lock() = 0;
  // Deletes the record whoever holds it; returns the holder it removed.
  virtual std::optional<LockInfo> force_release() = 0;
  // Where the database can push (PostgreSQL LISTEN/NOTIFY): blocks until a release is
  // announced, `timeout` passes or `stop` is requested, and returns true when woken by a
  // release. Stores that cannot push return false at once without waiting.
  virtual bool wait_for_release(std::chrono::milliseconds timeout, std::stop_token stop) {
    (void)timeout;
    (void)stop;
    return false;
  }
  virtual bool can_push_release() const { return false; }

  // --- changelog ---
  // Every record, ordered by name. An absent changelog reads as empty (and creates nothing).
  virtual std::vector<ChangelogRecord> read_changelog() = 0;
  virtual void write_record(const RecordWrite& write) = 0;

  // --- migrations ---
  // Runs `execution.work` and writes `execution.record` as described on Execution. A failing
  // body throws MigrationExecutionFailedError (after rolling back where transactional); a lost
  // connection throws ConnectionFailedError; a failed fence throws LockLostError.
  virtual void execute(const Execution& execution) = 0;
  // Asks a running execute() to stop as soon as it can (timeouts). Thread-safe; best effort.
  virtual void interrupt() {}

  // The database's current time in ms since the epoch (status output, tests).
  virtual std::int64_t now_ms() = 0;

  // False for a store opened with Access::kRead that cannot write (SQLite read-only).
  virtual bool writable() const { return true; }
  // Opened with Access::kRead on a database that does not exist: its name (the store then
  // reads as empty and creates nothing).
  virtual std::optional<std::string> missing_database() const { return std::nullopt; }
};

// kRead creates nothing — no database file, no table — for the commands that only look.
enum class Access { kRead, kWrite };

}  // namespace migronaut

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
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/config.hpp"
#include "migronaut/errors.hpp"
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
  // The claimant will not wait for a held lock: a store whose claim can queue behind a holder's
  // open transaction (SQLite's one writer) answers at once with the holder it reads instead.
  bool fail_fast = false;
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
  // When acquired by replacing a stale record: the dead holder it replaced, as it last was.
  std::optional<LockInfo> reclaimed;
  // Refused because another connection holds the database's single write slot (see
  // is_writer_busy): the store's words for it, naming the database; empty otherwise. Whether
  // that is the holder at work or a stopped one, only its lockedAt moving tells.
  std::string writer_busy = {};
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
  std::vector<std::pair<Field, FieldValue>> set;  // on insert and on update
  // Only where the record has no value yet (new, or the field NULL / missing): a record first
  // written by a failure or an `applying` mark still gets its firstAppliedAt when applied.
  std::vector<std::pair<Field, FieldValue>> set_if_absent;
  std::vector<Field> unset;  // cleared (NULL / $unset)
  // When true, an existing record whose status is `applied` is left untouched (a failure
  // trace never demotes an applied migration).
  bool skip_if_applied = false;
};

// ----- Running a migration -----

// What one direction of a migration runs: a script in the store's own language (an SQL
// section, or a MongoDB JSON array of commands) or a C++ body.
struct Script {
  std::string text;
  std::size_t first_line = 1;  // the line of its file the text starts on (for error positions)
  // Read from a plain-SQL file of another tool's naming (golang-migrate, Flyway), which has no
  // `-- migrate:` marker to say whether it runs in a transaction (see runs_outside_transaction).
  bool plain_file = false;
};
using Work = std::variant<Script, MigrationBody>;

struct Execution {
  const Work* work = nullptr;
  bool transactional = true;
  // Written after the body: inside the transaction when transactional, else right after it
  // (fenced like the transaction when `fence` is set).
  const RecordWrite* record = nullptr;
  // Fencing: when set, a transactional execution commits only while the lock record still
  // carries this owner and nonce; otherwise it rolls back and throws LockLostError.
  const LockToken* fence = nullptr;
  // With `fence`: a transactional execution's fence also renews the lock record (lockedAt,
  // database clock) and writes this progress to it, in the same transaction: the engine passes
  // the migration that runs next, so the record names it from the moment it starts and
  // announcing it costs no round trip of its own (see fence_records_progress()).
  const LockProgress* progress = nullptr;
  // The context handed to a C++ body; the store fills in `handle`.
  MigrationContext* context = nullptr;
  // Where the store can (PostgreSQL), bounds on a transactional execution's statements: how
  // long one may wait for a lock (then it throws MigrationLockTimeoutError, rolled back, with
  // the blocking session in its context) and how long one may run. 0: no bound.
  std::chrono::milliseconds lock_timeout{0};
  std::chrono::milliseconds statement_timeout{0};
  // The migration's timeout: stores that can have the server enforce it do (MongoDB maxTimeMS);
  // interrupt() covers the rest.
  std::optional<std::chrono::milliseconds> time_limit = std::nullopt;
  // Outside a transaction, asked before each statement (a local check): false once the run has
  // lost its lock (say its process was paused past the lease's deadline), when nothing more may
  // be sent — a peer may be running this migration again. Empty: nothing to ask (no lock, or
  // onLockLost: warn).
  std::function<bool()> still_held = nullptr;
};

// ----- Sessions of a dead run -----

// What end_sessions_of() found of a dead run still at work on the server.
struct LeftSessions {
  // Each one described for the log: "pid 4242 (active since …): CREATE INDEX …".
  std::vector<std::string> sessions;
  // Whether this connection asked them to end (PostgreSQL: pg_terminate_backend); false where it
  // lacks the right, and then only the sessions' own end (or an operator) frees the way.
  bool ending = false;
};

// ----- Adopting other tools' databases (import) and read-only health probes (audit) -----

// The tools whose history a store can read. Each keeps it in its own table (collection) under
// its default name: dbmate and golang-migrate `schema_migrations`, Flyway
// `flyway_schema_history`, knex `knex_migrations`, node-pg-migrate `pgmigrations`, sql-migrate
// `gorp_migrations`, migrate-mongo `changelog`.
enum class ForeignTool {
  kDbmate,
  kGolangMigrate,
  kFlyway,
  kKnex,
  kNodePgMigrate,
  kSqlMigrate,
  kMigrateMongo
};

// One row of another tool's history, as the tool wrote it; fields it does not keep stay empty.
struct ForeignRecord {
  std::string version;  // dbmate, golang-migrate, Flyway ("1.2"; "" for a repeatable)
  std::string name;  // knex, node-pg-migrate, sql-migrate, migrate-mongo file name; Flyway's script
  std::string description;  // Flyway
  std::optional<std::int64_t> applied_at_ms;
  std::string checksum;  // migrate-mongo's fileHash; Flyway's CRC32 as text
  bool success = true;   // Flyway's success; false for golang-migrate's dirty version
  std::string type;      // Flyway's type: SQL, BASELINE, UNDO_SQL, …
};

// Which lock record force_release() deletes: whoever's (an empty `owner`) or the run `owner`'s
// and, with `locked_at_ms`, only while it still carries that stamp (not renewed since).
struct ReleaseMatch {
  std::string_view owner;
  std::optional<std::int64_t> locked_at_ms;
};

// What `audit` asks of the store's schema, read without creating or changing anything.
struct StoreProbe {
  bool changelog_exists = false;
  bool lock_table_exists = false;
  std::vector<std::string> missing_indexes;  // changelog indexes ensure_schema() would create
  bool transactions = true;                  // whether this server runs transactions
  std::string transactions_detail;           // why not, when it does not
};

class Store {
 public:
  virtual ~Store() = default;

  // Its backend's kind in the registry (src/store/registry.cpp): "sqlite", "postgres", "mongo".
  virtual std::string_view kind() const = 0;

  // Creates the lock and changelog tables (collections, indexes) when missing; idempotent.
  // SchemaInvalidError when a name is taken by something else (a view, a table of another
  // shape). Every writing run calls it before its lock: it must not wait for a running migration.
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
  // Deletes the record `match` names; returns the holder it removed. `unlock` names the holder
  // it showed and the stamp it showed: a run that took the lock since, as the dead holder's TTL
  // ran out, is never the one released, nor a holder that renewed it while the user was asked.
  virtual std::optional<LockInfo> force_release(const ReleaseMatch& match) = 0;
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
  // All of `writes` or none, in one transaction (MongoDB, which has none outside a replica
  // set's session: in order, so a crash can leave the first ones written). With a fence, they
  // are written only while the lock record carries that owner and nonce, checked atomically with
  // the writes (MongoDB: checked just before them); otherwise nothing is written and
  // LockLostError is thrown.
  virtual void write_records(std::span<const RecordWrite> writes,
                             const LockToken* fence = nullptr) = 0;
  void write_record(const RecordWrite& write, const LockToken* fence = nullptr) {
    write_records({&write, 1}, fence);
  }

  // --- migrations ---
  // Whether `script`, which nothing sets a transaction for, can run only outside one: every
  // statement is one the database refuses in a transaction block (PostgreSQL's CREATE INDEX
  // CONCURRENTLY, …). The engine asks this of a Script::plain_file alone and then runs it
  // untransacted, as Flyway runs such a file; a file with markers must say transaction:false.
  virtual bool runs_outside_transaction(const Script& script) const {
    (void)script;
    return false;
  }
  // Refuses, before anything runs, a script of `file` this store cannot run as asked: run in a
  // transaction, a statement that would end or escape it. Throws MigrationInvalidFormatError
  // naming the file, the statement, its line and column, and what to do (for a
  // Script::plain_file, which cannot hold a marker: split the file).
  virtual void check_script(std::string_view file, const Script& script, bool transactional) const {
    (void)file;
    (void)script;
    (void)transactional;
  }
  // The statements of `script` in order, as this database splits it (--verbose logs each one
  // sent; the engine never parses a script itself). Default: the whole script as one.
  virtual std::vector<std::string> statements_of(const Script& script) const {
    return {script.text};
  }
  // Runs `execution.work` and writes `execution.record` as described on Execution. A failing
  // body throws MigrationExecutionFailedError (after rolling back where transactional); a lost
  // connection throws ConnectionFailedError; a failed fence throws LockLostError.
  virtual void execute(const Execution& execution) = 0;
  // Asks the operation in flight to stop as soon as it can: a running execute() (timeouts), a
  // claim waiting for the database (a stop). Thread-safe; best effort.
  virtual void interrupt() {}
  // Whether the engine may leave the progress to a transactional execute()'s fence: true where
  // the fence writes Execution::progress and the heartbeat can still show a long migration by
  // name while it runs. When false (SQLite, whose single writer keeps the heartbeat out while a
  // migration runs), the engine renews the lease with the progress before a migration that the
  // previous commit did not announce.
  virtual bool fence_records_progress() const { return false; }

  // --- sessions a dead run left running ---
  // Where a statement outlives its killed process (PostgreSQL: outside a transaction it runs
  // until it ends), a run re-running a migration that a dead run left `applying` must first
  // see that run's sessions gone, or both would run it at once. tag_sessions() makes this
  // connection's sessions findable as run `run_id`'s, at no round trip of its own (with its
  // next transaction: a migration or an `applying` mark); end_sessions_of() finds another run's
  // that still work and ends those this connection may end. Default: nothing outlives its
  // process.
  virtual void tag_sessions(std::string_view run_id) { (void)run_id; }
  virtual LeftSessions end_sessions_of(std::string_view run_id) {
    (void)run_id;
    return {};
  }

  // The database's current time in ms since the epoch (status output, tests).
  virtual std::int64_t now_ms() = 0;

  // --- adoption and audit ---
  // Reads `tool`'s history from `table` in the order the tool applied it, never writing to it;
  // nullopt when the table (collection) does not exist. `table` is the tool's default name
  // (foreign_tool_table) or the one it was configured with: names checked by the engine
  // (is_identifier), PostgreSQL's as `schema.table` too. Throws ConfigInvalidError when the tool
  // does not run on this database, and MigrationInvalidFormatError when the table is not the
  // tool's.
  virtual std::optional<std::vector<ForeignRecord>> read_foreign_history(
      ForeignTool tool, const std::string& table) = 0;
  // What audit reports of the schema. A name taken by a view fails audit as it fails up: with
  // SchemaInvalidError, from here or already from read_changelog().
  virtual StoreProbe probe() = 0;

  // False for a store opened with Access::kRead that cannot write (SQLite read-only).
  virtual bool writable() const { return true; }
  // Opened with Access::kRead on a database that does not exist: its name (the store then
  // reads as empty and creates nothing).
  virtual std::optional<std::string> missing_database() const { return std::nullopt; }
};

// "dbmate", "golang-migrate", "flyway", "knex", "node-pg-migrate", "sql-migrate", "migrate-mongo".
std::string_view foreign_tool_name(ForeignTool tool);
// Those names, comma-separated, for a message that lists them.
std::string foreign_tool_list();
// Why `name` names no tool: echoed, with the nearest known name and the list.
std::string unknown_foreign_tool(std::string_view name);
// Its table (collection) under the default name, as listed above ForeignTool.
std::string_view foreign_tool_table(ForeignTool tool);
// Every tool `import` knows, in declaration order.
std::vector<ForeignTool> foreign_tools();
std::optional<ForeignTool> parse_foreign_tool(std::string_view name);

// A ConnectionFailedError that only means another connection holds the database's single write
// slot (SQLite's busy writer): the database is up, and another process holds its write lock —
// a run at work, a stopped one, or another tool.
inline constexpr const char* kWriterBusyKey = "writerBusy";
inline bool is_writer_busy(const Error& error) {
  return error.code() == ErrorCode::kConnectionFailed && error.context().is_object() &&
         error.context().value(kWriterBusyKey, false);
}

// A ConnectionFailedError that waiting cannot mend: the database was reached, and what it holds
// cannot be read as one (SQLite's "file is not a database", a corrupt file), or it refused the
// password given (PostgreSQL). A run reports it at once instead of waiting it out as it would a
// restart.
inline constexpr const char* kLastingKey = "lasting";
inline bool is_lasting(const Error& error) {
  return error.context().is_object() && error.context().value(kLastingKey, false);
}

// kRead creates nothing — no database file, no table — for the commands that only look.
enum class Access { kRead, kWrite };

// How a connection is used. The lock's own connection sets `statement_bound`, well below the
// renewal interval: every statement on it (and the network path under it) gives up by then, so
// a renewal stuck behind a row lock, a busy writer or a dead TCP path is one failed renewal
// instead of a hang.
//
// `durable` false lets a commit return before it is on disk (SQLite's synchronous=NORMAL,
// PostgreSQL's synchronous_commit=off): for the lock's connection, whose writes are a lease that
// a crash ends anyway. Its commits are seen by everyone at once, and the next durable commit
// (a migration's, with its fence) flushes them too. A power cut may undo the last of them: a
// renewal, or the release at the end of a run, whose row then reappears and is reclaimed as
// stale once its TTL passes, as after any holder that died. On SQLite this spares renewals
// their fsync.
//
// `connect_by`, when set, is a waiter's deadline (what is left of its budget): connecting gives
// up by then, however long the store's own connect timeout would let it hang.
struct ConnectionOptions {
  Access access = Access::kWrite;
  std::optional<std::chrono::milliseconds> statement_bound;
  bool durable = true;
  std::optional<std::chrono::steady_clock::time_point> connect_by = std::nullopt;
};

}  // namespace migronaut

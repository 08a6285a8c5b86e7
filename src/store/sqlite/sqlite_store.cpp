// The SQLite store: one sqlite3 connection to a database file (util/sqlite_uri.hpp has the URI
// forms). Opened for reading, it is read-only and a missing file reads as an empty database
// rather than being created. Every timestamp comes from SQLite's own clock, so two
// processes on one machine judge the lock by the same time source.
#include "store/sqlite/sqlite_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iterator>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "store/execution.hpp"
#include "store/rows.hpp"
#include "store/script_check.hpp"
#include "store/sqlite/adopt.hpp"
#include "store/sqlite/busy_wait.hpp"
#include "store/sqlite/script_run.hpp"
#include "store/sqlite/sqlite_errors.hpp"
#include "store/sqlite/sqlite_script.hpp"
#include "util/redact.hpp"
#include "util/sqlite_uri.hpp"

namespace migronaut {
namespace {

// Millisecond precision needs julianday(); unixepoch() only gives whole seconds on 3.40.
constexpr std::string_view kNowMs =
    "CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)";
// Long enough to outwait another process's lock statement or short migration, short enough that
// a stuck writer surfaces as an error. The lock's connection waits only its statement bound.
constexpr std::chrono::milliseconds kBusyTimeout{10'000};

std::string lock_columns() {
  std::string columns;
  for (LockField field : kAllLockFields) {
    columns += columns.empty() ? "" : ", ";
    columns += lock_column_name(field);
  }
  return columns;
}

bool is_integer_field(Field field) {
  return is_time_field(field) || field == Field::kBatch || field == Field::kDuration;
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

// What a statement runs on: the handle, and the busy wait whose interrupt its failure reports.
struct Connection {
  sqlite3* db;
  const BusyWait* busy;

  [[noreturn]] void fail(int code, std::string_view operation) const {
    throw_sqlite_error(db, busy->reported(code), operation);
  }
};

// A prepared statement with positional binding: bind() appends to the next placeholder.
class Statement {
 public:
  Statement(Connection connection, std::string_view sql, std::string_view operation)
      : connection_(connection), operation_(operation) {
    const int rc = sqlite3_prepare_v2(connection.db, sql.data(), static_cast<int>(sql.size()),
                                      &stmt_, nullptr);
    if (rc != SQLITE_OK) connection.fail(rc, operation);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(std::int64_t value) {
    check(sqlite3_bind_int64(stmt_, ++bound_, value));
    return *this;
  }
  // Text, never NULL: an empty view may have no data, which SQLite would bind as NULL.
  Statement& bind(std::string_view value) {
    check(sqlite3_bind_text(stmt_, ++bound_, value.empty() ? "" : value.data(),
                            static_cast<int>(value.size()), SQLITE_TRANSIENT));
    return *this;
  }

  // Advances one row; false when done.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    connection_.fail(rc, operation_);
  }
  void run() {
    while (step()) {
    }
  }

  bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  // An INTEGER column keeps as text or a real number only what no integer holds losslessly (a
  // hand-made 'garbage', 1e20): read as one, it would be 0 or clamped to int64's end.
  bool holds_integer(int column) const {
    return sqlite3_column_type(stmt_, column) == SQLITE_INTEGER;
  }
  std::string text(int column) const { return text_or_null(column).value_or(""); }
  // One call tells NULL from text: sqlite3_column_text returns no pointer for NULL (an empty
  // string or blob still gets one).
  std::optional<std::string> text_or_null(int column) const {
    const auto* data = sqlite3_column_text(stmt_, column);
    if (data == nullptr) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(data),
                       static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) connection_.fail(rc, operation_);
  }

  Connection connection_;
  std::string_view operation_;
  sqlite3_stmt* stmt_ = nullptr;
  int bound_ = 0;
};

void exec(Connection connection, const std::string& sql, std::string_view operation) {
  const int rc = sqlite3_exec(connection.db, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) connection.fail(rc, operation);
}

// Rolls back an open transaction; errors are ignored because the caller is already failing and
// SQLite may have rolled back by itself (interrupts, some I/O errors). A late interrupt() can
// hit the ROLLBACK itself, hence the retries.
void rollback(sqlite3* db) {
  for (int attempt = 0; attempt < 3 && sqlite3_get_autocommit(db) == 0; ++attempt) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

// The busy timeout set to `now` for as long as this lives, then back to what it was.
class BusyTimeout {
 public:
  BusyTimeout(BusyWait& busy, std::chrono::milliseconds now) : busy_(busy), usual_(busy.timeout()) {
    busy_.set_timeout(now);
  }
  ~BusyTimeout() { busy_.set_timeout(usual_); }
  BusyTimeout(const BusyTimeout&) = delete;
  BusyTimeout& operator=(const BusyTimeout&) = delete;

 private:
  BusyWait& busy_;
  std::chrono::milliseconds usual_;
};

// Commits on commit(); rolls back when left without it (an exception on the way).
class Transaction {
 public:
  explicit Transaction(Connection connection) : connection_(connection) {
    exec(connection, "BEGIN IMMEDIATE", "begin");
  }
  ~Transaction() {
    if (open_) rollback(connection_.db);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    exec(connection_, "COMMIT", "commit");
    open_ = false;
  }

 private:
  Connection connection_;
  bool open_ = true;
};

// A reader for `row`'s columns from `first` on, in `keys` order.
template <typename Key, std::size_t N>
RowReader<Key> columns_of(const Statement& row, const Key (&keys)[N], int first) {
  const auto column = [&keys, first](Key key) {
    int index = first;
    for (Key each : keys) {
      if (each == key) break;
      ++index;
    }
    return index;
  };
  return {[&row, column](Key key) -> std::optional<std::int64_t> {
            if (row.is_null(column(key))) return std::nullopt;
            // A changelog record's number is its batch, duration or times, which `down` and
            // `status` act on: refused as PostgreSQL's read refuses it. A hand-made lock row's is
            // judged unusable by the lease, which `unlock` must still be able to clear.
            if constexpr (std::is_same_v<Key, Field>) {
              if (!row.holds_integer(column(key))) {
                const std::string name = single_line(row.text(0));  // a changelog read's first
                throw ChangelogInvalidError(
                    fmt::format("sqlite: column {} of the changelog record {} holds no integer "
                                "migronaut can read (text, or a number out of range)",
                                column_name(key), name),
                    {{"column", column_name(key)}, {"name", name}});
              }
            }
            return row.integer(column(key));
          },
          [&row, column](Key key) { return row.text_or_null(column(key)); }};
}

LockInfo lock_info(const Statement& row) {
  return read_lock_row(columns_of(row, kAllLockFields, 0));
}

std::string field_list() {
  std::string columns;
  for (Field field : kAllFields) {
    columns += ", ";
    columns += column_name(field);
  }
  return columns;
}

class SqliteStore final : public Store {
 public:
  SqliteStore(DbHandle db, std::unique_ptr<BusyWait> busy, const Config& config, bool writable,
              std::optional<std::string> missing_file)
      : db_(std::move(db)),
        busy_(std::move(busy)),
        writable_(writable),
        missing_file_(std::move(missing_file)),
        lock_table_name_(config.lock_table),
        lock_table_(quote_identifier(config.lock_table)),
        changelog_table_name_(config.migrations_table),
        changelog_table_(quote_identifier(config.migrations_table)) {}

  std::string_view kind() const override { return "sqlite"; }

  void ensure_schema() override {
    busy_->begin_operation();
    if (schema_ready_) return;
    // Read first. A connection whose schema cache predates the tables (another process created
    // them since it last looked) compiles CREATE … IF NOT EXISTS as a real write, which waits
    // for the write slot: a waiter booting beside a long transactional migration would sit out
    // the whole busy timeout here, silent, instead of polling the lock. The read refreshes the
    // cache; nothing is written when everything is there.
    if (const ExistingTables found = existing_tables();
        found.changelog && found.lock && found.status_index) {
      schema_ready_ = true;
      return;
    }
    refuse_misshapen_tables();
    std::string sql = "CREATE TABLE IF NOT EXISTS " + lock_table_ +
                      " (id TEXT PRIMARY KEY, locked_at INTEGER NOT NULL,"
                      " ttl_ms INTEGER NOT NULL, owner TEXT NOT NULL, nonce TEXT NOT NULL,"
                      " pid INTEGER NOT NULL DEFAULT 0, host TEXT NOT NULL DEFAULT '',"
                      " executed_by TEXT NOT NULL DEFAULT '', migration TEXT NOT NULL DEFAULT '',"
                      " step INTEGER NOT NULL DEFAULT 0, total INTEGER NOT NULL DEFAULT 0);";
    sql += "CREATE TABLE IF NOT EXISTS " + changelog_table_ + " (name TEXT PRIMARY KEY";
    for (Field field : kAllFields) {
      sql += ", ";
      sql += column_name(field);
      sql += is_integer_field(field) ? " INTEGER" : " TEXT";
    }
    sql += ");";
    sql += "CREATE INDEX IF NOT EXISTS " + quote_identifier(status_index()) + " ON " +
           changelog_table_ + " (status, batch);";
    exec(connection(), sql, "ensure_schema");
    schema_ready_ = true;
  }

  AcquireResult try_acquire(const LockClaim& claim) override {
    busy_->begin_operation();
    if (claim.fail_fast) {
      // SQLite has one writer: a holder's transactional migration keeps this claim's write
      // waiting out the busy timeout. A claimant that will not wait tries without waiting, and a
      // holder on record is then its answer; with none, another's short write is in the way,
      // which is waited for as usual.
      std::optional<AcquireResult> outcome;
      {
        const BusyTimeout no_wait(*busy_, std::chrono::milliseconds(0));
        try {
          outcome = acquire_once(claim);
        } catch (const ConnectionFailedError& e) {
          outcome = refusal_while_writing(e);
        }
      }
      if (outcome) return *outcome;
    }
    try {
      return acquire_once(claim);
    } catch (const ConnectionFailedError& e) {
      // Another connection kept the database busy past the timeout (a long transactional
      // migration, a stopped holder, another program): with no holder on record, the busy error.
      if (std::optional<AcquireResult> refused = refusal_while_writing(e)) return *refused;
      throw;
    }
  }

  bool renew(const LockToken& token, const LockProgress& progress) override {
    busy_->begin_operation();
    return lock_table_exists() && stamp_lock(token, &progress);
  }

  void release(const LockToken& token) override {
    busy_->begin_operation();
    if (!lock_table_exists()) return;
    Statement remove(connection(),
                     "DELETE FROM " + lock_table_ + " WHERE id = ? AND owner = ? AND nonce = ?",
                     "release lock");
    remove.bind(kLockId).bind(token.owner).bind(token.nonce).run();
  }

  std::optional<LockInfo> read_lock() override {
    busy_->begin_operation();
    if (!lock_table_exists()) return std::nullopt;
    return select_lock();
  }

  std::optional<LockInfo> force_release(const ReleaseMatch& match) override {
    busy_->begin_operation();
    if (!lock_table_exists()) return std::nullopt;
    // The stamp compared as it is read (sqlite3_column_int64), a hand-written text or real too.
    Statement remove(connection(),
                     "DELETE FROM " + lock_table_ +
                         " WHERE id = ? AND (? = '' OR owner = ?) AND "
                         "(? = 0 OR CAST(locked_at AS INTEGER) = ?) "
                         "RETURNING " +
                         lock_columns(),
                     "force release lock");
    remove.bind(kLockId).bind(match.owner).bind(match.owner);
    remove.bind(std::int64_t{match.locked_at_ms.has_value()}).bind(match.locked_at_ms.value_or(0));
    std::optional<LockInfo> holder;
    if (remove.step()) holder = lock_info(remove);
    remove.run();
    return holder;
  }

  std::vector<ChangelogRecord> read_changelog() override {
    busy_->begin_operation();
    std::vector<ChangelogRecord> records;
    // The usual case, the changelog there as a table, is told by the schema SQLite loads anyway;
    // anything else (no table, a view in its place, a stale schema) is looked up. Whether the
    // rest of the schema is there is ensure_schema()'s to find out (the lock table, the index).
    if (!schema_ready_ && !holds_table(changelog_table_name_) && !existing_tables().changelog) {
      return records;
    }
    // In the table's own order, as written: ORDER BY would walk the name index and look each row
    // up in the table again, while rows written in run order are in name order already for the
    // usual timestamped names (sort_by_name then costs one pass). The last column, the number of
    // rows (counted once, on the smallest index), makes room for them all up front, which spares
    // the vector's growth: each step moves every record into memory not touched yet.
    Statement select = reading([&] {
      return Statement(connection(),
                       "SELECT name" + field_list() + ", (SELECT count(*) FROM " +
                           changelog_table_ + ") FROM " + changelog_table_,
                       "read changelog");
    });
    const RowReader<Field> row = columns_of(select, kAllFields, 1);
    const int rows_column = static_cast<int>(std::size(kAllFields)) + 1;
    while (select.step()) {
      if (records.empty()) records.reserve(static_cast<std::size_t>(select.integer(rows_column)));
      records.push_back(read_record(select.text(0), row));
    }
    sort_by_name(records);
    return records;
  }

  void write_records(std::span<const RecordWrite> writes,
                     const LockToken* fence = nullptr) override {
    busy_->begin_operation();
    if (fence == nullptr && writes.size() == 1) return upsert_record(writes.front());
    Transaction transaction(connection());
    for (const RecordWrite& write : writes) upsert_record(write);
    if (fence != nullptr) require_lock(*fence, nullptr);
    transaction.commit();
  }

  void upsert_record(const RecordWrite& write) {
    std::string columns = "name";
    std::string values = "?";
    std::vector<const FieldValue*> bound;
    auto add_value = [&](Field field, const FieldValue& value) {
      columns += ", ";
      columns += column_name(field);
      if (std::holds_alternative<ServerNow>(value)) {
        values += ", " + std::string(kNowMs);
      } else {
        values += ", ?";
        bound.push_back(&value);
      }
    };
    for (const auto& [field, value] : write.set) add_value(field, value);
    for (const auto& [field, value] : write.set_if_absent) add_value(field, value);

    std::string updates;
    auto add_update = [&](std::string assignment) {
      if (!updates.empty()) updates += ", ";
      updates += assignment;
    };
    for (const auto& [field, value] : write.set) {
      const std::string column(column_name(field));
      add_update(column + " = excluded." + column);
    }
    for (const auto& [field, value] : write.set_if_absent) {
      const std::string column(column_name(field));
      add_update(column + " = COALESCE(" + changelog_table_ + "." + column + ", excluded." +
                 column + ")");
    }
    for (Field field : write.unset) add_update(std::string(column_name(field)) + " = NULL");

    std::string sql = "INSERT INTO " + changelog_table_ + " (" + columns + ") VALUES (" + values +
                      ") ON CONFLICT(name) DO ";
    if (updates.empty()) {
      sql += "NOTHING";
    } else {
      sql += "UPDATE SET " + updates;
      if (write.skip_if_applied) sql += " WHERE " + changelog_table_ + ".status IS NOT 'applied'";
    }
    Statement upsert(connection(), sql, "write changelog record");
    upsert.bind(write.name);
    for (const FieldValue* value : bound) {
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::string>) {
              upsert.bind(v);
            } else {
              // ServerNow is inlined above; WorkElapsed is resolved by execute().
              throw std::logic_error("changelog write with an unresolved WorkElapsed value");
            }
          },
          *value);
    }
    upsert.run();
  }

  bool runs_outside_transaction(const Script& script) const override {
    return sqlite_runs_only_outside_transaction(script.text);
  }

  void check_script(std::string_view file, const Script& script,
                    bool transactional) const override {
    if (!transactional) return;
    if (const std::optional<SqliteConflict> conflict = sqlite_transaction_conflict(script.text)) {
      refuse_statement(file, script, conflict->offset, conflict->statement, conflict->rule,
                       conflict->reason);
    }
  }

  std::vector<std::string> statements_of(const Script& script) const override {
    const std::vector<std::string_view> statements = sqlite_statements(script.text);
    return {statements.begin(), statements.end()};
  }

  void execute(const Execution& execution) override {
    busy_->begin_operation();
    const auto work = [&] { run_work(execution); };
    const auto write = [&](const RecordWrite& record) { write_record(record, execution.fence); };
    if (!execution.transactional) return execute_untransacted(execution, work, write);
    Transaction transaction(connection());
    const std::int64_t elapsed_ms = timed_ms(work);
    if (sqlite3_get_autocommit(db_.get()) != 0) {
      throw MigrationExecutionFailedError(
          "the migration ended the transaction it runs in (COMMIT or ROLLBACK in a "
          "transactional migration)",
          {{"error", "transaction ended by the migration"}});
    }
    if (execution.record != nullptr) upsert_record(resolve_elapsed(*execution.record, elapsed_ms));
    if (execution.fence != nullptr) require_lock(*execution.fence, execution.progress);
    transaction.commit();
  }

  // Any statement in flight, its busy wait included (see BusyWait); every operation above
  // begins by forgetting an interrupt meant for an earlier one.
  void interrupt() override { busy_->interrupt(); }
  // The fence writes the progress too, but only at the commit: a transaction holds SQLite's only
  // write slot, so no renewal could show a long migration by name while it runs. The engine
  // renews before a migration that the previous commit did not announce instead.
  bool fence_records_progress() const override { return false; }

  bool writable() const override { return writable_; }
  std::optional<std::string> missing_database() const override { return missing_file_; }

  std::int64_t now_ms() override {
    busy_->begin_operation();
    Statement select(connection(), "SELECT " + std::string(kNowMs), "read clock");
    select.step();
    return select.integer(0);
  }

 private:
  // Runs the script or the C++ body; any failure becomes MigrationExecutionFailedError except
  // migronaut's own errors, which keep their type.
  void run_work(const Execution& execution) {
    if (const auto* script = std::get_if<Script>(execution.work)) {
      run_sqlite_script(db_.get(), *script, execution.transactional, execution.still_held);
      return;
    }
    if (execution.context != nullptr) execution.context->handle.sqlite = db_.get();
    run_body(execution);
  }

  std::optional<std::vector<ForeignRecord>> read_foreign_history(
      ForeignTool tool, const std::string& table) override {
    busy_->begin_operation();
    return read_sqlite_history(db_.get(), tool, table);
  }

  StoreProbe probe() override {
    busy_->begin_operation();
    return probe_sqlite(db_.get(), changelog_table_name_, lock_table_name_, status_index());
  }

  std::string status_index() const { return changelog_table_name_ + "_status_batch"; }

  // The fence, inside the write transaction: nobody can reclaim while it holds the write slot.
  // It renews the lease too, with the progress when given — the heartbeat could not write while
  // this transaction held the slot, and nobody else could either.
  void require_lock(const LockToken& token, const LockProgress* progress) {
    if (!stamp_lock(token, progress)) {
      throw LockLostError("the lock no longer belongs to this run; the migration was rolled back",
                          {{"runId", token.owner}});
    }
  }

  // Re-stamps lockedAt (and the progress, when given) on the record while it is ours; false
  // when it no longer is.
  bool stamp_lock(const LockToken& token, const LockProgress* progress) {
    Statement update(connection(),
                     "UPDATE " + lock_table_ + " SET locked_at = " + std::string(kNowMs) +
                         (progress ? ", migration = ?, step = ?, total = ?" : "") +
                         " WHERE id = ? AND owner = ? AND nonce = ?",
                     "renew lock");
    if (progress) update.bind(progress->migration).bind(progress->step).bind(progress->total);
    update.bind(kLockId).bind(token.owner).bind(token.nonce).run();
    return sqlite3_changes(db_.get()) == 1;
  }

  std::optional<LockInfo> select_lock() {
    Statement select = reading([&] {
      return Statement(connection(),
                       "SELECT " + lock_columns() + " FROM " + lock_table_ + " WHERE id = ?",
                       "read lock");
    });
    select.bind(kLockId);
    if (!select.step()) return std::nullopt;
    return lock_info(select);
  }

  // Prepares a read of migronaut's tables: when it fails, a table of their name that is another's
  // is the error to report, not the column SQLite missed.
  template <typename Prepare>
  Statement reading(Prepare prepare) {
    try {
      return prepare();
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kUnclassified) refuse_misshapen_tables();
      throw;
    }
  }

  // Refuses a table under migronaut's names that lacks one of its columns (the first it lacks).
  void refuse_misshapen_tables() {
    for (const auto& [table, columns] :
         {std::pair{&lock_table_name_, lock_table_columns()},
          std::pair{&changelog_table_name_, changelog_table_columns()}}) {
      Statement select(connection(), "SELECT name FROM pragma_table_info(?)", "inspect schema");
      select.bind(*table);
      std::set<std::string> found;
      while (select.step()) found.insert(select.text(0));
      if (found.empty()) continue;  // no such table (a view is existing_tables()'s to refuse)
      for (std::string_view column : columns) {
        if (found.contains(std::string(column))) continue;
        throw SchemaInvalidError(
            "sqlite: " + *table + " is a table of another shape (no column " + std::string(column) +
                "); migronaut keeps its changelog and lock in tables of its own: rename it, or "
                "point migrationsCollection / lockCollection elsewhere",
            {{"table", *table}, {"missingColumn", column}});
      }
    }
  }

  struct ExistingTables {
    bool changelog = false;
    bool lock = false;
    bool status_index = false;
  };
  // Which of the two tables (and the changelog's index) exist. Something else under a table's
  // name (a view) is refused: the changelog would read as absent and every migration would run
  // again.
  ExistingTables existing_tables() {
    Statement select(connection(), "SELECT name, type FROM sqlite_master WHERE name IN (?, ?, ?)",
                     "inspect schema");
    const std::string index = status_index();
    select.bind(changelog_table_name_).bind(lock_table_name_).bind(index);
    ExistingTables found;
    while (select.step()) {
      const std::string name = select.text(0);
      const std::string type = select.text(1);
      if (name == index) {
        found.status_index = type == "index";
        continue;
      }
      if (type != "table") {
        throw SchemaInvalidError(
            "sqlite: " + name + " is a " + type +
                ", not the table migronaut keeps; rename it, or point migrationsCollection / "
                "lockCollection elsewhere",
            {{"table", name}, {"type", type}});
      }
      if (name == changelog_table_name_) found.changelog = true;
      if (name == lock_table_name_) found.lock = true;
    }
    return found;
  }

  // Whether the schema this connection holds (loaded on first use) has a table, not a view,
  // named `name`: no statement to compile and no sqlite_master to scan, as existing_tables() has.
  bool holds_table(const std::string& name) {
    return sqlite3_table_column_metadata(db_.get(), "main", name.c_str(), nullptr, nullptr, nullptr,
                                         nullptr, nullptr, nullptr) == SQLITE_OK;
  }

  // Read-only lock commands on a database that never had a lock read as "nothing held" and
  // create nothing.
  bool lock_table_exists() {
    if (!schema_ready_ && !lock_table_seen_) lock_table_seen_ = existing_tables().lock;
    return schema_ready_ || lock_table_seen_;
  }

  Connection connection() const { return {db_.get(), busy_.get()}; }

  DbHandle db_;
  // One attempt at the lock, in one write transaction: taken when free or stale, else refused
  // with the holder.
  AcquireResult acquire_once(const LockClaim& claim) {
    Transaction transaction(connection());
    std::optional<LockInfo> previous = select_lock();
    Statement upsert(
        connection(),
        "INSERT INTO " + lock_table_ +
            " (id, locked_at, ttl_ms, owner, nonce, pid, host, executed_by, migration, step,"
            " total) VALUES (?, " +
            std::string(kNowMs) +
            ", ?, ?, ?, ?, ?, ?, '', 0, 0) ON CONFLICT(id) DO UPDATE SET"
            " locked_at = excluded.locked_at, ttl_ms = excluded.ttl_ms,"
            " owner = excluded.owner, nonce = excluded.nonce, pid = excluded.pid,"
            " host = excluded.host, executed_by = excluded.executed_by, migration = '',"
            " step = 0, total = 0 WHERE " +
            lock_table_ + ".locked_at < excluded.locked_at - max(" + lock_table_ +
            ".ttl_ms, excluded.ttl_ms)",
        "acquire lock");
    upsert.bind(kLockId).bind(claim.ttl_ms).bind(claim.owner).bind(claim.nonce);
    upsert.bind(claim.pid).bind(claim.host).bind(claim.executed_by).run();
    if (sqlite3_changes(db_.get()) == 1) {
      transaction.commit();
      return {.acquired = true, .holder = std::nullopt, .reclaimed = std::move(previous)};
    }
    AcquireResult refused{.acquired = false, .holder = select_lock(), .reclaimed = std::nullopt};
    transaction.commit();
    return refused;
  }

  // A claim another connection's write kept out (`busy`): refused, when a holder is on record,
  // as one held while the write slot is taken. WAL still lets us read the lock row.
  std::optional<AcquireResult> refusal_while_writing(const ConnectionFailedError& busy) {
    if (!is_writer_busy(busy)) return std::nullopt;
    std::optional<LockInfo> holder = select_lock();
    if (!holder) return std::nullopt;
    return AcquireResult{.acquired = false,
                         .holder = std::move(holder),
                         .reclaimed = std::nullopt,
                         .writer_busy = writer_busy_words(db_.get())};
  }

  // How a statement waits for another connection's write; declared after db_, it goes first.
  std::unique_ptr<BusyWait> busy_;
  bool writable_;
  std::optional<std::string> missing_file_;
  std::string lock_table_name_;
  std::string lock_table_;
  std::string changelog_table_name_;
  std::string changelog_table_;
  bool schema_ready_ = false;  // both tables known to exist
  bool lock_table_seen_ = false;
};

// Switching a database to WAL reads it, then takes its write lock. SQLite answers a connection
// that must wait for that upgrade with SQLITE_BUSY at once, without the busy handler (waiting
// there could deadlock): copies booting together on a new database meet exactly this. A failed
// attempt has let go of its read lock, so the writer it met can finish; idempotent statements are
// run again until they pass or the busy timeout is spent, each attempt's own waits included.
int exec_retrying_busy(sqlite3* db, const std::string& sql, BusyWait& busy) {
  using std::chrono::milliseconds;
  const milliseconds timeout = busy.timeout();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    const auto left = std::chrono::ceil<milliseconds>(deadline - std::chrono::steady_clock::now());
    if ((rc & 0xff) != SQLITE_BUSY || left <= milliseconds(0)) {
      busy.set_timeout(timeout);
      return rc;
    }
    busy.set_timeout(left);
    sqlite3_sleep(1);
  }
}

// Why `path` cannot name the database file, or "". An in-memory database is gone when the run
// ends; a URI filename (file:…), which SQLite opens as a URI, would name one file to `up` and
// another to a read-only command's check; and query parameters are not read, so `?mode=ro` would
// become part of a new file's name.
std::string unusable_database_path(const std::string& path) {
  if (path == ":memory:" || path.starts_with("file:")) {
    return "is not a database file: name one, e.g. sqlite:app.db";
  }
  if (path.find('?') != std::string::npos) {
    return "has a '?': sqlite: takes a file path, not query parameters";
  }
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return "is a directory, not a database file";
  return "";
}

// Why SQLite could not open (or create) `path`, said by the file system: SQLite's own answer is
// "unable to open database file" whatever the cause, and its errno is that of a read-only retry.
// A folder (or file) this user may not write is PERMISSION_DENIED, which no wait mends. A folder
// that does not exist is named, and stays a connection failure: `up --wait` waits for a volume
// mounted late.
[[noreturn]] void throw_open_failure(const std::string& path, bool read_only,
                                     const std::string& error) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::absolute(path).parent_path();
  nlohmann::json context = {{"path", path}, {"error", error}};
  const std::string opening = "cannot open sqlite database '" + path + "': " + error;
  std::error_code ignored;
  if (!fs::is_directory(folder, ignored)) {
    throw ConnectionFailedError(opening + " (its folder " + folder.string() + " does not exist)",
                                context);
  }
  const bool file = fs::exists(path, ignored);
  const fs::path needs = file ? fs::path(path) : folder;
  const int mode = file ? (read_only ? R_OK : R_OK | W_OK) : (W_OK | X_OK);
  if (faccessat(AT_FDCWD, needs.c_str(), mode, AT_EACCESS) != 0) {
    throw PermissionDeniedError(opening + " (" + (file ? "the file " : "its folder ") +
                                    needs.string() + " is not " +
                                    (read_only ? "readable" : "writable") + " by this user)",
                                context);
  }
  throw ConnectionFailedError(opening, context);
}

}  // namespace

std::unique_ptr<Store> open_sqlite_store(const Config& config, const ConnectionOptions& options) {
  const std::string path = sqlite_file(config.uri);
  if (path.empty()) {
    throw ConfigInvalidError("uri: sqlite: needs a database file path, e.g. sqlite:app.db",
                             {{"key", "uri"}});
  }
  if (const std::string problem = unusable_database_path(path); !problem.empty()) {
    throw ConfigInvalidError("uri: sqlite:" + path + " " + problem,
                             {{"key", "uri"}, {"value", path}});
  }
  const bool read_only = options.access == Access::kRead;
  std::optional<std::string> missing;
  std::error_code error;
  if (read_only && !std::filesystem::exists(path, error)) {
    // Where `up` could not create it either (no folder), said as `up` says it.
    if (!std::filesystem::is_directory(std::filesystem::absolute(path, error).parent_path(),
                                       error)) {
      throw_open_failure(path, read_only, "unable to open database file");
    }
    missing = path;  // an empty in-memory database stands in for it, and nothing is created
  }
  // NOMUTEX: a Store is used by one thread at a time (store.hpp), so SQLite's per-call
  // connection mutex, taken by every call down to each column read, buys nothing;
  // sqlite3_interrupt() stays safe from another thread.
  const int flags = SQLITE_OPEN_NOMUTEX |
                    (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(missing ? ":memory:" : path.c_str(), &raw, flags, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK) {
    throw_open_failure(path, read_only, raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
  }
  auto busy = std::make_unique<BusyWait>(raw, options.statement_bound.value_or(kBusyTimeout));
  if (!read_only) {
    // WAL lets readers (status, waiters reading the holder) work while another process writes.
    const std::string pragmas = std::string("PRAGMA journal_mode=WAL") +
                                (options.durable ? "" : "; PRAGMA synchronous=NORMAL");
    const int rc = exec_retrying_busy(raw, pragmas, *busy);
    if (rc != SQLITE_OK) throw_sqlite_error(raw, rc, "open " + path);
  }
  return std::make_unique<SqliteStore>(std::move(db), std::move(busy), config, !read_only,
                                       std::move(missing));
}

}  // namespace migronaut

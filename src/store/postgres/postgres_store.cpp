// The PostgreSQL store (libpq). Lock statements are single statements judged by
// clock_timestamp(). A transactional script migration travels as ONE simple-query string —
// BEGIN, the script, the changelog upsert, the fence (which also writes the run's progress to
// the lock record), COMMIT — so applying it costs one round trip and its record commits only
// with its body and only while the lock is ours. The upsert and the fence are statements the
// session prepared (session_statements.hpp), where the session keeps them. The script may change
// its session's user, role, search_path or timeouts (SET LOCAL, set_config, a plain SET that would
// outlive it): the bookkeeping after it first puts them back as the connection opened them, for
// the rest of the session (kOwnSession).
#include "store/postgres/postgres_store.hpp"

#include <fmt/format.h>
#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "migronaut/errors.hpp"
#include "sql/pg/client_copy.hpp"
#include "sql/pg/pg_parser.hpp"
#include "sql/pg/pg_script.hpp"
#include "sql/pg/session_settings.hpp"
#include "sql/pg/transaction_rules.hpp"
#include "sql/text_position.hpp"
#include "store/execution.hpp"
#include "store/postgres/adopt.hpp"
#include "store/postgres/blockers.hpp"
#include "store/postgres/bounded_exec.hpp"
#include "store/postgres/left_behind.hpp"
#include "store/postgres/run_sessions.hpp"
#include "store/postgres/search_path_uri.hpp"
#include "store/postgres/session_statements.hpp"
#include "store/postgres/unterminated_text.hpp"
#include "store/rows.hpp"
#include "store/script_check.hpp"
#include "util/ids.hpp"
#include "util/redact.hpp"
#include "util/scoped_flag.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

// What the fencing check fails with (fence_sql()): the marker, cast to int, is
// invalid_text_representation naming it. It runs after the migration's own statements, so
// theirs cannot be mistaken for it.
constexpr std::string_view kFenceMarker = "migronaut: the lock no longer names this run";
constexpr std::string_view kInvalidTextRepresentation = "22P02";
constexpr std::string_view kUndefinedTable = "42P01";
constexpr std::string_view kUndefinedColumn = "42703";
// CREATE with no schema of the search_path there: "no schema has been selected to create in".
constexpr std::string_view kInvalidSchemaName = "3F000";
// libpq's default is to wait forever for an unreachable host.
constexpr std::chrono::seconds kDefaultConnectTimeout{10};
// libpq reads a connect_timeout of 1 as 2.
constexpr std::chrono::seconds kLeastConnectTimeout{2};
constexpr std::string_view kLockNotAvailable = "55P03";
constexpr std::string_view kInsufficientPrivilege = "42501";
// Raised by ensure_schema() when a table's name is taken by a view or the like.
constexpr std::string_view kForeignRelationSqlstate = "MN002";
constexpr std::string_view kForeignRelationAdvice =
    "; migronaut keeps its changelog and lock in tables of its own: rename it, or point "
    "migrationsCollection / lockCollection elsewhere";
// How often a migration's backend looks for a vanished client (see begin_sql()).
constexpr int kClientCheckIntervalMs = 1000;
// wait_for_release() polls the socket in slices this long so it honours its stop token.
constexpr auto kWaitSlice = std::chrono::milliseconds(100);
constexpr std::size_t kMaxIdentifierLength = 63;
// Runs first in the bookkeeping of a transaction that may follow a migration's statements: the
// role, search_path and timeouts the connection opened with (its URI's options, the role's and
// database's defaults), whatever the migration set, so migronaut's unqualified tables are found
// and written with the connection's own rights. Not LOCAL: it commits with the migration, so the
// next migration and the next call start as the connection opened (as with Flyway) — without the
// `SET lock_timeout` a transaction:false script sets for itself, which would otherwise bound the
// migrations after it; a rollback undoes it with the migration's own settings. Behind a
// transaction pooler, DEFAULT is the server session's own state, harmless to its other clients.
constexpr std::string_view kOwnSession =
    "SET SESSION AUTHORIZATION DEFAULT;\nSET role TO DEFAULT;\nSET search_path TO DEFAULT;\n"
    "RESET statement_timeout;\nRESET lock_timeout;\nRESET default_transaction_read_only;\n";
// What stands for migronaut's own SQL cut out of a server's message.
constexpr std::string_view kOwnSqlCut = "…";

// SCHEMA_INVALID naming what holds migronaut's table names ("_migronaut_locks is a view").
SchemaInvalidError foreign_relations_error(std::string_view found) {
  return SchemaInvalidError("postgres: " + std::string(found) +
                            std::string(kForeignRelationAdvice));
}

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// A derived identifier (index, channel) that stays within PostgreSQL's 63-byte limit.
std::string derived_name(std::string_view base, std::string_view suffix) {
  return std::string(base.substr(0, kMaxIdentifierLength - suffix.size())) + std::string(suffix);
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out;
}

std::string trimmed(std::string_view text) { return std::string(trim(text)); }

std::string sqlstate_of(const PGresult* result) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  return state ? state : "";
}

bool succeeded(const PGresult* result) {
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY;
}

// Result cells, NULL read as the type's empty value; in text or binary format (a text column's
// binary form is its bytes).
std::string text_at(const PGresult* result, int row, int column) {
  if (PQgetisnull(result, row, column)) return "";
  return {PQgetvalue(result, row, column),
          static_cast<std::size_t>(PQgetlength(result, row, column))};
}

// The type OIDs a binary integer cell may have (pg_type.dat), and where PostgreSQL's binary
// timestamps count their microseconds from: 2000-01-01, 946,684,800 s after the Unix epoch.
constexpr Oid kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kTimestampOid = 1114,
              kTimestampTzOid = 1184;
constexpr std::int64_t kPostgresEpochUs = 946'684'800'000'000;

// A big-endian two's-complement integer of `length` bytes (2, 4 or 8).
std::int64_t big_endian(const char* bytes, int length) {
  std::uint64_t value = 0;
  for (int i = 0; i < length; ++i) value = value << 8 | static_cast<unsigned char>(bytes[i]);
  const int unused = 64 - 8 * length;
  return static_cast<std::int64_t>(value << unused) >> unused;
}

// A binary cell: an integer as it is, a timestamp as ms since the Unix epoch, rounded half away
// from zero as `(extract(epoch from t) * 1000)::bigint` rounds.
std::int64_t binary_int(const PGresult* result, int row, int column) {
  const Oid type = PQftype(result, column);
  const int length = PQgetlength(result, row, column);
  const char* bytes = PQgetvalue(result, row, column);
  const bool integer = (type == kInt2Oid && length == 2) || (type == kInt4Oid && length == 4) ||
                       (type == kInt8Oid && length == 8);
  if (integer) return big_endian(bytes, length);
  const bool time = (type == kTimestampTzOid || type == kTimestampOid) && length == 8;
  const std::int64_t raw = time ? big_endian(bytes, 8) : 0;
  // PostgreSQL's ±infinity are int64's extremes: no count of milliseconds stands for them.
  const bool finite = raw != std::numeric_limits<std::int64_t>::min() &&
                      raw != std::numeric_limits<std::int64_t>::max();
  std::int64_t us = 0;
  if (time && finite && !__builtin_add_overflow(raw, kPostgresEpochUs, &us)) {
    const std::int64_t ms = us / 1000, rest = us % 1000;
    return ms + (rest >= 500) - (rest <= -500);
  }
  if (time) {
    throw ChangelogInvalidError(
        fmt::format("postgres: column {} holds a time out of range (infinity?)",
                    PQfname(result, column)),
        {{"column", PQfname(result, column)}});
  }
  throw ChangelogInvalidError(
      fmt::format("postgres: column {} holds no integer or time migronaut can read (type {})",
                  PQfname(result, column), type),
      {{"column", PQfname(result, column)}, {"type", type}});
}

std::optional<std::int64_t> optional_int_at(const PGresult* result, int row, int column) {
  if (PQgetisnull(result, row, column)) return std::nullopt;
  if (PQfformat(result, column) == 1) return binary_int(result, row, column);
  const char* text = PQgetvalue(result, row, column);
  std::int64_t value = 0;
  std::from_chars(text, text + PQgetlength(result, row, column), value);
  return value;
}

std::int64_t int_at(const PGresult* result, int row, int column) {
  return optional_int_at(result, row, column).value_or(0);
}

std::string epoch_ms(std::string_view column) {
  return "(extract(epoch from " + std::string(column) + ") * 1000)::bigint";
}

// The result format libpq asks for (PQexecParams' resultFormat).
enum class Format { kText = 0, kBinary = 1 };

// Values spliced into SQL: as $n parameters for the extended protocol, or as escaped literals
// for the simple-query string that commits a migration in one round trip.
class SqlValues {
 public:
  explicit SqlValues(PGconn* literal_conn = nullptr) : literal_conn_(literal_conn) {}

  std::string add(std::string_view value) {
    if (literal_conn_ == nullptr) {
      params_.emplace_back(value);
      return "$" + std::to_string(params_.size());
    }
    std::unique_ptr<char, decltype(&PQfreemem)> literal(
        PQescapeLiteral(literal_conn_, value.data(), value.size()), &PQfreemem);
    if (!literal) {
      throw MigrationExecutionFailedError("postgres: cannot quote a value: " +
                                          trimmed(PQerrorMessage(literal_conn_)));
    }
    return literal.get();
  }

  const std::vector<std::string>& params() const { return params_; }

 private:
  PGconn* literal_conn_;
  std::vector<std::string> params_;
};

std::string render_value(Field field, const FieldValue& value, SqlValues& values) {
  if (std::holds_alternative<ServerNow>(value)) return "clock_timestamp()";
  // Inside a migration's transaction the work began with it: the server measures the duration,
  // so the record can travel in the same round trip as the work.
  if (std::holds_alternative<WorkElapsed>(value)) {
    return "(extract(epoch FROM clock_timestamp() - transaction_timestamp()) * 1000)::bigint";
  }
  if (const auto* number = std::get_if<std::int64_t>(&value)) {
    const std::string param = values.add(std::to_string(*number));
    return is_time_field(field) ? "to_timestamp(" + param + "::bigint / 1000.0)" : param;
  }
  return values.add(std::get<std::string>(value));
}

const std::string kLockColumns = [] {
  std::string columns;
  for (LockField field : kAllLockFields) {
    const std::string column(lock_column_name(field));
    columns +=
        (columns.empty() ? "" : ", ") + (field == LockField::kLockedAt ? epoch_ms(column) : column);
  }
  return columns;
}();

// A reader for row `row` of `result`, its columns from `first` on in `keys` order.
template <typename Key, std::size_t N>
RowReader<Key> columns_of(const PGresult* result, int row, const Key (&keys)[N], int first) {
  const auto column = [&keys, first](Key key) {
    int index = first;
    for (Key each : keys) {
      if (each == key) break;
      ++index;
    }
    return index;
  };
  return {[=](Key key) { return optional_int_at(result, row, column(key)); },
          [=](Key key) -> std::optional<std::string> {
            if (PQgetisnull(result, row, column(key))) return std::nullopt;
            return text_at(result, row, column(key));
          }};
}

LockInfo lock_info_at(const PGresult* result, int row) {
  return read_lock_row(columns_of(result, row, kAllLockFields, 0));
}

std::string changelog_column_type(Field field) {
  if (is_time_field(field)) return "timestamptz";
  if (field == Field::kBatch || field == Field::kDuration) return "bigint";
  return "text";
}

// Read in binary format: times and integers as they are (binary_int()), the rest as text, whose
// binary form is its bytes (a column retyped by hand, to uuid say, still reads as its text).
std::string changelog_columns() {
  std::string columns = "name::text";
  for (Field field : kAllFields) {
    const bool text = changelog_column_type(field) == "text";
    columns += ", " + std::string(column_name(field)) + (text ? "::text" : "");
  }
  return columns;
}

// Which part of a migration's script a query carried: `length` bytes from byte `offset`,
// after `prefix` characters of migronaut's own (BEGIN; SET LOCAL …) and before `after`, its
// own again (the bookkeeping).
struct SentPiece {
  const Script* script = nullptr;
  std::size_t offset = 0;
  std::size_t length = 0;
  std::size_t prefix = 0;
  std::string_view after = {};
  // The script's statement that failed, when known (the one the query carried, or the one the
  // server's answers point at), and its number in the script, from 1.
  const PgStatement* statement = nullptr;
  std::size_t number = 0;
  // Whether the statements before it ran in the same transaction, rolled back with it.
  bool transactional = true;
  // Outside migronaut's transaction, one the script opened itself, rolled back with it.
  const OwnTransaction* own = nullptr;
};

// How much of migronaut's text after a script a message must quote to be cut there: enough to
// be its own, not so much that a message quoting it only in part (a server cutting a long
// token) keeps it.
constexpr std::size_t kOwnTextMark = 32;

// A server's `message` without migronaut's text after the script (`after`): an unterminated
// quote or comment makes the server quote the query from inside the script to its end, the
// bookkeeping and the lock's nonce included. Remembered secrets (the nonce) are masked too.
std::string without_own_text(std::string message, std::string_view after) {
  if (!after.empty()) {
    const std::size_t own = message.find(after.substr(0, kOwnTextMark));
    if (own != std::string::npos) message = message.substr(0, own) + std::string(kOwnSqlCut);
  }
  return redact(message);
}

// The server's message for a failed migration: its primary message, detail, hint and context,
// without libpq's excerpt of the query ("LINE 3: …"), which may show migronaut's own statements.
std::string migration_message(const PGresult* result, std::string_view after) {
  std::string text;
  const std::pair<int, const char*> fields[] = {{PG_DIAG_MESSAGE_PRIMARY, ""},
                                                {PG_DIAG_MESSAGE_DETAIL, "\nDETAIL:  "},
                                                {PG_DIAG_MESSAGE_HINT, "\nHINT:  "},
                                                {PG_DIAG_CONTEXT, "\nCONTEXT:  "}};
  for (const auto& [field, label] : fields) {
    if (const char* value = PQresultErrorField(result, field)) text += label + std::string(value);
  }
  return without_own_text(std::move(text), after);
}

// The server's error position (1-based, in characters of the query) as a byte offset of the
// script; none when the error has no position or it lies outside the script (in migronaut's own
// statements).
std::optional<std::size_t> error_offset(const PGresult* result, const SentPiece& piece) {
  const char* position = PQresultErrorField(result, PG_DIAG_STATEMENT_POSITION);
  if (position == nullptr || piece.script == nullptr) return std::nullopt;
  const std::size_t character = std::strtoull(position, nullptr, 10);
  if (character <= piece.prefix) return std::nullopt;
  const std::string_view text =
      std::string_view(piece.script->text).substr(piece.offset, piece.length);
  const std::size_t in_piece = byte_offset_of_character(text, character - 1 - piece.prefix);
  if (in_piece >= text.size()) return std::nullopt;
  return piece.offset + in_piece;
}

// Whether the parser read every statement of a script.
bool parses_whole(const std::vector<PgStatement>& statements) {
  return std::all_of(statements.begin(), statements.end(),
                     [](const PgStatement& s) { return s.parsed(); });
}

// A failure placed in the script's file (place_in_file()): at the server's error position when
// it gave one, else at the start of the statement that failed, when that is known (unique
// violations, division by zero and the like come without a position). False when neither is.
bool locate(const PGresult* result, const SentPiece& piece, nlohmann::json& context,
            std::string& where) {
  if (piece.script == nullptr) return false;
  const std::string_view script = piece.script->text;
  if (piece.number > 0) context["statementNumber"] = piece.number;
  if (const std::optional<std::size_t> offset = error_offset(result, piece)) {
    std::vector<PgStatement> parsed;
    const PgStatement* statement = piece.statement;
    if (statement == nullptr) {
      parsed = parse_pg_script(script);
      statement = statement_at(parsed, *offset);
    }
    where =
        place_in_file(*piece.script, *offset, statement ? statement->text(script) : "", context);
    return true;
  }
  if (piece.statement == nullptr) return false;
  where =
      fmt::format("statement {} at ", piece.number) +
      place_in_file(*piece.script, piece.statement->offset, piece.statement->text(script), context);
  return true;
}

class PostgresStore final : public Store {
 public:
  // `answer_bound`: the lock connection's wait for any answer (bounded_exec.hpp).
  PostgresStore(const Config& config, PGconn* conn, std::string redacted_uri,
                std::optional<std::chrono::milliseconds> answer_bound)
      : conn_(conn),
        answer_bound_(answer_bound),
        cancel_(PQgetCancel(conn)),
        uri_(std::move(redacted_uri)),
        lock_table_(quote_identifier(config.lock_table)),
        changelog_table_(quote_identifier(config.migrations_table)),
        changelog_index_(quote_identifier(derived_name(config.migrations_table, "_status_batch"))),
        channel_(derived_name(config.lock_table, "_released")),
        uri_for_blockers_(config.uri) {
    const char* name = PQparameterStatus(conn_, "application_name");
    opened_as_ = name ? name : "";
    PQsetNoticeReceiver(conn_, &PostgresStore::forward_notice, this);
  }

  ~PostgresStore() override {
    PQfreeCancel(cancel_);
    PQfinish(conn_);
  }

  std::string_view kind() const override { return "postgres"; }

  void ensure_schema() override {
    if (schema_known_) return;
    // One statement, run by every writing run before its lock (and once by a waiter's lock
    // connection): it refuses a view or the like in a table's place, and creates what is
    // missing, leaving what exists alone and unlocked. The advisory lock serialises creators:
    // racing CREATE TABLE IF NOT EXISTS statements can fail on the catalog's unique indexes.
    const auto missing = [](const std::string& relation) {
      return "to_regclass('" + relation + "') IS NULL";
    };
    // A table of another shape is looked for only where something is missing: with everything
    // there, a read that misses a column says which table (check()).
    const auto refuse = [](const std::string& found_sql) {
      return "found := " + found_sql + "; IF found IS NOT NULL THEN RAISE EXCEPTION '%', found " +
             "USING ERRCODE = '" + std::string(kForeignRelationSqlstate) + "'; END IF; ";
    };
    run("create the migronaut tables",
        "DO $$ DECLARE found text; BEGIN " + refuse(foreign_relations_sql()) + "IF " +
            missing(lock_table_) + " OR " + missing(changelog_table_) + " OR " +
            missing(changelog_index_) + " THEN " + refuse(misshapen_tables_sql()) +
            "PERFORM pg_advisory_xact_lock(hashtext('migronaut schema')); " + create_tables_sql() +
            " IF " + missing(changelog_index_) + " THEN " + create_index_sql() +
            " END IF; END IF; END $$");
    schema_known_ = true;
  }

  // CREATE TABLE IF NOT EXISTS of the lock table and the changelog.
  std::string create_tables_sql() const {
    std::string columns = "name text PRIMARY KEY";
    for (Field field : kAllFields) {
      columns += ", " + std::string(column_name(field)) + " " + changelog_column_type(field);
    }
    return "CREATE TABLE IF NOT EXISTS " + lock_table_ +
           " (id text PRIMARY KEY, locked_at timestamptz NOT NULL, ttl_ms bigint NOT NULL,"
           " owner text NOT NULL, nonce text NOT NULL, pid bigint, host text, executed_by text,"
           " migration text, step bigint, total bigint); CREATE TABLE IF NOT EXISTS " +
           changelog_table_ + " (" + columns + ");";
  }

  // The changelog's (status, batch) index, made only if that takes no wait: CREATE INDEX first
  // takes a share lock on the changelog, which a running migration's transaction keeps from it
  // (a dropped index then waits for a later run). A new changelog is this transaction's own.
  std::string create_index_sql() const {
    return "PERFORM set_config('lock_timeout', '100', true); BEGIN CREATE INDEX " +
           changelog_index_ + " ON " + changelog_table_ +
           " (status, batch); EXCEPTION WHEN lock_not_available THEN NULL; END;";
  }

  AcquireResult try_acquire(const LockClaim& claim) override {
    // `previous` reads the record as the statement found it: when the upsert replaced it, it
    // was a dead holder's.
    const std::string sql =
        "WITH previous AS (SELECT " + kLockColumns + " FROM " + lock_table_ +
        " WHERE id = $1), taken AS (INSERT INTO " + lock_table_ +
        " AS l (id, locked_at, ttl_ms, owner, nonce, pid, host, executed_by, migration, step,"
        " total) VALUES ($1, clock_timestamp(), $2, $3, $4, $5, $6, $7, NULL, 0, 0)"
        " ON CONFLICT (id) DO UPDATE SET locked_at = EXCLUDED.locked_at,"
        " ttl_ms = EXCLUDED.ttl_ms, owner = EXCLUDED.owner, nonce = EXCLUDED.nonce,"
        " pid = EXCLUDED.pid, host = EXCLUDED.host, executed_by = EXCLUDED.executed_by,"
        " migration = NULL, step = 0, total = 0"
        " WHERE l.locked_at < clock_timestamp()"
        // Capped where no configured TTL reaches, so a garbage TTL in the row cannot overflow
        // the interval: the refusal then reports the row (LOCK_RECORD_INVALID).
        " - least(greatest(l.ttl_ms, EXCLUDED.ttl_ms), 2147483647) * interval '1 millisecond'"
        " RETURNING 1) SELECT previous.* FROM taken LEFT JOIN previous ON true";
    const std::vector<std::string> params{
        std::string(kLockId), std::to_string(claim.ttl_ms), claim.owner,
        claim.nonce,          std::to_string(claim.pid),    claim.host,
        claim.executed_by};
    Result inserted = send(sql, params);
    if (sqlstate_of(inserted.get()) == kUndefinedTable) {  // first lock on this database
      ensure_schema_now();
      inserted = send(sql, params);
    }
    check("acquire the lock", inserted.get());
    if (PQntuples(inserted.get()) == 1) {
      std::optional<LockInfo> previous;
      if (!PQgetisnull(inserted.get(), 0, 2)) previous = lock_info_at(inserted.get(), 0);
      return {.acquired = true, .holder = std::nullopt, .reclaimed = std::move(previous)};
    }
    return {.acquired = false, .holder = read_lock(), .reclaimed = std::nullopt};
  }

  bool renew(const LockToken& token, const LockProgress& progress) override {
    SqlValues values;
    const std::string sql = renewal_sql(token, &progress, values);
    const Result result = run("renew the lock", sql, values.params(), MissingTable::kIsEmpty);
    return std::string_view(PQcmdTuples(result.get())) == "1";
  }

  // Sent again on a new connection if the old one broke (a server restart mid-run): a second
  // DELETE of our own row finds nothing, and waiters need not wait out our TTL.
  void release(const LockToken& token) override {
    run_repeatable("release the lock",
                   "WITH gone AS (DELETE FROM " + lock_table_ +
                       " WHERE id = $1 AND owner = $2 AND nonce = $3 RETURNING 1)"
                       " SELECT pg_notify($4, '') FROM gone",
                   {std::string(kLockId), token.owner, token.nonce, channel_},
                   MissingTable::kIsEmpty);
  }

  std::optional<LockInfo> read_lock() override {
    const Result result = run_repeatable(
        "read the lock", "SELECT " + kLockColumns + " FROM " + lock_table_ + " WHERE id = $1",
        {std::string(kLockId)}, MissingTable::kIsEmpty);
    if (PQntuples(result.get()) == 0) return std::nullopt;
    return lock_info_at(result.get(), 0);
  }

  std::optional<LockInfo> force_release(const ReleaseMatch& match) override {
    // The stamp is compared as the lock is read (epoch ms), in text: '' is no bigint.
    const std::string stamp = match.locked_at_ms ? std::to_string(*match.locked_at_ms) : "";
    const Result result = run(
        "force-release the lock",
        "WITH gone AS (DELETE FROM " + lock_table_ +
            " WHERE id = $1 AND ($3 = '' OR owner = $3) AND ($4 = '' OR " + epoch_ms("locked_at") +
            "::text = $4) RETURNING *) SELECT " + kLockColumns + ", pg_notify($2, '') FROM gone",
        {std::string(kLockId), channel_, std::string(match.owner), stamp}, MissingTable::kIsEmpty);
    if (PQntuples(result.get()) == 0) return std::nullopt;
    return lock_info_at(result.get(), 0);
  }

  bool can_push_release() const override { return true; }

  bool wait_for_release(std::chrono::milliseconds timeout, std::stop_token stop) override {
    if (!listening_) {
      // Listening and looking in one round trip closes the gap between the refusal that sent
      // us here and the LISTEN: a release in between shows as a missing record.
      const Result result = run("listen for lock releases",
                                "LISTEN " + quote_identifier(channel_) + "; SELECT 1 FROM " +
                                    lock_table_ + " WHERE id = '" + std::string(kLockId) + "'",
                                {}, MissingTable::kIsEmpty);
      if (PQresultStatus(result.get()) == PGRES_TUPLES_OK) listening_ = true;
      if (PQntuples(result.get()) == 0) return true;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (drain_notifications()) return true;
      const auto now = std::chrono::steady_clock::now();
      if (stop.stop_requested() || now >= deadline) return false;
      const auto slice = std::min<std::chrono::steady_clock::duration>(deadline - now, kWaitSlice);
      pollfd socket{.fd = PQsocket(conn_), .events = POLLIN, .revents = 0};
      const int ready =
          poll(&socket, 1,
               static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
      if (ready < 0 && errno != EINTR) throw connection_lost("wait for a lock release");
      if (ready > 0 && PQconsumeInput(conn_) == 0) {
        throw connection_lost("wait for a lock release");
      }
    }
  }

  std::optional<std::vector<ForeignRecord>> read_foreign_history(
      ForeignTool tool, const std::string& table) override {
    return read_postgres_history(conn_, tool, table);
  }

  StoreProbe probe() override {
    // audit fails where up would: the boot check's read no longer looks (ensure_schema does).
    const Result result = send_repeatable("SELECT coalesce(" + foreign_relations_sql() + ", " +
                                          misshapen_tables_sql() + ")");
    check("inspect the migronaut tables", result.get());
    if (!PQgetisnull(result.get(), 0, 0))
      throw foreign_relations_error(text_at(result.get(), 0, 0));
    return probe_postgres(conn_, changelog_table_, lock_table_, changelog_index_);
  }

  // The names of the two tables that some other relation holds ("x is a view, …"), or NULL.
  // The schema block checks it, not the boot check's read: planning a scan of pg_class costs a
  // fresh backend ~0.7 ms, a third of that read.
  std::string foreign_relations_sql() const {
    return "(SELECT string_agg(relname::text || ' is a ' || CASE relkind WHEN 'v' THEN 'view' WHEN "
           "'m' THEN 'materialized view' WHEN 'f' THEN 'foreign table' ELSE 'relation of kind ' "
           "|| relkind::text END, ', ') FROM pg_class WHERE oid IN (to_regclass('" +
           lock_table_ + "'), to_regclass('" + changelog_table_ +
           "')) AND relkind NOT IN ('r', 'p'))";
  }

  // Each of the two tables that lacks a column of migronaut's ("users is a table of another
  // shape (no column name)", the first it lacks), or NULL.
  std::string misshapen_tables_sql() const {
    std::string expected;
    const auto add = [&](const std::string& table, const std::vector<std::string_view>& columns) {
      for (std::size_t i = 0; i < columns.size(); ++i) {
        expected += (expected.empty() ? "(to_regclass('" : ", (to_regclass('") + table + "'), '" +
                    std::string(columns[i]) + "', " + std::to_string(i) + ")";
      }
    };
    add(lock_table_, lock_table_columns());
    add(changelog_table_, changelog_table_columns());
    return "(SELECT string_agg(c.relname::text || ' is a table of another shape (no column ' || "
           "e.col || ')', ', ') FROM (SELECT DISTINCT ON (rel) rel, col FROM (VALUES " +
           expected +
           ") v(rel, col, n) WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = "
           "v.rel AND a.attname = v.col AND NOT a.attisdropped) ORDER BY rel, n) e JOIN pg_class "
           "c ON c.oid = e.rel AND c.relkind IN ('r', 'p'))";
  }

  std::vector<ChangelogRecord> read_changelog() override {
    // A view in a table's place reads like one; writing runs meet the check in ensure_schema()
    // before their lock, so this read proves nothing about the tables (schema_known_ stays).
    // Binary, so the server spends nothing on converting times, and unordered: on a fresh
    // backend the two cost a third of the boot check's ~1.5 ms on the server.
    const Result result = send_repeatable(
        "SELECT " + changelog_columns() + " FROM " + changelog_table_, {}, Format::kBinary);
    // An absent table reads as empty; catching it keeps the boot check to one query.
    if (sqlstate_of(result.get()) == kUndefinedTable) {
      require_a_schema("read the changelog");
      return {};
    }
    check("read the changelog", result.get());

    std::vector<ChangelogRecord> records;
    records.reserve(PQntuples(result.get()));
    for (int row = 0; row < PQntuples(result.get()); ++row) {
      records.push_back(
          read_record(text_at(result.get(), row, 0), columns_of(result.get(), row, kAllFields, 1)));
    }
    sort_by_name(records);
    return records;
  }

  // A transaction of its own, as the connection's own role and search_path, which it restores
  // for the session: it may follow the statements of a migration outside a transaction.
  // The session's run tag, if not yet set, goes with it: it comes before every body run outside
  // a transaction (the `applying` mark). READ WRITE: such statements may have made the session's
  // next transactions read-only (kOwnSession resets that only for the ones after this).
  void write_records(std::span<const RecordWrite> writes,
                     const LockToken* fence = nullptr) override {
    const std::string naming = naming_sql();
    const Result result = send("BEGIN READ WRITE;\n" + naming + std::string(kOwnSession) +
                               commit_script(writes, fence, nullptr));
    note_named(naming, result.get());
    if (fence != nullptr) return check_migration(result);
    check(writes.size() == 1 ? "write the changelog record " + writes.front().name
                             : fmt::format("write {} changelog records", writes.size()),
          result.get());
  }

  bool runs_outside_transaction(const Script& script) const override {
    return runs_only_outside_transaction(script.text);
  }

  void check_script(std::string_view file, const Script& script,
                    bool transactional) const override {
    // Every script is split by the parser when it runs: a CLI whose parser module is missing
    // fails here, before the lock, not halfway through a run.
    pg_parser();
    refuse_unterminated_text(file, script);
    const std::vector<PgStatement> statements = parse_pg_script(script.text);
    if (const PgStatement* copy = first_client_copy(statements)) {
      refuse_statement(file, script, copy->offset, copy->text(script.text), "client-copy",
                       "COPY FROM STDIN and TO STDOUT move rows through the client, as psql "
                       "does; migronaut sends the script alone, so the server would wait for "
                       "rows forever. Load the rows with INSERT, or COPY from a file the server "
                       "reads");
    }
    if (!transactional) {
      refuse_session_settings_through_pooler(file, script, statements);
      return;
    }
    const std::vector<TransactionConflict> conflicts = transaction_conflicts(statements);
    if (conflicts.empty()) return;
    const TransactionConflict& first = conflicts.front();
    refuse_statement(file, script, first.statement->offset, first.statement->text(script.text),
                     first.rule, first.reason);
  }

  // Outside a transaction each statement is a transaction of its own, which a transaction-pooling
  // proxy may send to another server session (sql/pg/session_settings.hpp).
  void refuse_session_settings_through_pooler(std::string_view file, const Script& script,
                                              const std::vector<PgStatement>& statements) const {
    const std::vector<const PgStatement*> settings = session_settings(statements);
    if (settings.empty() || !through_pooler()) return;
    const PgStatement& first = *settings.front();
    refuse_statement(
        file, script, first.offset, first.text(script.text), "session-setting-through-pooler",
        "this connection goes through a pooler (PgBouncer): outside a transaction each statement "
        "may run on another server session, so the setting may not hold for the statements after "
        "it and would stay with a server session other clients then use. Run this migration "
        "with a URI that reaches PostgreSQL directly, or leave the setting out");
  }

  // Whether a proxy stands between this connection and the server. PgBouncer and its kin hand
  // the client a cancel key of their own, so the pid libpq was given is not the server's.
  bool through_pooler() const {
    if (!through_pooler_) {
      const Result result(PQexec(conn_, "SELECT pg_backend_pid()"));
      check("ask the server for its process id", result.get());
      through_pooler_ = int_at(result.get(), 0, 0) != PQbackendPID(conn_);
    }
    return *through_pooler_;
  }

  std::vector<std::string> statements_of(const Script& script) const override {
    std::vector<std::string> texts;
    for (const PgStatement& statement : parse_pg_script(script.text)) {
      texts.emplace_back(statement.text(script.text));
    }
    return texts;
  }

  void execute(const Execution& execution) override {
    // A connection dropped while idle is opened again before a migration's first statement,
    // never during it: the rest of it on a new session would run without its session's settings
    // (search_path, role, advisory locks), or record work the old session never committed.
    reconnect_if_broken();
    const ScopedFlag in_migration(in_migration_);
    const ScopedValue<Logger*> notices(
        notices_to_, execution.context != nullptr ? &execution.context->logger : nullptr);
    const auto* script = std::get_if<Script>(execution.work);
    if (!execution.transactional) {
      try {
        return execute_untransacted(
            execution,
            [&] { script ? run_statements(*script, execution.still_held) : run_code(execution); },
            [&](const RecordWrite& record) { write_record(record, execution.fence); });
      } catch (const std::exception&) {
        restore_session();  // no rollback undoes what its statements set
        throw;
      }
    }
    if (script) {
      // One round trip: BEGIN, the script, the record, the fence, COMMIT. Should the session
      // have lost the prepared bookkeeping, the migration was rolled back and goes again whole.
      if (!statements_.in_use() || !send_migration(execution, *script, &statements_)) {
        send_migration(execution, *script, nullptr);
      }
      return;
    }
    run_code(execution);
    check_migration(
        send(std::string(kOwnSession) +
             commit_script(records_of(execution), execution.fence, execution.progress)));
  }

  void interrupt() override {
    std::lock_guard lock(cancel_mutex_);
    char message[256];
    PQcancel(cancel_, message, sizeof message);
  }

  bool fence_records_progress() const override { return true; }

  void tag_sessions(std::string_view run_id) override {
    session_name_ = run_application_name(opened_as_, run_id);
    session_named_ = false;
  }

  // Terminates what it may; should the server refuse anyway (a role rule the query did not
  // foresee), it only looks.
  LeftSessions end_sessions_of(std::string_view run_id) override {
    const std::string tag = run_session_tag(run_id);
    Result result = send(run_sessions_sql(), {tag, "true"});
    if (sqlstate_of(result.get()) == kInsufficientPrivilege) {
      result = send(run_sessions_sql(), {tag, "false"});
    }
    check("look for the sessions of run " + std::string(run_id), result.get());
    return read_run_sessions(result.get());
  }

  std::int64_t now_ms() override {
    const Result result =
        run_repeatable("read the server clock", "SELECT " + epoch_ms("clock_timestamp()"));
    return int_at(result.get(), 0, 0);
  }

 private:
  // What run() makes of a missing table: an error, or (for the lock) an empty result, since
  // no lock table means no lock.
  enum class MissingTable { kFails, kIsEmpty };

  // A migration's notices (RAISE NOTICE, "… already exists, skipping") go to its log, like
  // psql's; those of migronaut's tables and lock are not the user's to read. libpq calls this
  // amid reading a message, so nothing may unwind into it: a logger that throws loses the line.
  static void forward_notice(void* store, const PGresult* notice) noexcept {
    Logger* logger = static_cast<PostgresStore*>(store)->notices_to_;
    if (logger == nullptr) return;
    const auto field = [&](int code) -> std::string_view {
      const char* value = PQresultErrorField(notice, code);
      return value != nullptr ? value : "";
    };
    const std::string_view severity = field(PG_DIAG_SEVERITY_NONLOCALIZED);
    const Logger::Level level = severity == "WARNING" ? Logger::Level::kWarn
                                : severity.starts_with("DEBUG") || severity == "LOG"
                                    ? Logger::Level::kDebug
                                    : Logger::Level::kInfo;
    try {
      std::string line =
          fmt::format("{}: {}", field(PG_DIAG_SEVERITY), field(PG_DIAG_MESSAGE_PRIMARY));
      if (const std::string_view detail = field(PG_DIAG_MESSAGE_DETAIL); !detail.empty()) {
        line += fmt::format(" ({})", detail);
      }
      if (const std::string_view hint = field(PG_DIAG_MESSAGE_HINT); !hint.empty()) {
        line += fmt::format(" Hint: {}", hint);
      }
      logger->log(level, line);
    } catch (...) {
    }
  }

  void ensure_schema_now() {
    schema_known_ = false;
    ensure_schema();
  }

  // Sends `sql` (parameters or binary results → extended protocol; neither → simple protocol,
  // several statements allowed) and returns its result, failed or not. A failure inside a
  // transaction block is rolled back here, so the connection is always usable afterwards.
  Result send(const std::string& sql, const std::vector<std::string>& params = {},
              Format format = Format::kText) {
    reconnect_if_broken();
    Result result;
    if (answer_bound_) {
      bool timed_out = false;
      result.reset(exec_until(conn_, sql, params, format == Format::kBinary,
                              std::chrono::steady_clock::now() + *answer_bound_, &timed_out));
      if (timed_out) {
        abandoned_ = true;  // opened again before the next statement
        throw ConnectionFailedError(
            fmt::format("postgres: no answer from the server within {} ms on the lock's "
                        "connection; it was closed",
                        answer_bound_->count()),
            {{"uri", uri_}});
      }
    } else if (params.empty() && format == Format::kText) {
      result.reset(PQexec(conn_, sql.c_str()));
    } else {
      std::vector<const char*> values;
      for (const std::string& param : params) values.push_back(param.c_str());
      result.reset(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                values.data(), nullptr, nullptr, static_cast<int>(format)));
    }
    if (!succeeded(result.get())) rollback_if_open();
    return result;
  }

  // Like send(), for a statement that may run twice — a read, or a release that deletes only our
  // own lock row: should the connection turn out broken (one dropped while idle, or by a server
  // restart, which libpq may see only once a query fails), it is sent once more on a new one.
  // Never another write: it may have reached the server before the connection broke.
  Result send_repeatable(const std::string& sql, const std::vector<std::string>& params = {},
                         Format format = Format::kText) {
    Result result = send(sql, params, format);
    if (succeeded(result.get()) || PQstatus(conn_) != CONNECTION_BAD) return result;
    return send(sql, params, format);
  }

  // Like send(), noting who blocks the query when it still runs halfway to `lock_timeout`, so
  // a lock timeout can name its blocker (blockers_), and how many of its statements completed
  // (`completed`). Without a lock timeout nobody is asked. The session is found by the run's
  // name for it, which it carries by then (`sql` names it if need be; a pooler re-applies it).
  Result send_watched(const std::string& sql, std::chrono::milliseconds lock_timeout,
                      std::size_t* completed) {
    blockers_ = nlohmann::json::array();
    const std::chrono::milliseconds ask_after =
        lock_timeout.count() > 0 ? lock_timeout / 2 : std::chrono::hours(24 * 365);
    Watched watched =
        exec_watching_blockers(conn_, sql, uri_for_blockers_, session_name_, ask_after);
    Result result(watched.result);
    blockers_ = std::move(watched.blockers);
    *completed = watched.completed;
    if (!succeeded(result.get())) rollback_if_open();
    return result;
  }

  // A dropped connection (server restart, terminated backend, failover, a pooler's idle
  // timeout) is re-established before the next statement, except within a migration (execute());
  // the lock's statements are scoped to owner and nonce, so a holder simply resumes renewing if
  // the record is still its own.
  void reconnect_if_broken() {
    if (in_migration_ ||
        (!abandoned_ && PQstatus(conn_) != CONNECTION_BAD && !closed_while_idle())) {
      return;
    }
    abandoned_ = false;
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) throw connection_lost("reconnect");
    listening_ = false;
    statements_.forget();
    // A new session, as the URI names it: a body about to run must still carry its run's tag.
    if (!session_name_.empty()) Result named(PQexec(conn_, name_session_sql().c_str()));
    std::lock_guard lock(cancel_mutex_);
    PQfreeCancel(cancel_);
    cancel_ = PQgetCancel(conn_);
  }

  // Whether the server closed the connection while no transaction was open: libpq still reports
  // it OK, but its socket holds the server's goodbye, then the end of the stream, each read by a
  // PQconsumeInput of its own. Costs no round trip; a notification read meanwhile waits in libpq
  // for drain_notifications().
  bool closed_while_idle() {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) return false;
    pollfd socket{.fd = PQsocket(conn_), .events = POLLIN, .revents = 0};
    while (poll(&socket, 1, 0) > 0) {
      if (PQconsumeInput(conn_) == 0) return true;
    }
    return PQstatus(conn_) == CONNECTION_BAD;
  }

  // The session's role, search_path and timeouts back as the connection opened them, on their
  // own: after a migration outside a transaction that failed before its record restored them.
  // Best effort, so the migration's own error is what the caller sees.
  void restore_session() {
    if (PQstatus(conn_) != CONNECTION_OK) return;
    Result reset(PQexec(conn_, std::string(kOwnSession).c_str()));
  }

  // Names this session after the run (tag_sessions()), for as long as it lives.
  std::string name_session_sql() const {
    SqlValues literal(conn_);
    return "SET application_name TO " + literal.add(session_name_) + ";\n";
  }

  // name_session_sql() while the session is not named yet, else "": it travels in the next of
  // migronaut's transactions (an `applying` mark, a migration), costing no round trip of its own.
  std::string naming_sql() const {
    return session_name_.empty() || session_named_ ? "" : name_session_sql();
  }
  // The session is named once a transaction that carried `naming` committed (`result`); a
  // rolled-back one took the name back with it.
  void note_named(std::string_view naming, const PGresult* result) {
    session_named_ = session_named_ || (!naming.empty() && succeeded(result));
  }

  void rollback_if_open() {
    if (PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      Result rollback(PQexec(conn_, "ROLLBACK"));
    }
  }

  Result run(const std::string& what, const std::string& sql,
             const std::vector<std::string>& params = {},
             MissingTable missing_table = MissingTable::kFails) {
    return checked(what, send(sql, params), missing_table);
  }

  // run() for a statement that may run twice (see send_repeatable()).
  Result run_repeatable(const std::string& what, const std::string& sql,
                        const std::vector<std::string>& params = {},
                        MissingTable missing_table = MissingTable::kFails) {
    return checked(what, send_repeatable(sql, params), missing_table);
  }

  Result checked(const std::string& what, Result result, MissingTable missing_table) {
    if (missing_table == MissingTable::kIsEmpty && sqlstate_of(result.get()) == kUndefinedTable) {
      require_a_schema(what);
      return Result(PQmakeEmptyPGresult(conn_, PGRES_COMMAND_OK));
    }
    check(what, result.get());
    return result;
  }

  // Gone, as libpq found it, or ended by the server: a FATAL error of connection exception class
  // or a shutdown. A statement's own ERROR of class 08 (a dblink_connect that failed, a RAISE
  // with that ERRCODE) leaves this connection as it was: the migration failed, nothing was lost.
  bool connection_broken(const PGresult* result) const {
    if (PQstatus(conn_) == CONNECTION_BAD) return true;
    const char* severity =
        result ? PQresultErrorField(result, PG_DIAG_SEVERITY_NONLOCALIZED) : nullptr;
    // Servers before 9.6 send it only localized.
    if (severity == nullptr && result) severity = PQresultErrorField(result, PG_DIAG_SEVERITY);
    if (severity == nullptr ||
        (std::string_view(severity) != "FATAL" && std::string_view(severity) != "PANIC")) {
      return false;
    }
    const std::string state = sqlstate_of(result);
    return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03";
  }

  std::string server_message(const PGresult* result) const {
    const char* message = result ? PQresultErrorMessage(result) : "";
    return trimmed(*message ? message : PQerrorMessage(conn_));
  }

  ConnectionFailedError connection_lost(const std::string& what,
                                        const PGresult* result = nullptr) const {
    return ConnectionFailedError("postgres: lost the connection while trying to " + what + ": " +
                                     redact(server_message(result)),
                                 {{"uri", uri_}, {"sqlstate", sqlstate_of(result)}});
  }

  // Throws for a failed result: ConnectionFailedError when the connection is gone, else an
  // unclassified error naming what failed.
  void check(const std::string& what, const PGresult* result) const {
    if (succeeded(result)) return;
    if (connection_broken(result)) throw connection_lost(what, result);
    if (sqlstate_of(result) == kForeignRelationSqlstate) {
      throw foreign_relations_error(PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY));
    }
    if (sqlstate_of(result) == kUndefinedColumn) refuse_misshapen_tables();
    if (sqlstate_of(result) == kInvalidSchemaName) throw no_schema_error(what, sqlstate_of(result));
    if (sqlstate_of(result) == kInsufficientPrivilege) {
      throw PermissionDeniedError(
          "postgres: cannot " + what + ": " + server_message(result) + " (user " + PQuser(conn_) +
              "; grant it the privilege, e.g. CREATE on the schema, or create the migronaut "
              "tables as their owner first)",
          {{"sqlstate", sqlstate_of(result)}, {"user", PQuser(conn_)}});
    }
    throw Error(ErrorCode::kUnclassified,
                "postgres: cannot " + what + ": " + server_message(result),
                {{"sqlstate", sqlstate_of(result)}});
  }

  // A read that missed a column of migronaut's: a table of its name that is another's is the
  // culprit to name.
  void refuse_misshapen_tables() const {
    const Result found(PQexec(conn_, ("SELECT " + misshapen_tables_sql()).c_str()));
    if (succeeded(found.get()) && !PQgetisnull(found.get(), 0, 0)) {
      throw foreign_relations_error(text_at(found.get(), 0, 0));
    }
  }

  // A table that is not there reads as empty (a new database), unless no schema of the search_path
  // exists: then no table is there, and an empty read would pass a mistyped schema for a new
  // database (`status` all pending, `audit` green). One query, on that path only.
  void require_a_schema(const std::string& what) const {
    const Result schema(PQexec(conn_, "SELECT current_schema() IS NULL"));
    if (succeeded(schema.get()) && text_at(schema.get(), 0, 0) == "t") {
      throw no_schema_error(what, kInvalidSchemaName);
    }
  }

  // No schema of the search_path exists (the URI's options, the role's or the database's
  // default): there is nowhere to create the tables.
  ConfigInvalidError no_schema_error(const std::string& what, std::string_view sqlstate) const {
    const Result shown(PQexec(conn_, "SHOW search_path"));
    const std::string path = succeeded(shown.get()) ? text_at(shown.get(), 0, 0) : "";
    return ConfigInvalidError(
        "postgres: cannot " + what + ": no schema of the search_path (" + path +
            ") exists (or none this user may use: USAGE), so migronaut's tables are in none and "
            "can be created in none; create the schema (or grant USAGE on it), or name one that "
            "exists in the URI's options (options=-csearch_path%3D<schema>)",
        {{"sqlstate", sqlstate}, {"searchPath", path}});
  }

  // Like check(), for the statements of a migration; `piece` places a failure in its file.
  void check_migration(const Result& result, const SentPiece& piece = {}) const {
    if (succeeded(result.get())) return;
    if (connection_broken(result.get())) throw connection_lost("run a migration", result.get());
    const std::string state = sqlstate_of(result.get());
    if (is_fence_failure(result.get())) {
      throw LockLostError("the lock no longer names this run; the migration was rolled back");
    }
    if (state == kLockNotAvailable) {
      const std::string blocker = describe_blockers(blockers_);
      throw MigrationLockTimeoutError(
          "a statement waited past its lock_timeout for a lock held by " + blocker +
              "; the transaction was rolled back",
          {{"sqlstate", state}, {"blockedBy", blocker}, {"blockers", blockers_}});
    }
    nlohmann::json context = {{"sqlstate", state}};
    std::string message = migration_message(result.get(), piece.after);
    if (message.empty()) message = redact(server_message(result.get()));
    std::string where;
    if (locate(result.get(), piece, context, where)) {
      // At an error position, the primary message says enough: the statement is shown.
      const char* primary = PQresultErrorField(result.get(), PG_DIAG_MESSAGE_PRIMARY);
      const std::string said = primary != nullptr && error_offset(result.get(), piece)
                                   ? without_own_text(primary, piece.after)
                                   : std::string();
      message = fmt::format("{}: {}", where, said.empty() ? message : said);
    }
    if (piece.own != nullptr) {
      message += own_transaction_rolled_back(*piece.script, *piece.own, context);
    } else if (!piece.transactional && piece.statement != nullptr) {
      message += left_behind(*piece.statement, piece.number - 1, context);
    }
    throw MigrationExecutionFailedError(message, std::move(context));
  }

  // Outside a transaction each statement goes on its own: the server runs a multi-statement
  // string as one implicit transaction, where CREATE INDEX CONCURRENTLY and its kin fail. A
  // script the parser cannot read whole goes as it is, for the server to report.
  void run_statements(const Script& script, const std::function<bool()>& still_held) {
    const std::vector<PgStatement> statements = parse_pg_script(script.text);
    if (!parses_whole(statements)) {
      check_migration(
          send(script.text),
          SentPiece{.script = &script, .length = script.text.size(), .transactional = false});
      if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
        rollback_if_open();
        fail_open_transaction(script, OwnTransaction{}, "");
      }
      return;
    }
    std::optional<OwnTransaction> own;  // the script's own, while open
    for (std::size_t i = 0; i < statements.size(); ++i) {
      try {
        require_still_held(still_held, i);
      } catch (const LockLostError&) {
        rollback_if_open();  // what ran in the script's own transaction must not commit
        throw;
      }
      const PgStatement& statement = statements[i];
      check_migration(send(std::string(statement.text(script.text))),
                      SentPiece{.script = &script,
                                .offset = statement.offset,
                                .length = statement.end - statement.offset,
                                .statement = &statement,
                                .number = i + 1,
                                .transactional = false,
                                .own = own ? &*own : nullptr});
      track_own_transaction(own, PQtransactionStatus(conn_) != PQTRANS_IDLE, statement.offset, i);
    }
    // The changelog record's transaction would commit it along (BEGIN only warns in one).
    if (own) {
      rollback_if_open();
      fail_open_transaction(script, *own, statements[own->ran_before].text(script.text));
    }
  }

  // A C++ body (in a transaction when transactional); on failure the transaction is rolled
  // back, and a connection lost meanwhile is reported as such.
  void run_code(const Execution& execution) {
    if (execution.transactional) check_migration(send(begin_sql(execution)));
    if (execution.context != nullptr) execution.context->handle.postgres = conn_;
    try {
      run_body(execution);
    } catch (const std::exception&) {
      rollback_if_open();
      if (PQstatus(conn_) == CONNECTION_BAD) throw connection_lost("run a migration");
      throw;
    }
  }

  // The end of a transactional migration: its changelog upsert, the fencing check, COMMIT.
  // A migration's transaction goes on server-side whatever happens to its client: without a
  // check, one whose migrator was killed would still reach COMMIT (and hold its locks until
  // then). PostgreSQL 14+ can look for a closed client connection while a statement runs.
  // The migration's own bounds follow: lock_timeout (a wait for a lock fails with 55P03, the
  // whole transaction rolls back, and the engine tries again) and statement_timeout.
  std::string begin_sql(const Execution& execution) const {
    std::string sql = "BEGIN";
    if (PQserverVersion(conn_) >= 140000) {
      sql += "; SET LOCAL client_connection_check_interval = " +
             std::to_string(kClientCheckIntervalMs);
    }
    if (execution.lock_timeout.count() > 0) {
      sql += "; SET LOCAL lock_timeout = " + std::to_string(execution.lock_timeout.count());
    }
    if (execution.statement_timeout.count() > 0) {
      sql +=
          "; SET LOCAL statement_timeout = " + std::to_string(execution.statement_timeout.count());
    }
    return sql;
  }

  // The end of a migration's transaction: its record, the fence, COMMIT. With `statements`,
  // the record and the fence are called as statements the session prepared; without, they go
  // whole. Callers put kOwnSession before it (and before any PREPARE of it). The fence's nonce
  // is remembered as a secret: no message quoting it shows it.
  std::string commit_script(std::span<const RecordWrite> records, const LockToken* fence,
                            const LockProgress* progress, SessionStatements* statements = nullptr) {
    const auto bookkeeping = [&](const auto& make) {
      SqlValues literals(conn_);
      if (statements == nullptr) return make(literals) + ";\n";
      SqlValues placeholders;
      const std::string sql = make(placeholders);
      std::vector<std::string> arguments;
      for (const std::string& value : placeholders.params()) {
        arguments.push_back(literals.add(value));
      }
      return statements->call(sql, arguments) + ";\n";
    };
    std::string sql;
    for (const RecordWrite& record : records) {
      sql += bookkeeping([&](SqlValues& values) { return upsert_sql(record, values); });
    }
    if (fence) {
      remember_secret(fence->nonce);
      sql += bookkeeping([&](SqlValues& values) { return fence_sql(*fence, progress, values); });
    }
    return sql + "COMMIT;";
  }

  // A transactional script's one round trip, its bookkeeping prepared by the session when
  // `statements` is given. False when the session lacked a statement an earlier message had
  // prepared (a pooler's other session, a DEALLOCATE in the script): the transaction rolled back,
  // and the connection goes on without prepared statements.
  bool send_migration(const Execution& execution, const Script& script,
                      SessionStatements* statements) {
    reconnect_if_broken();  // before the text: a new session holds no statement
    std::string probe;
    std::string prepares;
    if (statements != nullptr) statements->begin_message();
    const std::string tail =
        commit_script(records_of(execution), execution.fence, execution.progress, statements);
    if (statements != nullptr) {
      probe = statements->probe();
      prepares = statements->prepares();
    }
    // The script comes right after BEGIN (and the session's naming, once a run), where
    // pg_stat_activity's cut-off text still shows it. The naming comes before it: the blocker
    // query finds the session by its name.
    const std::string naming = naming_sql();
    const std::string head = begin_sql(execution) + ";\n" + naming + probe;
    const std::string after = "\n;\n" + std::string(kOwnSession) + prepares + tail;
    std::size_t completed = 0;
    const Result result =
        send_watched(head + script.text + after, execution.lock_timeout, &completed);
    note_named(naming, result.get());
    if (statements != nullptr) {
      statements->settle(succeeded(result.get()));
      const char* primary = PQresultErrorField(result.get(), PG_DIAG_MESSAGE_PRIMARY);
      if (!succeeded(result.get()) &&
          statements->lacked_one(sqlstate_of(result.get()), primary ? primary : "")) {
        statements->stop_using();
        return false;
      }
    }
    SentPiece piece{
        .script = &script, .length = script.text.size(), .prefix = head.size(), .after = after};
    std::vector<PgStatement> parsed;
    if (!succeeded(result.get())) {
      parsed = parse_pg_script(script.text);
      point_at_failed(parsed, parse_pg_script(head).size(), completed, piece);
    }
    check_migration(result, piece);
    return true;
  }

  // Points `piece` at the statement of `statements` (its script's) that failed in a query of
  // `own` statements of migronaut's, the script, and more of migronaut's, of which `completed`
  // statements completed. Left unknown when the parser cannot read the script whole, as its
  // split may then differ from the server's, or when the failure came before or after it.
  static void point_at_failed(const std::vector<PgStatement>& statements, std::size_t own,
                              std::size_t completed, SentPiece& piece) {
    if (!parses_whole(statements) || completed < own || completed - own >= statements.size()) {
      return;
    }
    piece.statement = &statements[completed - own];
    piece.number = completed - own + 1;
  }

  // Fails the transaction unless the lock record still carries the token, and renews it with
  // the progress, if any. The UPDATE holds the record until COMMIT, so no reclaim can slip in
  // between the check and the commit, and waiters see the progress the moment the migration
  // commits, without a round trip on the lock connection. Plain SQL rather than a DO block,
  // which PostgreSQL compiles afresh each time (~2 ms, more than the rest of a small migration):
  // when no record matched, the marker fails its cast to int.
  std::string fence_sql(const LockToken& token, const LockProgress* progress,
                        SqlValues& values) const {
    return "WITH fence AS (" + renewal_sql(token, progress, values) +
           " RETURNING 1) SELECT (CASE WHEN count(*) = 1 THEN '1' ELSE '" +
           std::string(kFenceMarker) + "' END)::int FROM fence";
  }

  // The UPDATE that renews our lock record (and records the progress, when given), matching
  // nothing once the record is another run's: the heartbeat's renewal, and the fence's core.
  std::string renewal_sql(const LockToken& token, const LockProgress* progress,
                          SqlValues& values) const {
    std::string sql = "UPDATE " + lock_table_ + " SET locked_at = clock_timestamp()";
    if (progress) {
      sql += ", migration = " + values.add(progress->migration) +
             ", step = " + values.add(std::to_string(progress->step)) +
             ", total = " + values.add(std::to_string(progress->total));
    }
    return sql + " WHERE id = " + values.add(kLockId) + " AND owner = " + values.add(token.owner) +
           " AND nonce = " + values.add(token.nonce);
  }

  // Whether `result` is the fencing check's failure: the marker's failed cast.
  static bool is_fence_failure(const PGresult* result) {
    const char* message = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
    return sqlstate_of(result) == kInvalidTextRepresentation && message != nullptr &&
           std::string_view(message).find(kFenceMarker) != std::string_view::npos;
  }

  std::string upsert_sql(const RecordWrite& write, SqlValues& values) const {
    std::vector<std::string> columns{"name"};
    std::vector<std::string> inserted{values.add(write.name)};
    std::vector<std::string> updates;
    for (const auto& [field, value] : write.set) {
      const std::string column(column_name(field));
      columns.push_back(column);
      inserted.push_back(render_value(field, value, values));
      updates.push_back(column + " = EXCLUDED." + column);
    }
    for (const auto& [field, value] : write.set_if_absent) {
      const std::string column(column_name(field));
      columns.push_back(column);
      inserted.push_back(render_value(field, value, values));
      updates.push_back(column + " = COALESCE(t." + column + ", EXCLUDED." + column + ")");
    }
    for (Field field : write.unset) updates.push_back(std::string(column_name(field)) + " = NULL");

    std::string sql = "INSERT INTO " + changelog_table_ + " AS t (" + join(columns) + ") VALUES (" +
                      join(inserted) + ") ON CONFLICT (name) DO ";
    if (updates.empty()) return sql + "NOTHING";
    sql += "UPDATE SET " + join(updates);
    if (write.skip_if_applied) sql += " WHERE t.status IS DISTINCT FROM 'applied'";
    return sql;
  }

  bool drain_notifications() {
    bool released = false;
    while (PGnotify* notification = PQnotifies(conn_)) {
      released = true;
      PQfreemem(notification);
    }
    return released;
  }

  PGconn* conn_;
  std::optional<std::chrono::milliseconds> answer_bound_;
  bool abandoned_ = false;       // a query given up on at answer_bound_: the connection is done
  std::mutex cancel_mutex_;      // interrupt() may race a reconnect
  PGcancel* cancel_;             // remade at each (re)connect: PQcancel is safe from any thread
  std::string uri_;              // redacted
  std::string lock_table_;       // quoted
  std::string changelog_table_;  // quoted
  std::string changelog_index_;  // quoted
  std::string channel_;          // the NOTIFY channel, unquoted (pg_notify takes it as text)
  bool schema_known_ = false;    // the tables exist: ensure_schema() costs nothing
  bool listening_ = false;
  SessionStatements statements_{"migronaut_" + new_nonce().substr(0, 12)};
  std::string uri_for_blockers_;  // unredacted: the blocker query's own connection
  nlohmann::json blockers_ = nlohmann::json::array();  // seen during the last watched query
  std::string opened_as_;     // the application_name the connection opened with
  std::string session_name_;  // the run's, once tag_sessions() named one
  bool session_named_ = false;
  mutable std::optional<bool> through_pooler_;  // see through_pooler()
  bool in_migration_ = false;     // execute() is under way: a broken connection stays broken
  Logger* notices_to_ = nullptr;  // the running migration's log, while execute() is under way
};

// Parameters whose values libpq checks only once it connects, failing as an unreachable server
// does (CONNECTION_BAD), and the values it takes (compared as it compares them, exactly).
struct AllowedValues {
  std::string_view keyword;
  std::vector<std::string_view> values;
};
const AllowedValues kEnumeratedParameters[] = {
    {"sslmode", {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}},
    {"gssencmode", {"disable", "prefer", "require"}},
    {"channel_binding", {"disable", "prefer", "require"}},
    {"target_session_attrs",
     {"any", "read-write", "read-only", "primary", "standby", "prefer-standby"}},
};
constexpr std::string_view kIntegerParameters[] = {"connect_timeout",  "keepalives",
                                                   "keepalives_idle",  "keepalives_interval",
                                                   "keepalives_count", "tcp_user_timeout"};
constexpr int kMaxPort = 65535;

// `text` as libpq reads an integer parameter: surrounding spaces allowed, nothing else.
std::optional<long> integer_parameter(std::string_view text) {
  text = trim(text);
  long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Whether each of the comma-separated `ports` (one per host) is empty, for the default, or a
// port number.
bool valid_ports(std::string_view ports) {
  while (true) {
    const std::size_t comma = ports.find(',');
    const std::string_view port = trim(ports.substr(0, comma));
    const std::optional<long> number = integer_parameter(port);
    if (!port.empty() && (!number || *number < 1 || *number > kMaxPort)) return false;
    if (comma == std::string_view::npos) return true;
    ports.remove_prefix(comma + 1);
  }
}

// Why libpq would refuse `value` for `keyword` when it connects ("" when it would not). The
// value is not repeated: a port that is really a piece of a password would show it.
std::string refusal_of(std::string_view keyword, std::string_view value) {
  for (const AllowedValues& parameter : kEnumeratedParameters) {
    const auto& allowed = parameter.values;
    if (parameter.keyword == keyword &&
        std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      return "must be one of " + join(std::vector<std::string>(allowed.begin(), allowed.end()));
    }
  }
  if (keyword == "port" && !valid_ports(value)) {
    return "must be a port number from 1 to " + std::to_string(kMaxPort);
  }
  const bool integer = std::find(std::begin(kIntegerParameters), std::end(kIntegerParameters),
                                 keyword) != std::end(kIntegerParameters);
  return integer && !integer_parameter(value) ? "must be an integer" : "";
}

ConfigInvalidError invalid_uri(const std::string& redacted, const std::string& reason) {
  return ConfigInvalidError("postgres: invalid URI " + redacted + ": " + reason,
                            {{"key", "uri"}, {"uri", redacted}});
}

// Reads `uri` as libpq will, before connecting: what libpq would refuse — an unknown
// parameter, a bad value it checks only once connecting, in the words of an unreachable server
// — is ConfigInvalidError, never retried. The passwords it reads are remembered, so that
// redact() masks them in any message, whatever the URI's shape.
void check_uri(const std::string& uri, const std::string& redacted) {
  char* error = nullptr;
  const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
      PQconninfoParse(uri.c_str(), &error), &PQconninfoFree);
  const std::string reason = error != nullptr ? trimmed(error) : "out of memory";
  PQfreemem(error);
  if (!options) throw invalid_uri(redacted, redact(reason));
  for (const PQconninfoOption* option = options.get(); option->keyword != nullptr; ++option) {
    const std::string_view keyword = option->keyword;
    if (option->val == nullptr) continue;
    if (keyword == "password" || keyword == "sslpassword") remember_secret(option->val);
    const std::string refusal = refusal_of(keyword, option->val);
    if (!refusal.empty()) throw invalid_uri(redacted, std::string(keyword) + " " + refusal);
  }
}

// Drives an asynchronous connection until it is made or fails, or `until` passes: then it is
// left unfinished (neither CONNECTION_OK nor CONNECTION_BAD). libpq's connect_timeout cannot
// bound a waiter: it is whole seconds, at least 2, and counted again for each address a host
// resolves to; this ends at `until` to the millisecond. It does not bound the name lookup,
// which PQconnectStartParams makes before it returns, nor leave a host that hangs for the next
// one of a multi-host URI: so it serves only a waiter's last attempt (connect_deadline).
void connect_until(PGconn* conn, std::chrono::steady_clock::time_point until) {
  // Started, a connection's first step is to wait until its socket is writable.
  PostgresPollingStatusType polled =
      PQstatus(conn) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING;
  while (polled == PGRES_POLLING_READING || polled == PGRES_POLLING_WRITING) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left <= std::chrono::milliseconds::zero()) return;
    pollfd socket{.fd = PQsocket(conn),
                  .events = static_cast<short>(polled == PGRES_POLLING_READING ? POLLIN : POLLOUT),
                  .revents = 0};
    // A URI's connect_timeout=0 leaves only the deadline, which may lie beyond poll()'s range.
    const auto slice =
        std::min<std::chrono::milliseconds::rep>(left.count(), std::numeric_limits<int>::max());
    const int ready = poll(&socket, 1, static_cast<int>(slice));
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    if (ready < 0) return;  // left unfinished: reported as not made by the deadline
    polled = PQconnectPoll(conn);
  }
}

// libpq keywords and values, kept alive for PQconnectdbParams.
class ConnectParams {
 public:
  void add(std::string key, std::string value) {
    keys_.push_back(std::move(key));
    values_.push_back(std::move(value));
  }
  // With a deadline, connecting gives up then, left unfinished (see connect_until).
  PGconn* connect(const std::optional<std::chrono::steady_clock::time_point>& deadline) const {
    std::vector<const char*> keys;
    std::vector<const char*> values;
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      keys.push_back(keys_[i].c_str());
      values.push_back(values_[i].c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    if (!deadline) return PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
    PGconn* conn = PQconnectStartParams(keys.data(), values.data(), /*expand_dbname=*/1);
    if (conn != nullptr) connect_until(conn, *deadline);
    return conn;
  }

 private:
  std::vector<std::string> keys_;
  std::vector<std::string> values_;
};

// The URI's own value of `keyword` ("" when it sets none).
std::string uri_parameter(const std::string& uri, std::string_view keyword) {
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(
      PQconninfoParse(uri.c_str(), nullptr), &PQconninfoFree);
  for (const PQconninfoOption* option = parsed.get(); option && option->keyword; ++option) {
    if (option->keyword == keyword && option->val) return option->val;
  }
  return "";
}

// libpq's connect_timeout for the connection: the lock connection's bound in whole seconds,
// else the default.
std::chrono::seconds connect_timeout(const ConnectionOptions& options) {
  if (!options.statement_bound) return kDefaultConnectTimeout;
  return std::max(kLeastConnectTimeout,
                  std::chrono::ceil<std::chrono::seconds>(*options.statement_bound));
}

// How many hosts libpq tries for `uri` (a comma-separated `host` or `hostaddr`).
long host_count(const std::string& uri) {
  long count = 1;
  for (std::string_view keyword : {"host", "hostaddr"}) {
    const std::string hosts = uri_parameter(uri, keyword);
    count = std::max<long>(count, 1 + std::count(hosts.begin(), hosts.end(), ','));
  }
  return count;
}

// A waiter's deadline (ConnectionOptions::connect_by) when it comes before libpq's connect
// timeout (the URI's own, when it sets one) would end the attempt, which libpq counts once per
// host: then connecting stops there. Otherwise libpq connects as usual, trying each host of a
// multi-host URI in turn (a host that resolves to several addresses is still given the timeout
// for each).
std::optional<std::chrono::steady_clock::time_point> connect_deadline(
    const Config& config, const ConnectionOptions& options) {
  if (!options.connect_by) return std::nullopt;
  std::chrono::seconds timeout = connect_timeout(options);
  if (const std::optional<long> own =
          integer_parameter(uri_parameter(config.uri, "connect_timeout"))) {
    // 0 or less: no timeout of its own, only the deadline.
    if (*own <= 0) return options.connect_by;
    timeout = std::max(kLeastConnectTimeout, std::chrono::seconds(*own));
  }
  if (*options.connect_by <= std::chrono::steady_clock::now() + timeout * host_count(config.uri)) {
    return options.connect_by;
  }
  return std::nullopt;
}

// The connection's parameters. Keywords before `dbname` are defaults that the URI's own
// parameters override; the lock connection's bounds come after it and win: its statements
// wait at most `bound` for a row lock or to finish, and TCP gives up on a dead path as soon.
// Not durable, it also commits asynchronously (ConnectionOptions::durable).
ConnectParams connect_params(const Config& config, const ConnectionOptions& options,
                             bool server_timeouts) {
  ConnectParams params;
  const auto bound = options.statement_bound;
  const auto seconds = [](std::chrono::milliseconds ms) {
    return std::to_string(std::max<std::int64_t>(1, (ms.count() + 999) / 1000));
  };
  params.add("connect_timeout", std::to_string(connect_timeout(options).count()));
  params.add("fallback_application_name", "migronaut");
  params.add("dbname", config.uri);
  if (!bound) return params;
  const std::string ms = std::to_string(bound->count());
  if (server_timeouts) {
    params.add("options", uri_parameter(config.uri, "options") + " -c statement_timeout=" + ms +
                              " -c lock_timeout=" + ms +
                              (options.durable ? "" : " -c synchronous_commit=off"));
  }
  params.add("keepalives", "1");
  params.add("keepalives_idle", seconds(*bound));
  params.add("keepalives_interval", seconds(*bound / 3));
  params.add("keepalives_count", "3");
  params.add("tcp_user_timeout", ms);
  return params;
}

// Whether the server asked `conn` for a password it then refused, or that it did not have.
// Waiting mends a server that is starting or a network not up yet, never that: a wait would only
// add failed logins for its whole budget, and trip whatever locks out a role after them. The
// server's words are matched in English (lc_messages); in another language it is waited out.
bool password_refused(PGconn* conn) {
  return PQconnectionNeedsPassword(conn) == 1 ||
         (PQconnectionUsedPassword(conn) == 1 &&
          std::string_view(PQerrorMessage(conn)).find("password authentication failed") !=
              std::string_view::npos);
}

// Why `conn` did not connect: libpq's words, or the waiter's deadline it was given up at
// (neither made nor failed, connect_until left it unfinished).
std::string connect_failure(PGconn* conn) {
  if (PQstatus(conn) == CONNECTION_BAD) return redact(trimmed(PQerrorMessage(conn)));
  return "no answer before the wait's deadline: its budget ran out while connecting";
}

}  // namespace

// PostgreSQL never creates a database, and reads create no table: options.access changes
// nothing.
std::unique_ptr<Store> open_postgres_store(const Config& given, const ConnectionOptions& options) {
  std::string redacted = redact_uri(given.uri);
  Config config = given;
  config.uri = with_search_path_in_options(given.uri);
  check_uri(config.uri, redacted);
  std::optional<std::chrono::steady_clock::time_point> deadline = connect_deadline(config, options);
  PGconn* conn = connect_params(config, options, true).connect(deadline);
  // Poolers such as PgBouncer refuse the `options` startup parameter: there the lock
  // connection keeps its TCP bounds and the heartbeat's own deadline.
  if (conn != nullptr && PQstatus(conn) != CONNECTION_OK && options.statement_bound &&
      std::string_view(PQerrorMessage(conn)).find("unsupported startup parameter") !=
          std::string_view::npos) {
    PQfinish(conn);
    deadline = connect_deadline(config, options);
    conn = connect_params(config, options, false).connect(deadline);
  }
  if (conn == nullptr) {
    throw ConnectionFailedError("postgres: out of memory connecting to " + redacted,
                                {{"uri", redacted}});
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string reason = connect_failure(conn);
    nlohmann::json context = {{"uri", redacted}};
    if (password_refused(conn)) context[kLastingKey] = true;
    PQfinish(conn);
    throw ConnectionFailedError("postgres: cannot connect to " + redacted + ": " + reason,
                                std::move(context));
  }
  // Twice the server's own bound, and never under a second: the server's timeouts answer first
  // whenever it answers at all.
  std::optional<std::chrono::milliseconds> answer_bound;
  if (options.statement_bound) {
    answer_bound =
        std::max<std::chrono::milliseconds>(2 * *options.statement_bound, std::chrono::seconds(1));
  }
  return std::make_unique<PostgresStore>(config, conn, std::move(redacted), answer_bound);
}

}  // namespace migronaut

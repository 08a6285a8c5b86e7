#include "store/postgres/adopt.hpp"

#include <memory>

#include "migronaut/errors.hpp"
#include "store/history_sql.hpp"
#include "util/redact.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kUndefinedColumn = "42703";

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

std::string sqlstate(const PGresult* result) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  return state ? state : "";
}

std::string error_text(PGconn* conn, const PGresult* result) {
  const char* message = result ? PQresultErrorMessage(result) : "";
  std::string text = *message ? message : PQerrorMessage(conn);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return redact(text);
}

Result query(PGconn* conn, const std::string& sql, const std::vector<std::string>& params = {}) {
  std::vector<const char*> values;
  for (const std::string& param : params) values.push_back(param.c_str());
  return Result(PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.data(), nullptr, nullptr, 0));
}

void check(PGconn* conn, const PGresult* result, const std::string& what) {
  if (PQresultStatus(result) == PGRES_TUPLES_OK) return;
  const std::string message = "postgres: cannot " + what + ": " + error_text(conn, result);
  if (PQstatus(conn) == CONNECTION_BAD) throw ConnectionFailedError(message);
  throw Error(ErrorCode::kUnclassified, message, {{"sqlstate", sqlstate(result)}});
}

// Whether the relation (a quoted identifier) exists on the search path.
bool relation_exists(PGconn* conn, const std::string& identifier) {
  const Result result = query(conn, "SELECT to_regclass($1) IS NOT NULL", {identifier});
  check(conn, result.get(), "inspect the schema");
  return std::string_view(PQgetvalue(result.get(), 0, 0)) == "t";
}

bool has_column(PGconn* conn, const std::string& relation, const std::string& column) {
  const Result result = query(conn,
                              "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1)"
                              " AND attname = $2 AND NOT attisdropped",
                              {relation, column});
  check(conn, result.get(), "inspect the schema");
  return std::string_view(PQgetvalue(result.get(), 0, 0)) != "0";
}

// Flyway's installed_on is a timestamp without time zone, written in the session's zone.
std::string epoch_ms(std::string_view column) {
  return "CAST(EXTRACT(EPOCH FROM CAST(" + std::string(column) +
         " AS timestamptz)) * 1000 AS bigint)";
}

}  // namespace

std::optional<std::vector<ForeignRecord>> read_postgres_history(PGconn* conn, ForeignTool tool,
                                                                const std::string& table) {
  const std::optional<HistoryQuery> query_text = history_query(tool, table, epoch_ms);
  if (!query_text) throw_tool_unsupported(tool, "postgres");
  if (!relation_exists(conn, query_text->quoted)) return std::nullopt;
  if (!query_text->foreign_column.empty() &&
      has_column(conn, query_text->quoted, query_text->foreign_column)) {
    throw_another_tools_table(tool, *query_text);
  }
  const Result result = query(conn, query_text->select);
  if (sqlstate(result.get()) == kUndefinedColumn) {
    throw_not_the_tools_table(tool, query_text->table, error_text(conn, result.get()));
  }
  check(conn, result.get(), "read the " + query_text->table + " table");
  std::vector<ForeignRecord> records;
  for (int row = 0; row < PQntuples(result.get()); ++row) {
    records.push_back(foreign_record([&](int column) -> std::optional<std::string> {
      if (PQgetisnull(result.get(), row, column)) return std::nullopt;
      return std::string(PQgetvalue(result.get(), row, column));
    }));
  }
  return records;
}

StoreProbe probe_postgres(PGconn* conn, const std::string& changelog_table,
                          const std::string& lock_table, const std::string& status_index) {
  StoreProbe probe;
  probe.changelog_exists = relation_exists(conn, changelog_table);
  probe.lock_table_exists = relation_exists(conn, lock_table);
  if (probe.changelog_exists && !relation_exists(conn, status_index)) {
    probe.missing_indexes.push_back(status_index);
  }
  return probe;
}

}  // namespace migronaut

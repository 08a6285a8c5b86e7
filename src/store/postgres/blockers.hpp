// Who blocks a PostgreSQL migration. A statement waiting for a lock is asked about while it
// waits: once its lock timeout fires the wait is over and pg_blocking_pids() knows nothing. So a
// watched query runs asynchronously, and if it is still running halfway to its lock timeout a
// second connection asks pg_blocking_pids() about its backend, and pg_stat_activity who that is.
// The backend is found on the server by its application_name, unique to the session: behind a
// pooler (PgBouncer) the pid libpq was given is the pooler's key, no server backend's, while
// the pooler gives whichever server session runs the query the client's application_name.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace migronaut {

// Connects with migronaut's defaults (a connect timeout, application name "migronaut"), which
// the URI's own parameters override. The caller checks PQstatus and PQfinish-es it.
PGconn* connect_postgres(const std::string& uri);

// The blocking sessions seen while a watched query ran, each as read_session() reads it; empty
// when it was never blocked (or never long enough to be asked).
struct Watched {
  PGresult* result = nullptr;  // the first failed result, else the last; the caller PQclear-s it
  nlohmann::json blockers = nlohmann::json::array();
  // The statements of the query that completed before the first failure: the server runs them
  // in order and answers each that completes with a result of its own.
  std::size_t completed = 0;
};

// Runs `sql` on `conn`, asking about blockers through a connection to `uri` once `ask_after`
// has passed. `name` is the application_name that only `conn`'s session carries while `sql`
// runs; "" to find it by the pid libpq was given (the server's own on a direct connection).
Watched exec_watching_blockers(PGconn* conn, const std::string& sql, const std::string& uri,
                               std::string_view name, std::chrono::milliseconds ask_after);

// The columns of pg_stat_activity `a` that read_session() reads, in its order.
std::string session_columns_sql();

// The session in `row` of `result`, its columns (session_columns_sql()) from `first` on:
// {pid, application, user, state, seconds (how long in that state, or null), command}. Of its
// statement only the kind (statement_kind()) is kept: another session's text may hold a secret.
nlohmann::json read_session(const PGresult* result, int row, int first = 0);

// The leading keywords of an SQL statement, upper-cased, as a command tag names its kind:
// "ALTER ROLE" of "alter role app password 'x'", "SELECT" of "select 1"; "" when it starts with
// no word. Comments before it are skipped.
std::string statement_kind(std::string_view query);

// "pid 4242 (application 'psql', user 'app', idle in transaction for 3.2 s): LOCK TABLE".
std::string describe_blockers(const nlohmann::json& blockers);

}  // namespace migronaut

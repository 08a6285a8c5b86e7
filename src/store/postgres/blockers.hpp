// Who blocks a PostgreSQL migration. A statement waiting for a lock is asked about while it
// waits: once its lock timeout fires the wait is over and pg_blocking_pids() knows nothing. So a
// watched query runs asynchronously, and if it is still running halfway to its lock timeout a
// second connection asks pg_blocking_pids() about its backend, and pg_stat_activity who that is.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

namespace migronaut {

// Connects with migronaut's defaults (a connect timeout, application name "migronaut"), which
// the URI's own parameters override. The caller checks PQstatus and PQfinish-es it.
PGconn* connect_postgres(const std::string& uri);

// The blocking sessions seen while a watched query ran: [{pid, application, state,
// queryStart, query}], empty when it was never blocked (or never long enough to be asked).
struct Watched {
  PGresult* result = nullptr;  // the first failed result, else the last; the caller PQclear-s it
  nlohmann::json blockers = nlohmann::json::array();
};

// Runs `sql` on `conn`, asking about blockers through a connection to `uri` once `ask_after`
// has passed.
Watched exec_watching_blockers(PGconn* conn, const std::string& sql, const std::string& uri,
                               std::chrono::milliseconds ask_after);

// "pid 4242 (application psql, idle in transaction since 2026-…): SELECT …".
std::string describe_blockers(const nlohmann::json& blockers);

}  // namespace migronaut

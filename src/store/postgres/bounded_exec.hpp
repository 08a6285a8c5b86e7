// A query that waits for the server's answer no longer than a deadline. The lock's connection
// bounds its statements on the server (statement_timeout, lock_timeout) and its TCP path
// (keepalives, tcp_user_timeout), but a server that takes the query and never answers — a
// backend stopped or stuck, a proxy that hangs with the socket open — is seen by neither: the
// heartbeat's renewal would wait for ever, and the run's end with it.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <string>
#include <vector>

namespace migronaut {

// Keeps what PQexec() returns of a query's results, `result` (taken) among them: the first
// failed one, else the last.
void keep_result(PGresult*& kept, PGresult* result);

// Whether `result` is a failure (neither rows, a command's completion nor an empty query).
bool failed_result(const PGresult* result);

// PQexec(), or PQexecParams() with `params` or for results in binary (`binary`), giving up at
// `deadline`: the connection's socket is then shut down and `*timed_out` set; the connection is
// the caller's to open again (libpq may not have seen it end yet). Never null; the caller
// PQclear-s it.
PGresult* exec_until(PGconn* conn, const std::string& sql, const std::vector<std::string>& params,
                     bool binary, std::chrono::steady_clock::time_point deadline, bool* timed_out);

}  // namespace migronaut

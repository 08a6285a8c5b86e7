#include "store/postgres/bounded_exec.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>

namespace migronaut {
namespace {

using std::chrono::steady_clock;

// Waits for `events` on the connection's socket until `deadline`; false when it passed.
bool wait_for(PGconn* conn, short events, steady_clock::time_point deadline) {
  if (PQsocket(conn) < 0) return true;  // no socket: libpq reports the failure at once
  for (;;) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd socket{.fd = PQsocket(conn), .events = events, .revents = 0};
    const int ready = poll(&socket, 1, static_cast<int>(std::min<long long>(left, 60'000)));
    if (ready != 0) return true;  // ready, or an error PQconsumeInput/PQflush will report
  }
}

bool send_query(PGconn* conn, const std::string& sql, const std::vector<std::string>& params,
                bool binary) {
  if (params.empty() && !binary) return PQsendQuery(conn, sql.c_str()) != 0;
  std::vector<const char*> values;
  for (const std::string& param : params) values.push_back(param.c_str());
  return PQsendQueryParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                           values.data(), nullptr, nullptr, binary ? 1 : 0) != 0;
}

// Sends what libpq buffered and reads until a result is ready; false at the deadline.
bool await_result(PGconn* conn, steady_clock::time_point deadline) {
  for (int flushed = PQflush(conn); flushed == 1; flushed = PQflush(conn)) {
    if (!wait_for(conn, POLLOUT | POLLIN, deadline)) return false;
    if (PQconsumeInput(conn) == 0) return true;  // broken: PQgetResult reports it
  }
  while (PQisBusy(conn) != 0) {
    if (!wait_for(conn, POLLIN, deadline)) return false;
    if (PQconsumeInput(conn) == 0) return true;
  }
  return true;
}

}  // namespace

bool failed_result(const PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  return status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY;
}

void keep_result(PGresult*& kept, PGresult* result) {
  if (kept != nullptr && failed_result(kept)) {
    PQclear(result);
    return;
  }
  if (kept != nullptr) PQclear(kept);
  kept = result;
}

PGresult* exec_until(PGconn* conn, const std::string& sql, const std::vector<std::string>& params,
                     bool binary, steady_clock::time_point deadline, bool* timed_out) {
  *timed_out = false;
  if (!send_query(conn, sql, params, binary)) return PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
  PGresult* kept = nullptr;
  for (;;) {
    if (!await_result(conn, deadline)) {
      // No answer in time: what the server does with the query is no longer ours to wait for.
      *timed_out = true;
      shutdown(PQsocket(conn), SHUT_RDWR);
      PQconsumeInput(conn);  // reads what came, then the end of the stream
      while (PGresult* rest = PQgetResult(conn)) PQclear(rest);
      if (kept != nullptr) PQclear(kept);
      return PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
    }
    PGresult* result = PQgetResult(conn);
    if (result == nullptr) break;
    keep_result(kept, result);
  }
  return kept != nullptr ? kept : PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
}

}  // namespace migronaut

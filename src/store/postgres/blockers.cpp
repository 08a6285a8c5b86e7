#include "store/postgres/blockers.hpp"

#include <poll.h>

#include <memory>

namespace migronaut {
namespace {

// libpq's default is to wait forever for an unreachable host.
constexpr const char* kConnectTimeoutSeconds = "10";
constexpr auto kPollSlice = std::chrono::milliseconds(50);

// The sessions blocking backend `pid`, asked on a connection of its own.
nlohmann::json ask_blockers(const std::string& uri, int pid) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> side(connect_postgres(uri), &PQfinish);
  nlohmann::json blockers = nlohmann::json::array();
  if (!side || PQstatus(side.get()) != CONNECTION_OK) return blockers;
  const std::string pid_text = std::to_string(pid);
  const char* params[] = {pid_text.c_str()};
  std::unique_ptr<PGresult, decltype(&PQclear)> result(
      PQexecParams(side.get(),
                   "SELECT pid, coalesce(application_name, ''), coalesce(state, ''),"
                   " coalesce(to_char(query_start, 'YYYY-MM-DD\"T\"HH24:MI:SS.MSOF'), ''),"
                   " left(coalesce(query, ''), 200)"
                   " FROM pg_stat_activity WHERE pid = ANY(pg_blocking_pids($1::int))"
                   " ORDER BY pid",
                   1, nullptr, params, nullptr, nullptr, 0),
      &PQclear);
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) return blockers;
  for (int row = 0; row < PQntuples(result.get()); ++row) {
    blockers.push_back({{"pid", std::stoll(PQgetvalue(result.get(), row, 0))},
                        {"application", PQgetvalue(result.get(), row, 1)},
                        {"state", PQgetvalue(result.get(), row, 2)},
                        {"queryStart", PQgetvalue(result.get(), row, 3)},
                        {"query", PQgetvalue(result.get(), row, 4)}});
  }
  return blockers;
}

bool failed(const PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  return status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY;
}

}  // namespace

PGconn* connect_postgres(const std::string& uri) {
  const char* keys[] = {"connect_timeout", "fallback_application_name", "dbname", nullptr};
  const char* values[] = {kConnectTimeoutSeconds, "migronaut", uri.c_str(), nullptr};
  return PQconnectdbParams(keys, values, /*expand_dbname=*/1);
}

Watched exec_watching_blockers(PGconn* conn, const std::string& sql, const std::string& uri,
                               std::chrono::milliseconds ask_after) {
  Watched watched;
  if (PQsendQuery(conn, sql.c_str()) == 0) {
    watched.result = PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
    return watched;
  }
  const auto ask_at = std::chrono::steady_clock::now() + ask_after;
  bool asked = false;
  while (true) {
    while (PQisBusy(conn) != 0) {
      pollfd socket{.fd = PQsocket(conn), .events = POLLIN, .revents = 0};
      const int ready = poll(&socket, 1, static_cast<int>(kPollSlice.count()));
      if (ready > 0 && PQconsumeInput(conn) == 0) break;  // the connection is gone
      if (!asked && std::chrono::steady_clock::now() >= ask_at) {
        watched.blockers = ask_blockers(uri, PQbackendPID(conn));
        asked = true;
      }
    }
    PGresult* result = PQgetResult(conn);
    if (result == nullptr) break;
    if (watched.result == nullptr || (failed(result) && !failed(watched.result))) {
      if (watched.result != nullptr) PQclear(watched.result);
      watched.result = result;
    } else if (!failed(watched.result)) {
      PQclear(watched.result);
      watched.result = result;
    } else {
      PQclear(result);
    }
  }
  if (watched.result == nullptr) watched.result = PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
  return watched;
}

std::string describe_blockers(const nlohmann::json& blockers) {
  if (blockers.empty()) return "a session that was not identified in time";
  std::string text;
  for (const nlohmann::json& blocker : blockers) {
    if (!text.empty()) text += "; ";
    text += "pid " + std::to_string(blocker["pid"].get<long long>()) + " (application '" +
            blocker["application"].get<std::string>() + "', " +
            blocker["state"].get<std::string>() + " since " +
            blocker["queryStart"].get<std::string>() + "): " + blocker["query"].get<std::string>();
  }
  return text;
}

}  // namespace migronaut

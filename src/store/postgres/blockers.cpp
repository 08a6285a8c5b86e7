#include "store/postgres/blockers.hpp"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <set>

#include "store/postgres/bounded_exec.hpp"

namespace migronaut {
namespace {

// libpq's default is to wait forever for an unreachable host.
constexpr const char* kConnectTimeoutSeconds = "10";
constexpr auto kPollSlice = std::chrono::milliseconds(50);

// The sessions blocking the session of `conn`, asked on a connection of its own to `uri`: the
// backend of the pid libpq was given (a direct connection's), or the one whose name ends with
// the run's tag that `name` ends with (behind a pooler, whose pid that is not; the tag alone, as
// a migration may have set a name of its own before it).
nlohmann::json ask_blockers(const std::string& uri, const PGconn* conn, std::string_view name) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> side(connect_postgres(uri), &PQfinish);
  nlohmann::json blockers = nlohmann::json::array();
  if (!side || PQstatus(side.get()) != CONNECTION_OK) return blockers;
  const std::string pid = std::to_string(PQbackendPID(conn));
  const std::string tag(name.substr(name.rfind(' ') + 1));
  const char* params[] = {pid.c_str(), tag.c_str()};
  // By name, only a backend that waits has blockers: the pooler's server sessions that ran the
  // session's earlier transactions keep its name while they idle.
  const std::string sql =
      "SELECT " + session_columns_sql() +
      " FROM pg_stat_activity a WHERE a.pid IN (SELECT unnest(pg_blocking_pids(w.pid))"
      " FROM pg_stat_activity w WHERE w.pid = $1::int" +
      (tag.empty() ? "" : " OR right(w.application_name, length($2)) = $2") + ") ORDER BY a.pid";
  std::unique_ptr<PGresult, decltype(&PQclear)> result(
      PQexecParams(side.get(), sql.c_str(), tag.empty() ? 1 : 2, nullptr, params, nullptr, nullptr,
                   0),
      &PQclear);
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) return blockers;
  for (int row = 0; row < PQntuples(result.get()); ++row) {
    blockers.push_back(read_session(result.get(), row));
  }
  return blockers;
}

bool is_word_char(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// `text` from `at` on, past whitespace and comments ("-- …" to the line's end, "/* … */").
std::size_t skip_space_and_comments(std::string_view text, std::size_t at) {
  while (at < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[at])) != 0) {
      ++at;
    } else if (text.substr(at, 2) == "--") {
      at = std::min(text.size(), text.find('\n', at));
    } else if (text.substr(at, 2) == "/*") {
      const std::size_t end = text.find("*/", at + 2);
      at = end == std::string_view::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return at;
}

// The word at `at` (letters and underscores), upper-cased; "" when none starts there.
std::string word_at(std::string_view text, std::size_t at) {
  std::string word;
  for (; at < text.size() && is_word_char(text[at]); ++at) {
    word.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(text[at]))));
  }
  return word;
}

// "pid 4242 (application 'psql', user 'app', active for 3.2 s): LOCK TABLE".
std::string describe_session(const nlohmann::json& session) {
  std::string text =
      fmt::format("pid {} (application '{}', user '{}', {}", session["pid"].get<long long>(),
                  session["application"].get<std::string>(), session["user"].get<std::string>(),
                  session["state"].get<std::string>());
  if (session["seconds"].is_number()) {
    text += fmt::format(" for {:.1f} s", session["seconds"].get<double>());
  }
  const std::string command = session["command"].get<std::string>();
  return text + ")" + (command.empty() ? "" : ": " + command);
}

// A COPY through the client that a script check let by (check_script() refuses those it
// parses) would hold the connection in its copy state for ever: one from STDIN is ended with an
// error, which fails the statement; what one to STDOUT sends is read and dropped.
bool end_client_copy(PGconn* conn, PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COPY_IN && status != PGRES_COPY_OUT && status != PGRES_COPY_BOTH) {
    return false;
  }
  PQclear(result);
  if (status == PGRES_COPY_OUT) {
    char* row = nullptr;
    while (PQgetCopyData(conn, &row, /*async=*/0) > 0) PQfreemem(row);
  } else {
    PQputCopyEnd(conn, "migronaut sends no rows to a COPY through the client");
  }
  return true;
}

}  // namespace

PGconn* connect_postgres(const std::string& uri) {
  const char* keys[] = {"connect_timeout", "fallback_application_name", "dbname", nullptr};
  const char* values[] = {kConnectTimeoutSeconds, "migronaut", uri.c_str(), nullptr};
  return PQconnectdbParams(keys, values, /*expand_dbname=*/1);
}

Watched exec_watching_blockers(PGconn* conn, const std::string& sql, const std::string& uri,
                               std::string_view name, std::chrono::milliseconds ask_after) {
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
        watched.blockers = ask_blockers(uri, conn, name);
        asked = true;
      }
    }
    PGresult* result = PQgetResult(conn);
    if (result == nullptr) break;
    if (end_client_copy(conn, result)) continue;
    if (!failed_result(result) && (watched.result == nullptr || !failed_result(watched.result))) {
      ++watched.completed;
    }
    keep_result(watched.result, result);
  }
  if (watched.result == nullptr) watched.result = PQmakeEmptyPGresult(conn, PGRES_FATAL_ERROR);
  return watched;
}

std::string session_columns_sql() {
  return "a.pid, coalesce(a.application_name, ''), coalesce(a.usename::text, ''),"
         " coalesce(a.state, 'unknown state'),"
         " round(extract(epoch FROM clock_timestamp() - a.state_change)::numeric, 1)::text,"
         " left(coalesce(a.query, ''), 1000)";
}

nlohmann::json read_session(const PGresult* result, int row, int first) {
  const auto cell = [&](int column) {
    return std::string(PQgetvalue(result, row, first + column));
  };
  const std::string in_state = cell(4);
  double seconds = 0;
  const bool timed =
      std::from_chars(in_state.data(), in_state.data() + in_state.size(), seconds).ec ==
      std::errc();
  return {{"pid", std::stoll(cell(0))},
          {"application", cell(1)},
          {"user", cell(2)},
          {"state", cell(3)},
          {"seconds", timed ? nlohmann::json(seconds) : nlohmann::json(nullptr)},
          {"command", statement_kind(cell(5))}};
}

std::string statement_kind(std::string_view query) {
  // Verbs whose command tag also names the kind of object: ALTER ROLE, LOCK TABLE.
  static const std::set<std::string, std::less<>> kVerbsWithObject = {"ALTER", "CREATE", "DROP",
                                                                      "LOCK"};
  const std::size_t start = skip_space_and_comments(query, 0);
  std::string kind = word_at(query, start);
  if (!kVerbsWithObject.contains(kind)) return kind;
  const std::size_t next = skip_space_and_comments(query, start + kind.size());
  const std::string object = word_at(query, next);
  return object.empty() ? kind : kind + " " + object;
}

std::string describe_blockers(const nlohmann::json& blockers) {
  if (blockers.empty()) return "a session that was not identified in time";
  std::string text;
  for (const nlohmann::json& blocker : blockers) {
    text += (text.empty() ? "" : "; ") + describe_session(blocker);
  }
  return text;
}

}  // namespace migronaut

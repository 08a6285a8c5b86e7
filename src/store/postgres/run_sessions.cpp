#include "store/postgres/run_sessions.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "store/postgres/blockers.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kDefaultApplicationName = "migronaut";
constexpr std::size_t kMaxApplicationName = 63;  // NAMEDATALEN - 1
constexpr std::size_t kRunIdPart = 8;            // as the logs show a run id
constexpr int kTerminatedColumn = 6;             // after the session's (session_columns_sql())

}  // namespace

std::string run_session_tag(std::string_view run_id) {
  return std::string(kDefaultApplicationName) + ":" + std::string(run_id.substr(0, kRunIdPart));
}

std::string run_application_name(std::string_view base, std::string_view run_id) {
  const std::string tag = run_session_tag(run_id);
  if (base.empty() || base == kDefaultApplicationName) return tag;
  std::size_t cut = std::min(base.size(), kMaxApplicationName - 1 - tag.size());
  // Not inside a UTF-8 character, which would make the name no text (a URI may set any).
  while (cut > 0 && cut < base.size() && (static_cast<unsigned char>(base[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return std::string(base.substr(0, cut)) + " " + tag;
}

std::string run_sessions_sql() {
  // CASE, not AND: only CASE promises not to call pg_terminate_backend where it would fail
  // the whole query with insufficient_privilege. A session of a role the asker may not watch
  // shows its application_name but no state or backend_type: it counts, as still at work.
  return "SELECT " + session_columns_sql() +
         ", CASE WHEN $2::bool AND (pg_has_role(a.usesysid, 'USAGE') OR"
         " (pg_has_role('pg_signal_backend', 'USAGE') AND NOT coalesce(r.rolsuper, true)))"
         " THEN pg_terminate_backend(a.pid) ELSE false END"
         " FROM pg_stat_activity a LEFT JOIN pg_roles r ON r.oid = a.usesysid"
         " WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()"
         " AND coalesce(a.backend_type, 'client backend') = 'client backend'"
         " AND a.state IS DISTINCT FROM 'idle'"
         " AND right(a.application_name, length($1)) = $1 ORDER BY a.pid";
}

LeftSessions read_run_sessions(const PGresult* result) {
  LeftSessions left;
  left.ending = PQntuples(result) > 0;
  for (int row = 0; row < PQntuples(result); ++row) {
    left.sessions.push_back(describe_blockers(nlohmann::json::array({read_session(result, row)})));
    left.ending =
        left.ending && std::string_view(PQgetvalue(result, row, kTerminatedColumn)) == "t";
  }
  return left;
}

}  // namespace migronaut

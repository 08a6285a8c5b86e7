// The server sessions of one run. A statement outside a transaction runs on after its client
// is killed — the server notices only when it sends the result — so a run re-running what a
// dead run left `applying` first looks for that run's sessions by their application_name,
// which carries a tag of the run id: pids would not do behind a pooler, whose server
// connections serve many clients, while PgBouncer re-applies each client's application_name to
// whatever server connection runs its statement.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <string_view>

#include "store/store.hpp"

namespace migronaut {

// "migronaut:1a2b3c4d": what every application_name of run `run_id` ends with.
std::string run_session_tag(std::string_view run_id);

// The application_name of a session working for run `run_id`: the tag after `base` (the name
// the connection opened with, cut to fit PostgreSQL's 63 bytes), the tag alone when `base` is
// migronaut's own default.
std::string run_application_name(std::string_view base, std::string_view run_id);

// The query for a run's sessions still at work (any state but idle), other than the asking
// one: $1 the run's tag, $2 whether to terminate those the asking role may signal (its own
// role's, or any but a superuser's with pg_signal_backend). Rows: the session
// (session_columns_sql()), then whether it was terminated.
std::string run_sessions_sql();

// The sessions in a result of run_sessions_sql().
LeftSessions read_run_sessions(const PGresult* result);

}  // namespace migronaut

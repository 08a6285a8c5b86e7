// The bookkeeping of a migration's round trip (its changelog record, the fence), prepared on the
// server once per session. Parsing and planning those two statements costs the server more than
// a small migration's own work: about 0.15 of each migration's 0.3 ms. The round trip stays one
// message of plain SQL: PREPARE where a statement is new to the session, then EXECUTE.
//
// A message may reach a session that never saw the statements: a pooler in transaction mode
// hands each transaction to any of its server sessions, and a script may DEALLOCATE. A message
// that relies on statements an earlier one prepared therefore runs a probe first in its
// transaction, prepared beside the first of them: it fails before the migration's own work
// when the session is another, and the store goes on without prepared statements.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace migronaut {

class SessionStatements {
 public:
  // `prefix` names the statements (a PostgreSQL identifier), unique to one connection.
  explicit SessionStatements(std::string prefix) : prefix_(std::move(prefix)) {}

  bool in_use() const { return in_use_; }
  // After a session lacked one of them: the rest of the connection sends its SQL whole.
  void stop_using() { in_use_ = false; }

  // The text that runs `sql` (one statement, its values as $1, $2 …) with `arguments` (SQL
  // literals) in the next message. Its PREPARE is appended to `prepares` when the session does
  // not hold the statement yet.
  std::string run(const std::string& sql, const std::vector<std::string>& arguments,
                  std::string& prepares);
  // The probe to run first in the message's transaction when the message relies on statements
  // an earlier one prepared, else "". The first message that prepares any also prepares it.
  std::string probe(std::string& prepares);
  // Once the message is answered: what it prepared is the session's when it succeeded, else
  // given up (it may or may not exist) and prepared again under a new name when needed.
  void settle(bool succeeded);
  // A new session (a reconnection) holds none of them.
  void forget();

  // Whether a failed message failed because the session lacked one of these statements.
  bool lacked_one(std::string_view sqlstate, std::string_view message) const;

 private:
  std::string next_name();

  std::string prefix_;
  bool in_use_ = true;
  int named_ = 0;
  std::map<std::string, std::string> held_;                     // SQL → name, in the session
  std::vector<std::pair<std::string, std::string>> preparing_;  // by the message in flight
  bool relies_ = false;  // the message in flight runs statements of earlier messages
};

}  // namespace migronaut

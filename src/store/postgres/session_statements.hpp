// The bookkeeping of a migration's round trip (its changelog record, the fence), prepared on the
// server once per session. Parsing and planning those two statements costs the server more than
// a small migration's own work: about 0.17 of each migration's 0.3 ms. The round trip stays one
// message of plain SQL: PREPARE where a statement is new to the session, then EXECUTE.
//
// A message may reach a session that lacks the statements: a pooler in transaction mode hands
// each transaction to any of its server sessions. Every message after the first that prepared
// any therefore runs a probe first in its transaction, prepared beside them: in another session
// it fails before the migration's own work, and the store goes on without prepared statements.
// A script that DEALLOCATEs them fails its own transaction instead, after its work; the store
// then runs the migration again whole, once, so what outlives a rollback (a sequence's nextval)
// happens twice.
//
// One message at a time: begin_message(), call() for each statement, probe(), prepares(), then
// settle() once the message is answered.
#pragma once

#include <map>
#include <optional>
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

  // Starts the text of a message, forgetting whatever a message left unsettled (one whose text
  // could not be made).
  void begin_message();
  // The text that calls `sql` (one statement, its values as $1, $2 …) with `arguments` (SQL
  // literals): EXECUTE, the statement prepared by this message where the session lacks it.
  std::string call(const std::string& sql, const std::vector<std::string>& arguments);
  // What runs first in the message's transaction: EXECUTE of the probe when the session holds
  // statements of earlier messages, else "" (the probe is then prepared with this message's).
  std::string probe();
  // The message's PREPAREs, to run before its EXECUTEs; a PREPARE outlives a rolled-back
  // transaction, so they may follow the migration's own work.
  std::string prepares() const;
  // Once the message is answered: what it prepared is the session's when it succeeded, else
  // given up (it may or may not exist), to be prepared again under a new name when needed.
  void settle(bool succeeded);
  // A new session (a reconnection) holds none of them.
  void forget();

  // Whether a failed message failed because the session lacked one of these statements.
  bool lacked_one(std::string_view sqlstate, std::string_view message) const;

 private:
  std::string prepare(const std::string& sql);

  std::string prefix_;
  bool in_use_ = true;
  int named_ = 0;
  std::map<std::string, std::string> held_;  // SQL → name, in the session
  std::optional<std::string> probe_;         // its name, once the session holds it
  std::vector<std::pair<std::string, std::string>> preparing_;  // by this message: SQL, name
};

}  // namespace migronaut

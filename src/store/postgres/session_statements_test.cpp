#include "store/postgres/session_statements.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

constexpr const char* kRecord = "INSERT INTO log (name) VALUES ($1)";
constexpr const char* kFence = "UPDATE lock SET step = $1";

// One message: its calls, then its probe and its PREPAREs, as the store puts them together.
struct Message {
  std::vector<std::string> calls;
  std::string probe;
  std::string prepares;
};

Message message(SessionStatements& statements,
                const std::vector<std::pair<const char*, std::vector<std::string>>>& calls) {
  Message made;
  statements.begin_message();
  for (const auto& [sql, arguments] : calls) made.calls.push_back(statements.call(sql, arguments));
  made.probe = statements.probe();
  made.prepares = statements.prepares();
  return made;
}

TEST(SessionStatementsTest, TheFirstMessagePreparesWhatItCallsAndTheProbe) {
  SessionStatements statements("mn_ab");
  const Message first = message(statements, {{kRecord, {"'one'"}}, {kFence, {"'1'"}}});
  EXPECT_EQ(first.calls,
            (std::vector<std::string>{"EXECUTE mn_ab_1('one')", "EXECUTE mn_ab_2('1')"}));
  EXPECT_EQ(first.probe, "");  // nothing earlier to vouch for
  EXPECT_EQ(first.prepares,
            "PREPARE mn_ab_1 AS INSERT INTO log (name) VALUES ($1);\n"
            "PREPARE mn_ab_2 AS UPDATE lock SET step = $1;\n"
            "PREPARE mn_ab_3 AS SELECT 1;\n");
}

TEST(SessionStatementsTest, EveryLaterMessageRunsTheProbe) {
  SessionStatements statements("mn_ab");
  message(statements, {{kRecord, {"'one'"}}});
  statements.settle(true);

  const Message second = message(statements, {{kRecord, {"'two'"}}, {kFence, {"'2'", "'x'"}}});
  EXPECT_EQ(second.calls,
            (std::vector<std::string>{"EXECUTE mn_ab_1('two')", "EXECUTE mn_ab_3('2', 'x')"}));
  EXPECT_EQ(second.probe, "EXECUTE mn_ab_2;\n");
  EXPECT_EQ(second.prepares, "PREPARE mn_ab_3 AS UPDATE lock SET step = $1;\n");
  statements.settle(true);

  // Even one that only prepares: its statements must land in the session of the earlier ones.
  const Message third = message(statements, {{"DELETE FROM log", {}}});
  EXPECT_EQ(third.probe, "EXECUTE mn_ab_2;\n");
  EXPECT_EQ(third.prepares, "PREPARE mn_ab_4 AS DELETE FROM log;\n");
}

TEST(SessionStatementsTest, WhatAFailedMessagePreparedIsPreparedAgainUnderANewName) {
  SessionStatements statements("mn_ab");
  message(statements, {{kRecord, {}}});
  statements.settle(false);

  const Message again = message(statements, {{kRecord, {}}});
  EXPECT_EQ(again.calls, std::vector<std::string>{"EXECUTE mn_ab_3"});
  EXPECT_EQ(again.probe, "");
  EXPECT_EQ(again.prepares,
            "PREPARE mn_ab_3 AS INSERT INTO log (name) VALUES ($1);\n"
            "PREPARE mn_ab_4 AS SELECT 1;\n");
}

// A message whose text could not be made (a value that cannot be quoted) is never sent: the
// next one prepares what it would have, rather than call a name nobody prepared.
TEST(SessionStatementsTest, AMessageNeverSentLeavesNothingBehind) {
  SessionStatements statements("mn_ab");
  statements.begin_message();
  statements.call(kRecord, {"'one'"});

  const Message next = message(statements, {{kRecord, {"'two'"}}});
  EXPECT_EQ(next.calls, std::vector<std::string>{"EXECUTE mn_ab_2('two')"});
  EXPECT_NE(next.prepares.find("PREPARE mn_ab_2 AS INSERT"), std::string::npos) << next.prepares;
}

TEST(SessionStatementsTest, ANewSessionHoldsNone) {
  SessionStatements statements("mn_ab");
  message(statements, {{kRecord, {}}});
  statements.settle(true);
  statements.forget();

  const Message next = message(statements, {{kRecord, {}}});
  EXPECT_EQ(next.probe, "");
  EXPECT_NE(next.prepares.find("PREPARE mn_ab_3 AS INSERT"), std::string::npos) << next.prepares;
}

TEST(SessionStatementsTest, OnlyAMissingStatementOfItsOwnIsALackedOne) {
  const SessionStatements statements("mn_ab");
  EXPECT_TRUE(statements.lacked_one("26000", "prepared statement \"mn_ab_2\" does not exist"));
  EXPECT_FALSE(statements.lacked_one("26000", "prepared statement \"mine\" does not exist"));
  EXPECT_FALSE(statements.lacked_one("42P01", "relation \"mn_ab_2\" does not exist"));
}

}  // namespace
}  // namespace migronaut

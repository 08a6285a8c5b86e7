#include "store/postgres/session_statements.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

constexpr const char* kRecord = "INSERT INTO log (name) VALUES ($1)";
constexpr const char* kFence = "UPDATE lock SET step = $1";

TEST(SessionStatementsTest, TheFirstMessagePreparesWhatItRunsAndTheProbe) {
  SessionStatements statements("mn_ab");
  std::string prepares;
  EXPECT_EQ(statements.run(kRecord, {"'one'"}, prepares), "EXECUTE mn_ab_1('one')");
  EXPECT_EQ(statements.run(kFence, {"'1'"}, prepares), "EXECUTE mn_ab_2('1')");
  EXPECT_EQ(statements.probe(prepares), "");  // nothing earlier to vouch for
  EXPECT_EQ(prepares,
            "PREPARE mn_ab_1 AS INSERT INTO log (name) VALUES ($1);\n"
            "PREPARE mn_ab_2 AS UPDATE lock SET step = $1;\n"
            "PREPARE mn_ab_3 AS SELECT 1;\n");
}

TEST(SessionStatementsTest, LaterMessagesExecuteWhatTheSessionHoldsAfterTheProbe) {
  SessionStatements statements("mn_ab");
  std::string prepares;
  statements.run(kRecord, {"'one'"}, prepares);
  statements.probe(prepares);
  statements.settle(true);

  prepares.clear();
  EXPECT_EQ(statements.run(kRecord, {"'two'"}, prepares), "EXECUTE mn_ab_1('two')");
  EXPECT_EQ(statements.run(kFence, {"'2'", "'x'"}, prepares), "EXECUTE mn_ab_3('2', 'x')");
  EXPECT_EQ(statements.probe(prepares), "EXECUTE mn_ab_2;\n");
  EXPECT_EQ(prepares, "PREPARE mn_ab_3 AS UPDATE lock SET step = $1;\n");
}

TEST(SessionStatementsTest, WhatAFailedMessagePreparedIsPreparedAgainUnderANewName) {
  SessionStatements statements("mn_ab");
  std::string prepares;
  statements.run(kRecord, {}, prepares);
  statements.probe(prepares);
  statements.settle(false);

  prepares.clear();
  EXPECT_EQ(statements.run(kRecord, {}, prepares), "EXECUTE mn_ab_3");
  EXPECT_EQ(statements.probe(prepares), "");
  EXPECT_EQ(prepares,
            "PREPARE mn_ab_3 AS INSERT INTO log (name) VALUES ($1);\n"
            "PREPARE mn_ab_4 AS SELECT 1;\n");
}

TEST(SessionStatementsTest, ANewSessionHoldsNone) {
  SessionStatements statements("mn_ab");
  std::string prepares;
  statements.run(kRecord, {}, prepares);
  statements.probe(prepares);
  statements.settle(true);
  statements.forget();

  prepares.clear();
  statements.run(kRecord, {}, prepares);
  EXPECT_EQ(statements.probe(prepares), "");
  EXPECT_NE(prepares.find("PREPARE mn_ab_3 AS INSERT"), std::string::npos) << prepares;
}

TEST(SessionStatementsTest, OnlyAMissingStatementOfItsOwnIsALackedOne) {
  const SessionStatements statements("mn_ab");
  EXPECT_TRUE(statements.lacked_one("26000", "prepared statement \"mn_ab_2\" does not exist"));
  EXPECT_FALSE(statements.lacked_one("26000", "prepared statement \"mine\" does not exist"));
  EXPECT_FALSE(statements.lacked_one("42P01", "relation \"mn_ab_2\" does not exist"));
}

}  // namespace
}  // namespace migronaut

// The library's Migrator on PostgreSQL, reused across calls as a service keeps it: what one
// migration sets for its session, and a connection the server dropped while idle, do not reach
// the next call.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "migronaut/errors.hpp"
#include "migronaut/migrator.hpp"
#include "support/eventually.hpp"
#include "support/null_logger.hpp"
#include "support/pg_cluster.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

class PgMigratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = test_schema("pgm_");
    admin_uri_ = PgCluster::run_wide().fresh_schema_uri("postgres", schema_);
    other_ = schema_ + "_other";
    lowly_ = schema_ + "_lowly";
    value("DROP SCHEMA IF EXISTS " + other_ + " CASCADE; DROP ROLE IF EXISTS " + lowly_ +
          "; CREATE ROLE " + lowly_ + "; GRANT " + lowly_ + " TO CURRENT_USER; GRANT USAGE, " +
          "CREATE ON SCHEMA " + schema_ + " TO " + lowly_);
    config_.uri = admin_uri_ + "&application_name=" + schema_;
    config_.migrations_dir = dir_.path();
    options_.logger = std::make_shared<NullLogger>();
  }

  std::string value(const std::string& sql) const {
    return pg_query_value(admin_uri_, sql).value_or("<null>");
  }
  // "name:state,…" as status() shows them.
  static std::string states(const std::vector<StatusRow>& rows) {
    std::string text;
    for (const StatusRow& row : rows) {
      text +=
          (text.empty() ? "" : ",") + row.name + ":" + std::string(migration_state_name(row.state));
    }
    return text;
  }
  // The Migrator's own sessions, by the application name its URI gives them: its start, as a
  // session that ran migrations cuts it to fit the run's tag after it.
  std::string sessions_where(const std::string& condition) const {
    return "FROM pg_stat_activity WHERE application_name LIKE '" + schema_.substr(0, 40) +
           "%' AND pid <> pg_backend_pid() AND " + condition;
  }
  void terminate_sessions(const std::string& condition) const {
    value("SELECT count(pg_terminate_backend(pid)) " + sessions_where(condition));
    ASSERT_TRUE(
        eventually([&] { return value("SELECT count(*) " + sessions_where(condition)) == "0"; }));
  }

  TempDir dir_{"migronaut-pg-migrator"};
  std::string schema_;
  std::string admin_uri_;
  std::string other_;
  std::string lowly_;
  Config config_;
  MigratorOptions options_;
};

constexpr const char* kUsers = "0001-users.sql";
constexpr const char* kSecond = "0002-second.sql";
constexpr const char* kThird = "0003-third.sql";

// A session-level SET search_path (not LOCAL) in a migration: the same Migrator still finds its
// changelog afterwards, and applies nothing twice.
TEST_F(PgMigratorTest, AMigrationsSearchPathDoesNotOutliveIt) {
  dir_.write(kUsers, "-- migrate:up\nCREATE TABLE users (id bigint);\n");
  dir_.write(kSecond, "-- migrate:up\nCREATE SCHEMA " + other_ + ";\nSET search_path TO " + other_ +
                          ";\nCREATE TABLE daily (d date);\n");
  Migrator migrator(config_, options_);
  EXPECT_EQ(migrator.up().size(), 2u);
  EXPECT_EQ(states(migrator.status()), "0001-users.sql:applied,0002-second.sql:applied");
  EXPECT_TRUE(migrator.up().empty());
  EXPECT_EQ(value("SELECT to_regclass('" + other_ + ".daily') IS NOT NULL"), "t");
  EXPECT_EQ(value("SELECT count(*) FROM " + schema_ + "._migronaut_migrations"), "2");
}

// A session-level SET ROLE: the next migration runs, and the changelog is read, as the
// connection's own role.
TEST_F(PgMigratorTest, AMigrationsRoleDoesNotOutliveIt) {
  dir_.write(kUsers, "-- migrate:up\nSET ROLE " + lowly_ + ";\nCREATE TABLE users (id bigint);\n");
  dir_.write(kSecond, "-- migrate:up\nCREATE TABLE orders (id bigint);\n");
  Migrator migrator(config_, options_);
  EXPECT_EQ(migrator.up().size(), 2u);
  EXPECT_EQ(states(migrator.status()), "0001-users.sql:applied,0002-second.sql:applied");
  EXPECT_TRUE(migrator.up().empty());
  EXPECT_EQ(value("SELECT tableowner FROM pg_tables WHERE tablename = 'users' AND schemaname = '" +
                  schema_ + "'"),
            lowly_);
  EXPECT_EQ(value("SELECT tableowner = current_user FROM pg_tables WHERE tablename = 'orders' "
                  "AND schemaname = '" +
                  schema_ + "'"),
            "t");
}

// Outside a transaction nothing rolls back what a failing section set, and a failed `down`
// writes no record after it that would reset it (its `reverting` mark went before): the next
// read still finds the changelog, and the mark.
TEST_F(PgMigratorTest, AFailedDownOutsideATransactionLeavesNoSetting) {
  dir_.write(kUsers, "-- migrate:up transaction:false\nCREATE SCHEMA " + other_ +
                         ";\n-- migrate:down\nSET search_path TO " + other_ + ";\nSELECT 1 / 0;\n");
  Migrator migrator(config_, options_);
  EXPECT_EQ(migrator.up().size(), 1u);
  EXPECT_THROW(migrator.down(), MigrationExecutionFailedError);
  EXPECT_EQ(states(migrator.status()), "0001-users.sql:half-reverted");
}

// A connection the server closed while the Migrator sat idle (a restart, a pooler's idle
// timeout) is reopened by the next call, the lock's included.
TEST_F(PgMigratorTest, ConnectionsDroppedWhileIdleAreReopened) {
  dir_.write(kUsers, "-- migrate:up\nCREATE TABLE users (id bigint);\n");
  Migrator migrator(config_, options_);
  EXPECT_EQ(migrator.up().size(), 1u);
  terminate_sessions("true");
  EXPECT_EQ(states(migrator.status()), "0001-users.sql:applied");

  dir_.write(kSecond, "-- migrate:up\nCREATE TABLE orders (id bigint);\n");
  terminate_sessions("true");
  EXPECT_EQ(migrator.up().size(), 1u);
}

// A read whose connection is dropped under it is sent once more on a new one.
TEST_F(PgMigratorTest, AReadCutShortByADroppedConnectionIsReadAgain) {
  dir_.write(kUsers, "-- migrate:up\nCREATE TABLE users (id bigint);\n");
  Migrator migrator(config_, options_);
  EXPECT_EQ(migrator.up().size(), 1u);
  dir_.write(kThird, "-- migrate:up\nSELECT 1;\n");

  PgSession blocker(admin_uri_);
  blocker.value("BEGIN; LOCK TABLE _migronaut_migrations IN ACCESS EXCLUSIVE MODE");
  std::future<std::vector<StatusRow>> read =
      std::async(std::launch::async, [&] { return migrator.status(); });
  const std::string waiting = "wait_event_type = 'Lock'";
  ASSERT_TRUE(
      eventually([&] { return value("SELECT count(*) " + sessions_where(waiting)) == "1"; }));
  // Gone before the lock is free, so the read cannot have ended on its first connection.
  terminate_sessions("pid = " + value("SELECT pid " + sessions_where(waiting)));
  blocker.value("ROLLBACK");
  ASSERT_EQ(read.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(states(read.get()), "0001-users.sql:applied,0003-third.sql:pending");
}

}  // namespace
}  // namespace migronaut::testing

// The real binary through a real PgBouncer in transaction pooling mode — where session state
// does not survive a transaction, so the lock must live in the lock row alone: twenty
// instances booting at once with `up --wait` apply each migration once and leave no lock.
#include "support/pgbouncer.hpp"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "support/pg_cluster.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace migronaut::testing {
namespace {

constexpr const char* kDatabase = "through_pgbouncer";

int count(const std::string& uri, const std::string& sql) {
  return std::stoi(pg_query_value(uri, sql).value_or("-1"));
}

TEST(PgBouncerTest, TwentyWaitingRunsThroughTransactionPoolingApplyEachMigrationOnce) {
  if (!PgBouncer::binary()) GTEST_SKIP() << "pgbouncer is not installed (scripts/install-deps)";
  PgCluster& cluster = PgCluster::shared();
  cluster.drop_database(kDatabase);
  cluster.create_database(kDatabase);
  PgBouncer bouncer(cluster, "transaction");

  TempDir dir("migronaut-pgbouncer-project");
  dir.write("20260101000001-log.sql",
            "-- migrate:up\nCREATE TABLE log (name text NOT NULL);\n"
            "INSERT INTO log (name) VALUES ('one');\n");
  // Long enough that the others find the lock held and wait.
  dir.write("20260101000002-slow.sql",
            "-- migrate:up\nSELECT pg_sleep(0.5);\nINSERT INTO log (name) VALUES ('two');\n");
  dir.write("20260101000003-three.sql",
            "-- migrate:up\nINSERT INTO log (name) VALUES ('three');\n");

  std::vector<std::unique_ptr<Process>> runs;
  for (int i = 0; i < 20; ++i) {
    runs.push_back(std::make_unique<Process>(
        std::vector<std::string>{migronaut_binary(), "--no-env", "--uri", bouncer.uri(kDatabase),
                                 "--dir", dir.path().string(), "up", "--wait"},
        std::map<std::string, std::string>{{"MIGRONAUT_LOCK_POLL_INTERVAL_MS", "50"}}));
  }
  for (auto& run : runs) {
    const ProcessResult result = run->wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }

  const std::string direct = cluster.uri(kDatabase);
  for (const char* name : {"one", "two", "three"}) {
    EXPECT_EQ(count(direct, std::string("SELECT count(*) FROM log WHERE name = '") + name + "'"), 1)
        << name;
  }
  EXPECT_EQ(count(direct, "SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"),
            3);
  EXPECT_EQ(count(direct, "SELECT count(DISTINCT run_id) FROM _migronaut_migrations"), 1);
  EXPECT_EQ(count(direct, "SELECT count(*) FROM _migronaut_locks"), 0);
}

// Outside a transaction each statement is a transaction of its own, which the pool may send to
// another server session: a session-level SET there would miss the statements after it and stay
// with a session other clients use. It is refused before anything runs (exit 20, naming the file
// and line); the same folder runs through a direct connection, and a transaction keeps its SET.
TEST(PgBouncerTest, ASessionSettingOutsideATransactionIsRefusedThroughThePool) {
  if (!PgBouncer::binary()) GTEST_SKIP() << "pgbouncer is not installed (scripts/install-deps)";
  PgCluster& cluster = PgCluster::shared();
  const std::string database = "pool_session_setting";
  cluster.drop_database(database);
  cluster.create_database(database);
  PgBouncer bouncer(cluster, "transaction");

  TempDir dir("migronaut-pgbouncer-settings");
  dir.write("20260101000001-table.sql",
            "-- migrate:up\nSET statement_timeout = '5s';\nCREATE TABLE t (id int);\n");
  dir.write("20260101000002-index.sql",
            "-- migrate:up transaction:false\nSELECT 1;\nSET statement_timeout = '5s';\n"
            "CREATE INDEX CONCURRENTLY t_id ON t (id);\n");
  const auto up = [&](const std::string& uri) {
    return Process({migronaut_binary(), "--no-env", "--json", "--uri", uri, "--dir",
                    dir.path().string(), "up"})
        .wait();
  };

  const ProcessResult pooled = up(bouncer.uri(database));
  EXPECT_EQ(pooled.exit_code, 20) << pooled.err;
  for (const char* named : {"20260101000002-index.sql", "line 3", "session-setting-through-pooler",
                            "SET statement_timeout"}) {
    EXPECT_NE(pooled.out.find(named), std::string::npos) << named << " in " << pooled.out;
  }
  // No advice for a transaction it does not run in.
  EXPECT_EQ(pooled.out.find("marked '-- migrate:up transaction:false'"), std::string::npos)
      << pooled.out;
  const std::string direct = cluster.uri(database);
  EXPECT_EQ(count(direct, "SELECT count(*) FROM pg_class WHERE relname IN ('t', 't_id')"), 0);

  const ProcessResult straight = up(direct);
  EXPECT_EQ(straight.exit_code, 0) << straight.err;
  EXPECT_EQ(count(direct, "SELECT count(*) FROM pg_class WHERE relname IN ('t', 't_id')"), 2);
  EXPECT_EQ(count(direct, "SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"),
            2);
}

}  // namespace
}  // namespace migronaut::testing

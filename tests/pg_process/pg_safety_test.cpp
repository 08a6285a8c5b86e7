// Safe migrations on PostgreSQL, through the real binary against a throwaway server: statements
// that cannot run in a migration's transaction refused before anything runs, lock timeouts
// against a blocking session (named through PgBouncer too), and a signal that stops a run without
// cutting a migration (or a redo) in two.
#include <libpq-fe.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "support/pg_cluster.hpp"
#include "support/pgbouncer.hpp"
#include "support/process.hpp"
#include "support/table_collision.hpp"
#include "support/temp_dir.hpp"
#include "support/test_schema.hpp"

namespace migronaut::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A session of the test's own, under an application name a blocker report must show.
class Session {
 public:
  Session(const std::string& uri, const std::string& application) {
    const char* keys[] = {"dbname", "application_name", nullptr};
    const char* values[] = {uri.c_str(), application.c_str(), nullptr};
    conn_.reset(PQconnectdbParams(keys, values, /*expand_dbname=*/1));
    if (PQstatus(conn_.get()) != CONNECTION_OK) throw std::runtime_error("cannot connect");
  }
  // The first cell of `sql`'s result; throws when it fails.
  std::string query(const std::string& sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_.get(), sql.c_str()),
                                                         &PQclear);
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      throw std::runtime_error(PQresultErrorMessage(result.get()));
    }
    return PQntuples(result.get()) > 0 ? PQgetvalue(result.get(), 0, 0) : "";
  }
  int pid() const { return PQbackendPID(conn_.get()); }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_{nullptr, &PQfinish};
};

// Waits (bounded) for `done`.
template <typename Condition>
bool eventually(Condition done, seconds limit = seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

class PgSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string schema = test_schema("safety_");
    uri_ = PgCluster::run_wide().fresh_schema_uri("postgres", schema);
  }

  // `migronaut --json …` on the test's schema and folder.
  std::vector<std::string> argv(const std::vector<std::string>& args) const {
    std::vector<std::string> all{migronaut_binary(),  "--no-env", "--json", "--uri", uri_, "--dir",
                                 dir_.path().string()};
    all.insert(all.end(), args.begin(), args.end());
    return all;
  }
  ProcessResult migronaut(const std::vector<std::string>& args) const {
    return Process(argv(args), env_).wait();
  }

  std::string value(const std::string& sql) const {
    return pg_query_value(uri_, sql).value_or("<null>");
  }
  int count(const std::string& sql) const { return std::stoi(value(sql)); }
  bool table_exists(const std::string& table) const {
    return value("SELECT to_regclass('" + table + "') IS NOT NULL") == "t";
  }
  int records() const {
    return table_exists("_migronaut_migrations")
               ? count("SELECT count(*) FROM _migronaut_migrations")
               : 0;
  }

  // `up` must be refused with MIGRATION_INVALID_FORMAT naming `where`, nothing of it run.
  ProcessResult expect_refused(const std::string& where) const {
    const ProcessResult result = migronaut({"up"});
    EXPECT_EQ(result.exit_code, 20) << result.out << result.err;
    const nlohmann::json error = nlohmann::json::parse(result.out).at("error");
    EXPECT_EQ(error["code"], "MIGRATION_INVALID_FORMAT");
    EXPECT_NE(error["message"].get<std::string>().find(where), std::string::npos)
        << error["message"];
    EXPECT_EQ(records(), 0);
    EXPECT_FALSE(table_exists("_migronaut_locks") &&
                 count("SELECT count(*) FROM _migronaut_locks") > 0);
    return result;
  }

  void expect_stopped_naming(Session& blocker, const std::string& run_uri);

  TempDir dir_{"migronaut-pg-safety"};
  std::string uri_;
  std::map<std::string, std::string> env_;  // of every run
};

TEST_F(PgSafetyTest, CommitInATransactionalMigrationIsRefusedBeforeAnythingRuns) {
  dir_.write("20260101000001-first.sql", "-- migrate:up\nCREATE TABLE first (id bigint);\n");
  dir_.write("20260101000002-commit.sql",
             "-- migrate:up\nCREATE TABLE half (id bigint);\nINSERT INTO half VALUES (1);\n"
             "COMMIT;\nINSERT INTO half VALUES (2);\n");
  expect_refused("20260101000002-commit.sql at line 4, column 1: `COMMIT`");
  EXPECT_FALSE(table_exists("first"));
  EXPECT_FALSE(table_exists("half"));
}

// A script ending inside a quote or comment would swallow what migronaut sends after it (its
// bookkeeping, the lock's nonce) and have the server quote all of it back: refused before the
// run, earlier migrations included, in or out of a transaction, without quoting the text.
TEST_F(PgSafetyTest, AnUnterminatedQuoteOrCommentIsRefusedBeforeAnythingRuns) {
  dir_.write("20260101000001-first.sql", "-- migrate:up\nCREATE TABLE first (id bigint);\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-- migrate:up\nCREATE FUNCTION f() RETURNS int AS $$\n  SELECT 1 -- body_text\n",
       "line 2, column 36: unterminated dollar-quoted string"},
      {"-- migrate:up transaction:false\nSELECT 1;\n/* body_text\n",
       "line 3, column 1: unterminated /* comment"},
      {"-- migrate:up\nINSERT INTO t VALUES ('body_text);\n",
       "line 2, column 23: unterminated quoted string"},
      {"-- migrate:up\nSELECT 1 AS \"body_text;\n",
       "line 2, column 13: unterminated quoted identifier"}};
  for (const auto& [text, where] : cases) {
    dir_.write("20260101000002-open.sql", text);
    const ProcessResult result = expect_refused("20260101000002-open.sql at " + where);
    EXPECT_EQ(result.out.find("body_text"), std::string::npos) << result.out;
    EXPECT_FALSE(table_exists("first"));
  }
}

// COPY FROM STDIN waits for rows psql would feed it from the file, and COPY TO STDOUT sends rows
// nobody reads: refused before anything runs, in or out of a transaction, so no run holds the
// lock and the table's locks waiting for them.
TEST_F(PgSafetyTest, ACopyThroughTheClientIsRefusedBeforeAnythingRuns) {
  dir_.write("20260101000001-first.sql", "-- migrate:up\nCREATE TABLE first (id bigint);\n");
  for (const std::string header : {"-- migrate:up\n", "-- migrate:up transaction:false\n"}) {
    dir_.write("20260101000002-copy.sql",
               header + "CREATE TABLE users (id int);\nCOPY users (id) FROM stdin;\n1\n\\.\n");
    const ProcessResult in = expect_refused("20260101000002-copy.sql at line 3, column 1");
    EXPECT_NE(in.out.find("client-copy"), std::string::npos) << in.out;
    dir_.write("20260101000002-copy.sql", header + "COPY (SELECT 1) TO STDOUT;\n");
    expect_refused("COPY (SELECT 1) TO STDOUT");
    EXPECT_FALSE(table_exists("first"));
  }
}

// A CLI installed without its parser module refuses the run before its lock, even for a
// migration outside a transaction, whose statements are only split as it runs.
TEST_F(PgSafetyTest, AMissingParserModuleIsReportedBeforeAnythingRuns) {
  const std::filesystem::path built = migronaut_binary();
  const TempDir install{"migronaut-no-parser"};
  std::filesystem::create_directories(install.file("bin"));
  std::filesystem::copy_file(built, install.file("bin/migronaut"));
  std::filesystem::copy_file(built.parent_path() / "libmigronaut-store-postgres.so",
                             install.file("bin/libmigronaut-store-postgres.so"));
  dir_.write("20260101000001-outside.sql",
             "-- migrate:up transaction:false\nCREATE TABLE outside (id bigint);\n");
  Process run({install.file("bin/migronaut").string(), "--no-env", "--uri", uri_, "--dir",
               dir_.path().string(), "up"});
  const ProcessResult result = run.wait();
  EXPECT_EQ(result.exit_code, 6) << result.out << result.err;
  EXPECT_NE(result.err.find("PostgreSQL's parser module could not be loaded"), std::string::npos)
      << result.err;
  EXPECT_FALSE(table_exists("outside"));
  EXPECT_EQ(records(), 0);
  EXPECT_FALSE(table_exists("_migronaut_locks") &&
               count("SELECT count(*) FROM _migronaut_locks") > 0);
}

TEST_F(PgSafetyTest, ConcurrentIndexNeedsTransactionFalse) {
  pg_query_value(uri_, "CREATE TABLE users (email text)");
  dir_.write("20260101000001-index.sql",
             "-- migrate:up\nINSERT INTO users VALUES ('a');\n"
             "CREATE INDEX CONCURRENTLY users_email ON users (email);\n");
  expect_refused("20260101000001-index.sql at line 3, column 1: `CREATE INDEX CONCURRENTLY");
  EXPECT_EQ(count("SELECT count(*) FROM users"), 0);
  EXPECT_FALSE(table_exists("users_email"));

  dir_.write("20260101000001-index.sql",
             "-- migrate:up transaction:false\n"
             "CREATE INDEX CONCURRENTLY IF NOT EXISTS users_email ON users (email);\n");
  const ProcessResult applied = migronaut({"up"});
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_TRUE(table_exists("users_email"));
  EXPECT_EQ(records(), 1);
}

// dbmate's options on each marker, for that direction: the reported file, and a transactional
// up whose down runs outside a transaction (a DROP INDEX CONCURRENTLY in a transaction would be
// refused).
TEST_F(PgSafetyTest, DownMarkerOptionsRunTheDownAsTheySay) {
  value("CREATE TABLE t (c int)");
  dir_.write("20260101000001_t_c.sql",
             "-- migrate:up transaction:false\n"
             "CREATE INDEX CONCURRENTLY IF NOT EXISTS t_c ON t (c);\n\n"
             "-- migrate:down transaction:false\nDROP INDEX CONCURRENTLY IF EXISTS t_c;\n");
  dir_.write("20260101000002_u.sql",
             "-- migrate:up\nCREATE TABLE u (c int);\nCREATE INDEX u_c ON u (c);\n\n"
             "-- migrate:down transaction:false\nDROP INDEX CONCURRENTLY IF EXISTS u_c;\n"
             "DROP TABLE IF EXISTS u;\n");
  const ProcessResult status = migronaut({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.out << status.err;
  const ProcessResult applied = migronaut({"up"});
  ASSERT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_TRUE(table_exists("t_c"));
  EXPECT_TRUE(table_exists("u_c"));
  const ProcessResult reverted = migronaut({"down", "--steps", "2"});
  EXPECT_EQ(reverted.exit_code, 0) << reverted.out << reverted.err;
  EXPECT_FALSE(table_exists("t_c"));
  EXPECT_FALSE(table_exists("u"));
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"), 0);
}

// The timeouts are SET LOCAL in a migration's transaction: on a transaction:false marker they
// would be ignored (the sleep would run its 3 s), so the file is refused before anything runs,
// saying what to write instead.
TEST_F(PgSafetyTest, TimeoutOptionsOnATransactionFalseMarkerAreRefused) {
  dir_.write("20260101000001-sleep.sql",
             "-- migrate:up transaction:false statement_timeout:1s lock_timeout:1s\n"
             "SELECT pg_sleep(3);\n");
  const ProcessResult refused = expect_refused(
      "20260101000001-sleep.sql at line 1: 'lock_timeout:1s' cannot apply with "
      "'transaction:false'");
  EXPECT_NE(refused.out.find("SET lock_timeout = '1s';"), std::string::npos) << refused.out;
}

// With useTransaction false in the config, a marker without transaction:false runs without a
// transaction all the same: its timeouts would be dropped as silently (the sleep would run its
// 3 s). Refused before anything runs, naming the file, its section and why; a marker that asks
// for a transaction keeps them.
TEST_F(PgSafetyTest, TimeoutOptionsOfASectionTheConfigRunsWithoutATransactionAreRefused) {
  env_ = {{"MIGRONAUT_USE_TRANSACTION", "false"}};
  dir_.write("20260101000001-first.sql", "-- migrate:up\nCREATE TABLE first (id bigint);\n");
  dir_.write("20260101000002-sleep.sql",
             "-- migrate:up statement_timeout:1s\nSELECT pg_sleep(3);\n");
  const ProcessResult refused = expect_refused(
      "20260101000002-sleep.sql, up section: 'statement_timeout:1000ms' cannot "
      "apply when useTransaction is false in the config");
  EXPECT_NE(refused.out.find("SET statement_timeout = '1000ms';"), std::string::npos)
      << refused.out;
  EXPECT_FALSE(table_exists("first"));

  dir_.write("20260101000002-sleep.sql",
             "-- migrate:up transaction:true statement_timeout:1s\nSELECT pg_sleep(3);\n");
  const ProcessResult bounded = migronaut({"up"});
  EXPECT_EQ(bounded.exit_code, 7) << bounded.out << bounded.err;
  EXPECT_NE(bounded.out.find("statement timeout"), std::string::npos) << bounded.out;
  EXPECT_TRUE(table_exists("first"));
  EXPECT_EQ(value("SELECT status FROM _migronaut_migrations WHERE name = "
                  "'20260101000002-sleep.sql'"),
            "failed");
}

// A configured table name that an application's own table holds is refused before anything is
// created (SCHEMA_INVALID, naming it), for either table and by a command that only reads too; the
// schema is left as it was. Without the check a read failed on a column (exit 1), after `up` had
// created the other table.
TEST_F(PgSafetyTest, AConfiguredTableNameThatAnotherTableHoldsIsRefusedNamingIt) {
  dir_.write("20260101000001-first.sql", "-- migrate:up\nCREATE TABLE first (id bigint);\n");
  pg_query_value(uri_,
                 "CREATE TABLE users (id bigint PRIMARY KEY, email text); "
                 "INSERT INTO users VALUES (1, 'a')");
  for (const auto& [variable, command] : kTableCollisionCases) {
    env_ = {{variable, "users"}};
    const ProcessResult refused = migronaut({command});
    EXPECT_EQ(refused.exit_code, 38) << variable << " " << command << "\n" << refused.out;
    const nlohmann::json error = nlohmann::json::parse(refused.out).at("error");
    EXPECT_EQ(error["code"], "SCHEMA_INVALID");
    EXPECT_NE(error["message"].get<std::string>().find("users is a table of another shape"),
              std::string::npos)
        << error["message"];
    EXPECT_EQ(value("SELECT string_agg(relname::text, ',') FROM pg_class WHERE relnamespace = "
                    "current_schema()::regnamespace AND relkind = 'r'"),
              "users");
    EXPECT_EQ(value("SELECT string_agg(id || ':' || email, ',') FROM users"), "1:a");
  }
}

// A search_path naming no schema that exists leaves nowhere to create the tables: refused as
// CONFIG_INVALID naming the search_path (it was exit 1, the server's "no schema has been selected
// to create in"). Nor can the tables be read there: the read-only commands refuse it alike, where
// they had read "no table" as a new database (all pending, audit green, wait until its timeout).
TEST_F(PgSafetyTest, ASearchPathOfNoExistingSchemaIsRefusedNamingIt) {
  dir_.write("20260101000001-first.sql", "-- migrate:up\nCREATE TABLE first (id bigint);\n");
  uri_ = PgCluster::run_wide().uri("postgres") + "?options=-csearch_path%3Dmigronaut_absent";
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"up"},
                                             {"status"},
                                             {"status", "--check"},
                                             {"wait", "--timeout", "5s"},
                                             {"dry-run", "up"},
                                             {"down"},
                                             {"import", "--from", "dbmate"}}) {
    const ProcessResult refused = migronaut(command);
    EXPECT_EQ(refused.exit_code, 6) << command[0] << ": " << refused.out << refused.err;
    const nlohmann::json error = nlohmann::json::parse(refused.out).at("error");
    EXPECT_EQ(error["code"], "CONFIG_INVALID");
    EXPECT_NE(error["message"].get<std::string>().find(
                  "no schema of the search_path (migronaut_absent) exists"),
              std::string::npos)
        << error["message"];
  }
  const ProcessResult audit = migronaut({"audit"});
  EXPECT_EQ(audit.exit_code, 22) << audit.out << audit.err;
  EXPECT_NE(audit.out.find("no schema of the search_path (migronaut_absent) exists"),
            std::string::npos)
      << audit.out;
  EXPECT_EQ(value("SELECT count(*) FROM pg_namespace WHERE nspname = 'migronaut_absent'"), "0");
}

TEST_F(PgSafetyTest, SavepointsTheMigrationOpensItselfRun) {
  dir_.write("20260101000001-savepoints.sql",
             "-- migrate:up\nCREATE TABLE s (id bigint);\nSAVEPOINT a;\nINSERT INTO s VALUES (1);\n"
             "ROLLBACK TO a;\nINSERT INTO s VALUES (2);\nRELEASE a;\n");
  const ProcessResult applied = migronaut({"up"});
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_EQ(value("SELECT string_agg(id::text, ',') FROM s"), "2");

  dir_.write("20260101000002-release.sql",
             "-- migrate:up\nINSERT INTO s VALUES (3);\nRELEASE SAVEPOINT outside;\n");
  const ProcessResult refused = migronaut({"up"});
  EXPECT_EQ(refused.exit_code, 20) << refused.out;
  EXPECT_NE(refused.out.find("line 3, column 1: `RELEASE SAVEPOINT outside`"), std::string::npos)
      << refused.out;
  EXPECT_EQ(value("SELECT string_agg(id::text, ',') FROM s"), "2");
  EXPECT_EQ(records(), 1);
}

// Split as PostgreSQL's parser splits it: the `;` inside the function body splits nothing.
TEST_F(PgSafetyTest, VerboseLogsEachStatementAsPostgresSplitsIt) {
  dir_.write("20260101000001-function.sql",
             "-- migrate:up\nCREATE FUNCTION one() RETURNS int LANGUAGE plpgsql AS $$\n"
             "BEGIN\n  RETURN 1;\nEND;\n$$;\nCREATE TABLE ones AS SELECT one() AS n;\n");
  const ProcessResult applied = migronaut({"--verbose", "up"});
  ASSERT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  const std::vector<std::string> sent =
      lines_containing(applied.err, "sending 20260101000001-function.sql: ");
  ASSERT_EQ(sent.size(), 2u) << applied.err;
  EXPECT_NE(sent[0].find(": CREATE FUNCTION one() RETURNS int LANGUAGE plpgsql AS $$ BEGIN "
                         "RETURN 1; END; $$"),
            std::string::npos)
      << sent[0];
  EXPECT_NE(sent[1].find(": CREATE TABLE ones AS SELECT one() AS n"), std::string::npos) << sent[1];
  EXPECT_EQ(value("SELECT n FROM ones"), "1");
}

TEST_F(PgSafetyTest, LintAndUpLintRefuseAPlainIndexOnALiveTable) {
  pg_query_value(uri_, "CREATE TABLE users (email text)");
  dir_.write("20260101000001-index.sql",
             "-- migrate:up\n-- a plain index\nCREATE INDEX users_email ON users (email);\n");
  // No database needed to lint the folder.
  const ProcessResult linted =
      run_migronaut({"--no-env", "--json", "--dir", dir_.path().string(), "lint"});
  EXPECT_EQ(linted.exit_code, 45) << linted.out << linted.err;
  nlohmann::json index_finding;
  const nlohmann::json document = nlohmann::json::parse(linted.out);
  for (const nlohmann::json& finding : document.at("findings")) {
    if (finding["rule"] == "require-concurrent-index-creation") index_finding = finding;
  }
  EXPECT_EQ(index_finding["line"], 3) << linted.out;
  EXPECT_EQ(index_finding["column"], 1);
  EXPECT_NE(
      linted.err.find("20260101000001-index.sql:3:1: error [require-concurrent-index-creation]"),
      std::string::npos)
      << linted.err;

  const ProcessResult refused = migronaut({"up", "--lint"});
  EXPECT_EQ(refused.exit_code, 45) << refused.out << refused.err;
  EXPECT_EQ(nlohmann::json::parse(refused.out)["error"]["code"], "LINT_FAILED");
  EXPECT_FALSE(table_exists("users_email"));
  EXPECT_EQ(records(), 0);

  // The help's advice lints clean: the drop first makes the build safe to run again.
  dir_.write("20260101000001-index.sql",
             "-- migrate:up transaction:false\nSET lock_timeout = '2s';\n"
             "SET statement_timeout = '1min';\n"
             "DROP INDEX CONCURRENTLY IF EXISTS users_email;\n"
             "CREATE INDEX CONCURRENTLY users_email ON users (email);\n");
  const ProcessResult clean =
      run_migronaut({"--no-env", "--json", "--dir", dir_.path().string(), "lint"});
  EXPECT_EQ(clean.exit_code, 0) << clean.out;
  EXPECT_EQ(nlohmann::json::parse(clean.out).at("findings"), nlohmann::json::array()) << clean.out;
  const ProcessResult applied = migronaut({"up", "--lint"});
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_TRUE(table_exists("users_email"));
  EXPECT_EQ(records(), 1);
}

// The failure as `up --json` reports it: message and context.
nlohmann::json failure(const ProcessResult& result) {
  return nlohmann::json::parse(result.out).at("error");
}

constexpr std::string_view kAlterName = "20260101000001-plan.sql";

// What the blocker's last statement holds, which no message may show.
constexpr std::string_view kBlockersSecret = "Bl0cker-Secret-7";

// A session that read `accounts` in a transaction it keeps open: its ACCESS SHARE lock blocks
// the ALTER TABLE of kAlterName, not other readers.
std::unique_ptr<Session> start_blocker(const std::string& uri) {
  pg_query_value(uri, "CREATE TABLE accounts (id bigint); INSERT INTO accounts VALUES (1)");
  auto blocker = std::make_unique<Session>(uri, "report-job");
  blocker->query("BEGIN");
  blocker->query("SELECT count(*) FROM accounts WHERE '" + std::string(kBlockersSecret) +
                 "' <> ''");
  return blocker;
}

// Outside a transaction the statements before the blocked one stay done: a lock timeout the
// connection brings (here the URI's; a role's ALTER ROLE … SET works alike) is not retried,
// or they would run again.
TEST_F(PgSafetyTest, ALockTimeoutOutsideATransactionIsNotRetried) {
  auto blocker = start_blocker(uri_);
  value("CREATE TABLE log (n int)");
  dir_.write(std::string(kAlterName),
             "-- migrate:up transaction:false\nINSERT INTO log VALUES (1);\n"
             "ALTER TABLE accounts ADD COLUMN plan text;\n");
  const std::string with_lock_timeout = uri_ + "%20-clock_timeout%3D200";
  const ProcessResult result = Process({migronaut_binary(), "--no-env", "--json", "--uri",
                                        with_lock_timeout, "--dir", dir_.path().string(), "up"},
                                       {{"MIGRONAUT_LOCK_RETRIES", "5"}})
                                   .wait();
  EXPECT_EQ(result.exit_code, 46) << result.out << result.err;
  EXPECT_EQ(result.err.find("trying again"), std::string::npos) << result.err;
  blocker->query("ROLLBACK");
  EXPECT_EQ(count("SELECT count(*) FROM log"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_migrations WHERE status = 'failed'"), 1);
}

// A statement's own error of class 08 (a dblink_connect that failed; here a RAISE) leaves the
// migration's connection as it was: the migration failed (exit 7, its record failed with the
// server's message), no connection was lost (exit 5), and a rerun does not repeat what it did.
TEST_F(PgSafetyTest, AStatementsConnectionClassErrorFailsTheMigrationNotTheConnection) {
  value("CREATE TABLE log (n int)");
  const std::string raise =
      "DO $$ BEGIN RAISE EXCEPTION 'dblink refused' USING ERRCODE = '08001'; END $$;\n";
  dir_.write("20260101000001-in-transaction.sql",
             "-- migrate:up\nINSERT INTO log VALUES (1);\n" + raise);
  const ProcessResult fenced = migronaut({"up"});
  EXPECT_EQ(fenced.exit_code, 7) << fenced.out << fenced.err;
  EXPECT_EQ(nlohmann::json::parse(fenced.out)["error"]["code"], "MIGRATION_EXECUTION_FAILED")
      << fenced.out;
  EXPECT_EQ(count("SELECT count(*) FROM log"), 0);

  std::filesystem::remove(dir_.file("20260101000001-in-transaction.sql"));
  dir_.write("20260101000002-outside.sql",
             "-- migrate:up transaction:false\nINSERT INTO log VALUES (2);\n" + raise);
  const ProcessResult outside = migronaut({"up"});
  EXPECT_EQ(outside.exit_code, 7) << outside.out << outside.err;
  EXPECT_EQ(value("SELECT status || ' ' || (error LIKE '%dblink refused%') FROM "
                  "_migronaut_migrations WHERE name = '20260101000002-outside.sql'"),
            "failed true");
  EXPECT_EQ(count("SELECT count(*) FROM log"), 1);
}

// Cancelled at its timeout outside a transaction, a migration's earlier statements stay: the
// timeout's error (exit 14) still says how many, as any failure there does.
TEST_F(PgSafetyTest, ATimeoutOutsideATransactionSaysWhatStaysApplied) {
  dir_.write("20260101000001-slow.sql",
             "-- migrate:up transaction:false\nCREATE TABLE made_first (id int);\n"
             "SELECT pg_sleep(60);\n");
  env_["MIGRONAUT_TIMEOUT_MS"] = "500";
  const ProcessResult result = migronaut({"up"});
  EXPECT_EQ(result.exit_code, 14) << result.out << result.err;
  const nlohmann::json error = nlohmann::json::parse(result.out).at("error");
  EXPECT_EQ(error["context"]["statementsApplied"], 1) << error;
  EXPECT_EQ(error["context"]["timeoutMs"], 500) << error;
  EXPECT_NE(error["message"].get<std::string>().find("The 1 statement before it ran and stays"),
            std::string::npos)
      << error["message"];
  EXPECT_TRUE(table_exists("made_first"));
}

// Outside migronaut's transaction, a BEGIN of the script's own left open would be committed with
// the record: it is rolled back and the migration fails, as on SQLite; a failure inside it says
// that only what ran before its BEGIN stays.
TEST_F(PgSafetyTest, ATransactionTheScriptLeavesOpenIsRolledBackAndFails) {
  dir_.write("20260101000001-open.sql",
             "-- migrate:up transaction:false\nCREATE TABLE before_begin (id int);\nBEGIN;\n"
             "CREATE TABLE inside_begin (id int);\n");
  const ProcessResult open = migronaut({"up"});
  EXPECT_EQ(open.exit_code, 7) << open.out << open.err;
  const nlohmann::json error = nlohmann::json::parse(open.out).at("error");
  EXPECT_NE(error["message"].get<std::string>().find(
                "line 3, column 1 in `BEGIN`: the transaction it opens is never committed"),
            std::string::npos)
      << error;
  EXPECT_EQ(error["context"]["statementsApplied"], 1) << error;
  EXPECT_TRUE(table_exists("before_begin"));
  EXPECT_FALSE(table_exists("inside_begin"));
  EXPECT_EQ(value("SELECT status FROM _migronaut_migrations"), "failed");

  dir_.write("20260101000001-open.sql",
             "-- migrate:up transaction:false\nCREATE TABLE IF NOT EXISTS before_begin (id int);"
             "\nBEGIN;\nCREATE TABLE inside_begin (id int);\nSELECT * FROM gone;\nCOMMIT;\n");
  const ProcessResult failed = migronaut({"up"});
  EXPECT_EQ(failed.exit_code, 7) << failed.out << failed.err;
  EXPECT_NE(failed.err.find("The transaction the script opened on line 3 was rolled back."),
            std::string::npos)
      << failed.err;
  EXPECT_FALSE(table_exists("inside_begin"));
}

TEST_F(PgSafetyTest, ABlockedMigrationRetriesWithoutStallingReadersAndAppliesOnce) {
  auto blocker = start_blocker(uri_);
  dir_.write(std::string(kAlterName),
             "-- migrate:up\nALTER TABLE accounts ADD COLUMN plan text;\n"
             "INSERT INTO accounts (id, plan) VALUES (2, 'pro');\n");
  Process run({migronaut_binary(), "--no-env", "--uri", uri_, "--dir", dir_.path().string(), "up"},
              {{"MIGRONAUT_LOCK_TIMEOUT_MS", "300"}, {"MIGRONAUT_LOCK_RETRIES", "1000"}});
  // Each try waits at most 300 ms in the lock queue, and rolls back to let the queue drain.
  ASSERT_TRUE(eventually([&] { return run.err_so_far().find("(try 3 of") != std::string::npos; }))
      << run.err_so_far();
  const std::string log = run.err_so_far();
  EXPECT_NE(log.find("blocked by pid " + std::to_string(blocker->pid()) +
                     " (application 'report-job', user 'postgres', idle in transaction for "),
            std::string::npos)
      << log;

  // A reader bounded server-side: a query stalled behind the queued ALTER for more than 3 s
  // (ten times the lock timeout) fails instead of answering.
  Session reader(uri_, "reader");
  reader.query("SET statement_timeout = 3000");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(reader.query("SELECT count(*) FROM accounts"), "1");
  EXPECT_EQ(count("SELECT count(*) FROM information_schema.columns WHERE column_name = 'plan'"
                  " AND table_schema = current_schema()"),
            0);

  blocker->query("COMMIT");
  const std::optional<ProcessResult> done = run.wait_for(seconds(60));
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->exit_code, 0) << done->err;
  EXPECT_EQ(value("SELECT plan FROM accounts WHERE id = 2"), "pro");
  EXPECT_EQ(count("SELECT count(*) FROM accounts"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_locks"), 0);
}

// `up` through `run_uri` with 1 s lock timeouts and 2 retries, against `blocker`
// (start_blocker() on uri_): it stops with exit 46 naming the blocker — its pid, its application,
// the kind of its statement, never its text — and nothing of the migration is applied. Ends the
// blocker's transaction. The blocker is asked about halfway to the timeout, on a connection of
// its own: a shorter timeout leaves a busy machine too little time to open it.
void PgSafetyTest::expect_stopped_naming(Session& blocker, const std::string& run_uri) {
  dir_.write(std::string(kAlterName),
             "-- migrate:up\nALTER TABLE accounts ADD COLUMN plan text;\n");
  const ProcessResult result =
      run_migronaut({"--no-env", "--json", "--uri", run_uri, "--dir", dir_.path().string(), "up"},
                    {{"MIGRONAUT_LOCK_TIMEOUT_MS", "1000"}, {"MIGRONAUT_LOCK_RETRIES", "2"}});
  EXPECT_EQ(result.exit_code, 46) << result.out << result.err;
  const nlohmann::json error = nlohmann::json::parse(result.out).at("error");
  EXPECT_EQ(error["code"], "MIGRATION_LOCK_TIMEOUT");
  const std::string message = error["message"];
  EXPECT_NE(message.find(std::string(kAlterName) + " could not get its locks in 3 tries"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("pid " + std::to_string(blocker.pid()) + " (application 'report-job'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(" s): SELECT"), std::string::npos) << message;
  EXPECT_EQ(message.find(";;"), std::string::npos) << message;
  const nlohmann::json& blockers = error["context"]["blockers"];
  ASSERT_FALSE(blockers.empty()) << result.out;
  EXPECT_EQ(blockers[0]["pid"], blocker.pid());
  EXPECT_EQ(blockers[0]["command"], "SELECT");
  // Its statement's kind, never its text: the blocker's may hold a secret.
  EXPECT_EQ(result.out.find(kBlockersSecret), std::string::npos) << result.out;
  EXPECT_EQ(result.err.find(kBlockersSecret), std::string::npos) << result.err;
  EXPECT_EQ(
      value("SELECT error LIKE '%s): SELECT' AND error NOT LIKE '%" + std::string(kBlockersSecret) +
            "%' AND error NOT LIKE '%;;%' FROM " + "_migronaut_migrations WHERE status = 'failed'"),
      "t");
  blocker.query("ROLLBACK");
  EXPECT_EQ(count("SELECT count(*) FROM information_schema.columns WHERE column_name = 'plan'"
                  " AND table_schema = current_schema()"),
            0);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_locks"), 0);
}

TEST_F(PgSafetyTest, ABlockerThatNeverEndsStopsTheRunNamingItAndNothingIsApplied) {
  auto blocker = start_blocker(uri_);
  expect_stopped_naming(*blocker, uri_);
}

// Through PgBouncer in transaction pooling, the pid the connection was given is the pooler's,
// no server backend's: the blocked session is found on the server by its application_name.
TEST_F(PgSafetyTest, ThroughPgBouncerABlockerThatNeverEndsIsNamedToo) {
  if (!PgBouncer::binary()) GTEST_SKIP() << "pgbouncer is not installed (scripts/install-deps)";
  // A database of its own: PgBouncer refuses the search_path a schema's URI sets.
  const std::string database = "safety_blocker_bouncer";
  PgCluster& cluster = PgCluster::run_wide();
  cluster.drop_database(database);
  cluster.create_database(database);
  PgBouncer bouncer(cluster, "transaction");
  uri_ = cluster.uri(database);
  auto blocker = start_blocker(uri_);  // on the server itself, not through the pooler
  expect_stopped_naming(*blocker, bouncer.uri(database));
}

TEST_F(PgSafetyTest, AMigrationSetsItsOwnTimeoutsInItsHeader) {
  auto blocker = start_blocker(uri_);
  // Its own lock timeout, and no retries: the run stops at the first timeout.
  dir_.write(std::string(kAlterName),
             "-- migrate:up lock_timeout:150ms statement_timeout:5s\n"
             "ALTER TABLE accounts ADD COLUMN plan text;\n");
  const ProcessResult result =
      run_migronaut({"--no-env", "--json", "--uri", uri_, "--dir", dir_.path().string(), "up"},
                    {{"MIGRONAUT_LOCK_TIMEOUT_MS", "0"}, {"MIGRONAUT_LOCK_RETRIES", "0"}});
  EXPECT_EQ(result.exit_code, 46) << result.out << result.err;
  EXPECT_NE(result.out.find("in 1 try of 150 ms"), std::string::npos) << result.out;
  blocker->query("ROLLBACK");

  dir_.write(std::string(kAlterName),
             "-- migrate:up statement_timeout:100ms\nSELECT pg_sleep(2);\n");
  const ProcessResult slow =
      run_migronaut({"--no-env", "--json", "--uri", uri_, "--dir", dir_.path().string(), "up"});
  EXPECT_EQ(slow.exit_code, 7) << slow.out;
  EXPECT_NE(slow.out.find("statement timeout"), std::string::npos) << slow.out;
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"), 0);
}

TEST_F(PgSafetyTest, ASignalDuringLockTimeoutRetriesStopsAtOnceLeavingTheMigrationPending) {
  auto blocker = start_blocker(uri_);
  dir_.write(std::string(kAlterName),
             "-- migrate:up\nALTER TABLE accounts ADD COLUMN plan text;\n");
  Process run(argv({"up"}),
              {{"MIGRONAUT_LOCK_TIMEOUT_MS", "200"}, {"MIGRONAUT_LOCK_RETRIES", "1000"}});
  ASSERT_TRUE(eventually([&] { return run.err_so_far().find("(try 2 of") != std::string::npos; }))
      << run.err_so_far();
  run.signal(SIGTERM);
  // At most the try in flight (200 ms) to wait out, not the 999 retries left.
  const std::optional<ProcessResult> done = run.wait_for(seconds(10));
  ASSERT_TRUE(done.has_value()) << "still retrying: " << run.err_so_far();
  blocker->query("ROLLBACK");

  EXPECT_EQ(done->exit_code, 11) << done->out << done->err;
  EXPECT_EQ(failure(*done)["code"], "RUN_ABORTED");
  // An abort, not a failure: no record, so still pending, and `wait` would not call it failed.
  EXPECT_EQ(records(), 0);
  const ProcessResult status = migronaut({"status"});
  EXPECT_EQ(nlohmann::json::parse(status.out)["migrations"][0]["state"], "pending") << status.out;
  EXPECT_EQ(count("SELECT count(*) FROM information_schema.columns WHERE column_name = 'plan'"
                  " AND table_schema = current_schema()"),
            0);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_locks"), 0);
}

TEST_F(PgSafetyTest, AFirstSignalDuringRedoLetsItRevertAndReapplyThenExits0) {
  // The revert waits for an advisory lock the test holds: it is in flight until the test lets
  // it go.
  dir_.write("20260101000001-gated.sql",
             "-- migrate:up\nCREATE TABLE gated (id bigint);\n"
             "-- migrate:down\nSELECT pg_advisory_xact_lock(7311);\nDROP TABLE gated;\n");
  ASSERT_EQ(migronaut({"up"}).exit_code, 0);
  Session gate(uri_, "gate");
  gate.query("SELECT pg_advisory_lock(7311)");
  Process redo(argv({"redo"}), {{"MIGRONAUT_LOCK_TIMEOUT_MS", "0"}});
  ASSERT_TRUE(eventually([&] {
    return count(
               "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7311 "
               "AND NOT granted") == 1;
  })) << redo.err_so_far();
  redo.signal(SIGTERM);
  // Released only once the signal was taken, so it cannot come after the revert.
  ASSERT_TRUE(eventually([&] {
    return redo.err_so_far().find("Stopping after") != std::string::npos;
  })) << redo.err_so_far();
  gate.query("SELECT pg_advisory_unlock(7311)");
  const std::optional<ProcessResult> done = redo.wait_for(seconds(30));
  ASSERT_TRUE(done.has_value()) << redo.err_so_far();

  EXPECT_EQ(done->exit_code, 0) << done->out << done->err;
  EXPECT_NE(done->err.find("Stopping after the redo in flight"), std::string::npos) << done->err;
  const nlohmann::json report = nlohmann::json::parse(done->out);
  EXPECT_EQ(report["stopRequested"], true);
  ASSERT_EQ(report["results"].size(), 2u) << report;
  EXPECT_EQ(report["results"][0]["status"], "reverted");
  EXPECT_EQ(report["results"][1]["status"], "applied");
  EXPECT_TRUE(table_exists("gated"));
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_migrations WHERE status = 'applied'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM _migronaut_locks"), 0);
}

TEST_F(PgSafetyTest, AFailingStatementIsNamedWithItsLineAndColumn) {
  dir_.write("20260101000001-typo.sql",
             "-- migrate:up\nCREATE TABLE t (id bigint);\n\nINSERT INTO t (id, nam)\n"
             "  VALUES (1, 'é');\n");
  const ProcessResult transactional = migronaut({"up"});
  EXPECT_EQ(transactional.exit_code, 7) << transactional.out;
  const nlohmann::json error = failure(transactional);
  EXPECT_EQ(error["context"]["line"], 4) << error;
  EXPECT_EQ(error["context"]["column"], 20);
  EXPECT_EQ(error["context"]["statement"], "INSERT INTO t (id, nam) VALUES (1, 'é')");
  const std::string message = error["message"];
  EXPECT_NE(message.find("20260101000001-typo.sql failed: line 4, column 20 in `INSERT INTO t"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("column \"nam\" of relation \"t\" does not exist"), std::string::npos)
      << message;
  EXPECT_EQ(message.find("ERROR:"), std::string::npos) << message;
  EXPECT_FALSE(table_exists("t"));

  // Outside a transaction each statement goes alone; the position still maps to the file.
  dir_.write("20260101000001-typo.sql",
             "-- migrate:up transaction:false\nCREATE TABLE IF NOT EXISTS t (id bigint);\n"
             "SELECT 1;  SELECT nope FROM t;\n");
  const nlohmann::json alone = failure(migronaut({"up"}));
  EXPECT_EQ(alone["context"]["line"], 3) << alone;
  EXPECT_EQ(alone["context"]["column"], 19);
  EXPECT_EQ(alone["context"]["statement"], "SELECT nope FROM t");
}

// A failure without an error position (a unique violation, a division by zero) is placed at
// its statement too: outside a transaction the statement migronaut sent; in one, the statement
// the server's answers before the error point at.
TEST_F(PgSafetyTest, AFailureWithoutAPositionNamesItsStatementAndWhatItLeftBehind) {
  dir_.write("20260101000001-orders.sql",
             "-- migrate:up\nCREATE TABLE orders (user_id int);\n"
             "INSERT INTO orders VALUES (1), (1), (2);\n");
  dir_.write("20260101000002-index.sql",
             "-- migrate:up transaction:false\nCREATE TABLE IF NOT EXISTS audit_log (id bigint);\n"
             "CREATE UNIQUE INDEX CONCURRENTLY orders_user_uniq ON orders (user_id);\n"
             "CREATE TABLE after_index (id bigint);\n");
  const ProcessResult alone = migronaut({"up"});
  EXPECT_EQ(alone.exit_code, 7) << alone.out << alone.err;
  const nlohmann::json error = failure(alone);
  const std::string message = error["message"];
  EXPECT_NE(message.find("20260101000002-index.sql failed: statement 2 at line 3, column 1 in "
                         "`CREATE UNIQUE INDEX CONCURRENTLY orders_user_uniq ON orders "
                         "(user_id)`: could not create unique index \"orders_user_uniq\""),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("Key (user_id)=(1) is duplicated."), std::string::npos) << message;
  EXPECT_NE(message.find("The 1 statement before it ran and stays applied: outside a "
                         "transaction nothing is rolled back."),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("run `DROP INDEX CONCURRENTLY IF EXISTS orders_user_uniq;` before "
                         "running the migration again"),
            std::string::npos)
      << message;
  EXPECT_EQ(error["context"]["line"], 3) << error;
  EXPECT_EQ(error["context"]["statementNumber"], 2);
  EXPECT_EQ(error["context"]["statementsApplied"], 1);
  EXPECT_EQ(error["context"]["invalidIndex"], "orders_user_uniq");
  // As the message says: the first statement stays, the index is left INVALID, nothing after.
  EXPECT_TRUE(table_exists("audit_log"));
  EXPECT_FALSE(table_exists("after_index"));
  EXPECT_EQ(
      value("SELECT indisvalid FROM pg_index WHERE indexrelid = 'orders_user_uniq'::regclass"),
      "f");
  EXPECT_EQ(value("SELECT status FROM _migronaut_migrations WHERE name LIKE '%-index.sql'"),
            "failed");

  // The hint's statement and the duplicate gone, the migration runs again to the end.
  value("DROP INDEX CONCURRENTLY IF EXISTS orders_user_uniq");
  value(
      "DELETE FROM orders WHERE ctid IN (SELECT max(ctid) FROM orders GROUP BY user_id "
      "HAVING count(*) > 1)");
  const ProcessResult again = migronaut({"up"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(
      value("SELECT indisvalid FROM pg_index WHERE indexrelid = 'orders_user_uniq'::regclass"),
      "t");
}

TEST_F(PgSafetyTest, ATransactionalFailureWithoutAPositionNamesItsStatementAndRollsBack) {
  // With and without a lock timeout (which changes how the script is sent).
  for (const std::string marker : {"-- migrate:up", "-- migrate:up lock_timeout:off"}) {
    dir_.write("20260101000001-divide.sql",
               marker +
                   "\nCREATE TABLE made (id bigint);\nINSERT INTO made VALUES (1);\n"
                   "-- the ratio\n  SELECT 1 / (SELECT count(*) - 1 FROM made);\n"
                   "CREATE TABLE after_divide (id bigint);\n");
    const ProcessResult result = migronaut({"up"});
    EXPECT_EQ(result.exit_code, 7) << result.out << result.err;
    const nlohmann::json error = failure(result);
    const std::string message = error["message"];
    EXPECT_NE(message.find("20260101000001-divide.sql failed: statement 3 at line 5, column 3 in "
                           "`SELECT 1 / (SELECT count(*) - 1 FROM made)`: division by zero"),
              std::string::npos)
        << marker << ": " << message;
    EXPECT_EQ(message.find("stay"), std::string::npos) << message;
    EXPECT_EQ(error["context"]["line"], 5) << error;
    EXPECT_EQ(error["context"]["statementNumber"], 3);
    EXPECT_FALSE(error["context"].contains("statementsApplied"));
    EXPECT_FALSE(table_exists("made"));
    EXPECT_FALSE(table_exists("after_divide"));
  }
}

}  // namespace
}  // namespace migronaut::testing

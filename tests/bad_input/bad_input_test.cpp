// The bad-input corpus: malformed migrations and folders, names, config files, environment
// values and flags, each given to the real `migronaut` binary on every SQL store (SQLite and the
// throwaway PostgreSQL cluster). Every case must exit with its own status, name its error code
// in --json, say what is wrong and where, show no secret the URI holds, and leave the database
// exactly as it found it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bad_input/project.hpp"

namespace migronaut::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBaseline =
    "-- migrate:up\nCREATE TABLE base (id INTEGER);\nINSERT INTO base "
    "VALUES (1);\n-- migrate:down\nDROP TABLE base;\n";
constexpr const char* kValid = "-- migrate:up\nCREATE TABLE two (id INTEGER);\n";
const std::vector<std::string> kSqlStores = {"sqlite", "postgres"};

struct BadInput {
  std::string name;
  // Applies 0001-base.sql first, so "unchanged" covers real tables, records and rows; without
  // it the database must stay absent (no file, no table).
  bool baseline = true;
  std::vector<std::pair<std::string, std::string>> files = {};  // migrations written next
  std::vector<std::vector<std::string>> setup = {};             // commands that must then succeed
  std::string config_file = {};  // ./migronaut.config.json in the working directory, when set
  Env env = {};
  std::vector<std::string> args = {};
  int exit_code = 0;
  std::string code = {};
  std::string culprit = {};  // the message must name it
  // Last preparation before the run: files the text fields cannot make, SQL on the database.
  std::function<void(const Project&)> prepare = {};
  std::string dir = {};  // --dir, relative to the project's directory; default migrations/
  // --uri instead of the project's own, and the secret fragments it holds.
  std::function<std::string(const Project&)> uri = {};
  std::vector<std::string> uri_secrets = {};
  std::vector<std::string> stores = kSqlStores;
};

struct CaseOnStore {
  BadInput input;
  std::string store;
};

std::ostream& operator<<(std::ostream& out, const CaseOnStore& c) {
  return out << c.input.name << " on " << c.store;
}

std::unique_ptr<Project> project_for(const std::string& store, const std::string& name) {
  return store == "sqlite" ? sqlite_project() : postgres_project(name);
}

// Runs `args` and checks the error it must end with, that no secret shows, and that the
// database did not change (byte for byte). Returns the error document.
struct RunTarget {
  fs::path dir;
  std::string uri;
  std::vector<std::string> secrets;
};

nlohmann::json expect_refused(const Project& project, const std::vector<std::string>& args,
                              const Env& env, int exit_code, const std::string& code,
                              const std::string& culprit, const RunTarget& target = {}) {
  const std::string before = project.dump();
  const std::string bytes_before = project.bytes();
  const ProcessResult result = project.run(args, env, target.dir, target.uri);

  EXPECT_EQ(result.exit_code, exit_code) << describe(result);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(result.out);
  } catch (const nlohmann::json::exception&) {
    ADD_FAILURE() << "stdout is not one JSON document\n" << describe(result);
    return {};
  }
  if (!document.contains("error")) {
    ADD_FAILURE() << "no error\n" << describe(result);
    return {};
  }
  const nlohmann::json& error = document["error"];
  EXPECT_EQ(error["code"], code);
  const std::string message = error["message"].get<std::string>();
  EXPECT_NE(message.find(culprit), std::string::npos) << "message: " << message;
  EXPECT_NE(result.err.find(culprit), std::string::npos) << "stderr: " << result.err;
  std::vector<std::string> secrets = project.secrets();
  secrets.insert(secrets.end(), target.secrets.begin(), target.secrets.end());
  for (const std::string& secret : secrets) {
    EXPECT_EQ(result.out.find(secret), std::string::npos)
        << "stdout shows a secret: " << result.out;
    EXPECT_EQ(result.err.find(secret), std::string::npos)
        << "stderr shows a secret: " << result.err;
  }

  EXPECT_EQ(project.dump(), before);
  EXPECT_EQ(project.bytes(), bytes_before) << "the database changed";
  return error;
}

class BadInputTest : public ::testing::TestWithParam<CaseOnStore> {};

TEST_P(BadInputTest, IsRefusedWithItsCodeAndChangesNothing) {
  const BadInput& input = GetParam().input;
  const std::unique_ptr<Project> project =
      project_for(GetParam().store, input.name + "_" + GetParam().store);
  if (input.baseline) {
    project->write_migration("0001-base.sql", kBaseline);
    const ProcessResult applied = project->run({"up"});
    ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  }
  for (const auto& [name, text] : input.files) project->write_migration(name, text);
  for (const std::vector<std::string>& command : input.setup) {
    const ProcessResult result = project->run(command);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
  }
  if (!input.config_file.empty()) {
    project->dir().write(project->cwd() / "migronaut.config.json", input.config_file);
  }
  if (input.prepare) input.prepare(*project);
  std::vector<std::string> args = {"--json"};
  args.insert(args.end(), input.args.begin(), input.args.end());

  const RunTarget target{.dir = input.dir.empty() ? fs::path() : project->dir().path() / input.dir,
                         .uri = input.uri ? input.uri(*project) : std::string(),
                         .secrets = input.uri_secrets};
  expect_refused(*project, args, input.env, input.exit_code, input.code, input.culprit, target);
  if (!input.baseline) {
    EXPECT_EQ(project->dump(), "");
  }
}

BadInput invalid_format(std::string name, std::string text) {
  const std::string file = "0002-" + name + ".sql";
  return {.name = "Format_" + name,
          .files = {{file, std::move(text)}},
          .args = {"up"},
          .exit_code = 20,
          .code = "MIGRATION_INVALID_FORMAT",
          .culprit = file};
}

// A transactional migration holding `text` whose statement at `where` is refused.
BadInput refused_statement(std::string name, std::string text, std::string where) {
  BadInput input = invalid_format(std::move(name), std::move(text));
  input.culprit += " " + where;
  return input;
}

BadInput invalid_name(std::string name, std::string file) {
  return {.name = "Name_" + std::move(name),
          .files = {{file, kValid}},
          .args = {"up"},
          .exit_code = 19,
          .code = "MIGRATION_INVALID_NAME",
          .culprit = file};
}

BadInput bad_config(std::string name, std::string text, std::string culprit) {
  return {.name = "ConfigFile_" + std::move(name),
          .files = {{"0002-two.sql", kValid}},
          .config_file = std::move(text),
          .args = {"up"},
          .exit_code = 6,
          .code = "CONFIG_INVALID",
          .culprit = std::move(culprit)};
}

BadInput bad_env(std::string name, std::string variable, std::string value) {
  return {.name = "Env_" + std::move(name),
          .files = {{"0002-two.sql", kValid}},
          .env = {{variable, std::move(value)}},
          .args = {"up"},
          .exit_code = 6,
          .code = "CONFIG_INVALID",
          .culprit = variable};
}

BadInput bad_flags(std::string name, std::vector<std::string> args, std::string culprit) {
  return {.name = "Flags_" + std::move(name),
          .files = {{"0002-two.sql", kValid}},
          .args = std::move(args),
          .exit_code = 6,
          .code = "CONFIG_INVALID",
          .culprit = std::move(culprit)};
}

// The migrations folder given with --dir is `folder` (inside the project's own directory),
// prepared by `make` (which may leave it absent).
BadInput bad_folder(std::string name, std::vector<std::string> command, std::string folder,
                    std::function<void(const fs::path&)> make) {
  return {
      .name = "Dir_" + std::move(name),
      .args = std::move(command),
      .exit_code = 35,
      .code = "MIGRATIONS_DIR_NOT_FOUND",
      .culprit = folder,
      .prepare = [folder, make](const Project& project) { make(project.dir().path() / folder); },
      .dir = folder};
}

// An entry of the migrations folder named like a migration that `make` turns into something
// that cannot be read as one.
BadInput unreadable_entry(std::string name, std::string entry,
                          std::function<void(const Project&, const fs::path&)> make) {
  return {.name = "Entry_" + std::move(name),
          .files = {{"0002-two.sql", kValid}},
          .args = {"up"},
          .exit_code = 36,
          .code = "MIGRATION_FILE_UNREADABLE",
          .culprit = entry,
          .prepare = [entry, make](const Project& project) {
            make(project, project.migrations() / entry);
          }};
}

// A changelog record altered by hand (`assignment` on 0001-base.sql, after `before`, SQL if any),
// then read by `command`.
BadInput tampered_changelog(std::string name, std::vector<std::string> command,
                            std::string assignment, std::string culprit, std::string before = {},
                            std::vector<std::string> stores = kSqlStores) {
  return {.name = "Changelog_" + std::move(name),
          .files = {{"0002-two.sql", kValid}},
          .args = std::move(command),
          .exit_code = 37,
          .code = "CHANGELOG_INVALID",
          .culprit = std::move(culprit),
          .prepare =
              [assignment, before](const Project& project) {
                if (!before.empty()) project.exec(before);
                project.exec("UPDATE _migronaut_migrations SET " + assignment +
                             " WHERE name = '0001-base.sql'");
              },
          .stores = std::move(stores)};
}

// The lock table renamed away and a view put in its place, after `before` (SQL, if any).
BadInput lock_replaced_by_view(std::string name, std::string before) {
  return {.name = "Lock_" + std::move(name),
          .files = {{"0002-two.sql", kValid}},
          .args = {"up"},
          .exit_code = 38,
          .code = "SCHEMA_INVALID",
          .culprit = "_migronaut_locks is a view",
          .prepare = [before](const Project& project) {
            if (!before.empty()) project.exec(before);
            project.exec("ALTER TABLE _migronaut_locks RENAME TO real_locks");
            project.exec("CREATE VIEW _migronaut_locks AS SELECT * FROM real_locks");
          }};
}

// A foreign lock row no sane holder writes, in the way of `up --wait`.
BadInput ghost_lock(std::string name, std::int64_t age_ms, std::int64_t ttl_ms) {
  return {.name = "Lock_" + std::move(name),
          .files = {{"0002-two.sql", kValid}},
          .args = {"up", "--wait", "--wait-timeout", "60000"},
          .exit_code = 40,
          .code = "LOCK_RECORD_INVALID",
          .culprit = "ghost-host",
          .prepare = [age_ms, ttl_ms](const Project& project) {
            project.exec(project.ghost_lock_sql(age_ms, ttl_ms));
          }};
}

// `uri` (PostgreSQL's), which `status` refuses before connecting, naming `culprit` and showing
// none of `secrets`.
BadInput bad_uri(std::string name, std::string uri, std::string culprit,
                 std::vector<std::string> secrets) {
  return {.name = std::move(name),
          .args = {"status"},
          .exit_code = 6,
          .code = "CONFIG_INVALID",
          .culprit = std::move(culprit),
          .uri = [uri](const Project&) { return uri; },
          .uri_secrets = std::move(secrets),
          .stores = {"postgres"}};
}

const BadInput kCorpus[] = {
    invalid_format("NoMarkers", "CREATE TABLE two (id INTEGER);\n"),
    invalid_format("OnlyDown", "-- migrate:down\nDROP TABLE base;\n"),
    invalid_format("DuplicateUp", "-- migrate:up\nSELECT 1;\n-- migrate:up\nSELECT 2;\n"),
    invalid_format("UnknownOption", "-- migrate:up notransaction\nSELECT 1;\n"),
    refused_statement("TransactionMaybe", "-- migrate:up transaction:maybe\nSELECT 1;\n",
                      "at line 1: invalid value 'maybe' for option 'transaction': it takes true "
                      "or false"),
    invalid_format("TextBeforeMarker", "SELECT 0;\n-- migrate:up\nSELECT 1;\n"),
    // Recorded as applied having done nothing, a later edit would only show as drift.
    invalid_format("OnlyCommentsInUp",
                   "-- migrate:up\n-- TODO write this\n/* and this */ ;\n-- migrate:down\n"),
    // Nothing runs half: transaction control is refused before anything of the run runs.
    refused_statement("Commit",
                      "-- migrate:up\nINSERT INTO base VALUES (2);\n  COMMIT;\nINSERT INTO base "
                      "VALUES (3);\n",
                      "at line 3, column 3: `COMMIT`"),
    refused_statement("End", "-- migrate:up\nINSERT INTO base VALUES (2); END;\n",
                      "at line 2, column 30: `END`"),
    refused_statement("Rollback", "-- migrate:up\nDELETE FROM base;\nROLLBACK;\n",
                      "at line 3, column 1: `ROLLBACK`"),
    refused_statement("Begin", "-- description: x\n-- migrate:up\nBEGIN;\nDELETE FROM base;\n",
                      "at line 3, column 1: `BEGIN`"),
    refused_statement("ReleaseOfASavepointNotOpened",
                      "-- migrate:up\nSAVEPOINT a;\nDELETE FROM base;\nRELEASE a;\nRELEASE b;\n",
                      "at line 5, column 1: `RELEASE b`"),
    refused_statement("Vacuum", "-- migrate:up\nDELETE FROM base;\n/* tidy */ VACUUM;\n",
                      "at line 3, column 12: `VACUUM`"),
    [] {
      BadInput input = refused_statement(
          "InTheDownSection",
          "-- migrate:up\nSELECT 1;\n-- migrate:down\nDELETE FROM base; COMMIT;\n",
          "at line 4, column 19: `COMMIT`");
      input.setup = {{"up"}};
      input.args = {"down", "0002-InTheDownSection.sql"};
      return input;
    }(),
    // A later migration's COMMIT stops the whole run before the valid one ahead of it runs.
    {.name = "Format_CommitInTheSecondOfTwo",
     .files = {{"0002-two.sql", kValid},
               {"0003-commit.sql", "-- migrate:up\nINSERT INTO base VALUES (2);\nCOMMIT;\n"}},
     .args = {"up"},
     .exit_code = 20,
     .code = "MIGRATION_INVALID_FORMAT",
     .culprit = "0003-commit.sql at line 3, column 1: `COMMIT`"},
    invalid_format("NulByte", std::string("-- migrate:up\nINSERT INTO base VALUES (2);\0\nDROP "
                                          "TABLE base;\n",
                                          61)),
    invalid_format("InvalidUtf8", "-- migrate:up\nINSERT INTO base VALUES (2); -- caf\xE9\n"),
    [] {
      BadInput input = invalid_format("OnAnEmptyDatabase", "DROP TABLE base;\n");
      input.baseline = false;
      return input;
    }(),
    invalid_name("NoVersion", "create-users.sql"),
    invalid_name("UnderscoreSeparator", "0001_users.sql"),
    invalid_name("Space", "0002-add users.sql"),
    [] {
      BadInput input = invalid_name("FlywayCallback", "afterMigrate.sql");
      input.culprit = "\"afterMigrate.sql\": it is a Flyway callback";
      return input;
    }(),
    // golang-migrate skips it: it never ran there, and is not taken for another naming's file.
    {.name = "Name_GolangMigrateDirectionInUpperCase",
     .baseline = false,
     .files = {{"1_a.up.sql", kValid},
               {"1_a.down.sql", "DROP TABLE two;\n"},
               {"2_b.UP.sql", "CREATE TABLE three (id INTEGER);\n"}},
     .args = {"up"},
     .exit_code = 19,
     .code = "MIGRATION_INVALID_NAME",
     .culprit = "2_b.UP.sql: golang-migrate reads only a lower-case .up or .down and skips this "
                "file, so it never ran there: rename it 2_b.up.sql"},
    [] {
      BadInput input = invalid_name("DuplicateVersion", "0002-a.sql");
      input.files.emplace_back("0002-b.sql", kValid);
      input.culprit = "0002";
      return input;
    }(),
    [] {
      BadInput input = invalid_name("OnAnEmptyDatabase", "create-users.sql");
      input.baseline = false;
      return input;
    }(),
    bad_config("InvalidJson", "{\"lockTTLSeconds\": ", "migronaut.config.json"),
    bad_config("NotAnObject", "[1, 2]", "migronaut.config.json"),
    bad_config("WrongType", R"({"lockTTLSeconds": "ten"})", "lockTTLSeconds"),
    bad_config("UnsafeTableName", R"({"lockCollection": "locks; DROP TABLE x"})", "lockCollection"),
    bad_env("LockTtlText", "MIGRONAUT_LOCK_TTL", "abc"),
    // Written into the lock row and the changelog, then shown on others' terminals.
    bad_env("UserWithANewline", "MIGRONAUT_USER", "eve\nFAKE LINE"),
    bad_env("LockTtlZero", "MIGRONAUT_LOCK_TTL", "0"),
    bad_env("LockTtlNegative", "MIGRONAUT_LOCK_TTL", "-5"),
    bad_env("LockTtlFraction", "MIGRONAUT_LOCK_TTL", "1.5"),
    bad_env("Strict", "MIGRONAUT_STRICT", "maybe"),
    bad_env("OnLockHeld", "MIGRONAUT_ON_LOCK_HELD", "sometimes"),
    bad_env("LockWaitTimeoutNaN", "MIGRONAUT_LOCK_WAIT_TIMEOUT_MS", "NaN"),
    bad_env("PollIntervalZero", "MIGRONAUT_LOCK_POLL_INTERVAL_MS", "0"),
    bad_env("Uri", "MIGRONAUT_URI", "ftp://x"),
    bad_flags("WaitTimeoutNaN", {"up", "--wait", "--wait-timeout", "NaN"}, "--wait-timeout"),
    bad_flags("WaitTimeoutZero", {"up", "--wait", "--wait-timeout", "0"}, "--wait-timeout"),
    bad_flags("WaitTimeoutNegative", {"up", "--wait", "--wait-timeout", "-1"}, "--wait-timeout"),
    bad_flags("WaitTimeoutInfinity", {"up", "--wait", "--wait-timeout", "Infinity"},
              "--wait-timeout"),
    bad_flags("WaitTimeoutUnknownUnit", {"up", "--wait-timeout", "30x"}, "--wait-timeout"),
    bad_flags("WaitTimeoutFraction", {"up", "--wait-timeout", "1.5s"}, "--wait-timeout"),
    bad_flags("WaitCommandTimeout", {"wait", "--timeout", "soon"}, "--timeout"),
    // An unset variable in a manifest: refused, never read as waiting for ever.
    bad_flags("WaitCommandTimeoutEmpty", {"wait", "--timeout", ""}, "--timeout"),
    bad_flags("WaitTimeoutEmpty", {"up", "--wait", "--wait-timeout", ""}, "--wait-timeout"),
    // Unset variables: `down "$MIGRATION"` must not revert the last batch instead.
    bad_flags("DownFileEmpty", {"down", ""}, "the migration to revert is empty"),
    bad_flags("DownToEmpty", {"down", "--to", ""}, "--to is empty"),
    bad_flags("UpStepsEmpty", {"up", "--steps", ""}, "--steps"),
    bad_flags("BaselineToEmpty", {"baseline", "--to", "", "--yes"}, "--to is empty"),
    bad_flags("WaitAndNoWait", {"up", "--wait", "--no-wait"}, "--no-wait"),
    bad_flags("DownStepsZero", {"down", "--steps", "0"}, "--steps"),
    bad_flags("DownStepsText", {"down", "--steps", "abc"}, "--steps"),
    bad_flags("DownStepsAndBatch", {"down", "--steps", "1", "--batch", "1"}, "--batch"),
    bad_flags("DownAllAndSteps", {"down", "--all", "--steps", "1"}, "--to or --all"),
    bad_flags("DryRunUpAll", {"dry-run", "up", "--all"}, "--all goes with down"),
    bad_flags("DryRunUpBatch", {"dry-run", "up", "--batch", "2"}, "--batch goes with down"),
    bad_flags("UnknownFlag", {"up", "--bogus"}, "--bogus"),
    bad_flags("UpStepsZero", {"up", "--steps", "0"}, "--steps"),
    bad_flags("DryRunOutputWithoutSql", {"dry-run", "up", "--output", "review.sql"}, "--output"),
    bad_flags("ImportFromUnknownTool", {"import", "--from", "liquibase"}, "liquibase"),
    bad_flags("ImportFromMisspeltTool", {"import", "--from", "dbmat"}, "did you mean \"dbmate\"?"),
    bad_flags("ImportWithoutATool", {"import"}, "importFrom"),
    {.name = "MixedNamings",
     .files = {{"0002_two.sql", kValid}, {"0003_three.sql", kValid}},
     .args = {"status"},
     .exit_code = 19,
     .code = "MIGRATION_INVALID_NAME",
     .culprit = "0001-base.sql"},
    {.name = "UpToUnknownVersion",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up", "--to", "42"},
     .exit_code = 8,
     .code = "MIGRATION_FILE_NOT_FOUND",
     .culprit = "42"},
    {.name = "ImportIntoAChangelogWithRecords",
     .files = {{"0002-knex.sql",
                "-- migrate:up\nCREATE TABLE knex_migrations (id integer primary key, name "
                "varchar(255), batch integer, migration_time timestamp);\n"}},
     .setup = {{"up"}},
     .args = {"import", "--from", "knex"},
     .exit_code = 17,
     .code = "IMPORT_TARGET_NOT_EMPTY",
     .culprit = "--force"},
    {.name = "ImportADirtyGolangMigrateVersion",
     .files = {{"0002-golang.sql",
                "-- migrate:up\nCREATE TABLE schema_migrations (version bigint, dirty boolean);\n"
                "INSERT INTO schema_migrations VALUES (1, true);\n"}},
     .setup = {{"up"}},
     .args = {"import", "--from", "golang-migrate", "--force"},
     .exit_code = 24,
     .code = "MIGRATION_BLOCKED",
     .culprit = "dirty"},
    {.name = "UpToMissingFile",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up", "--to", "9999-nope.sql"},
     .exit_code = 8,
     .code = "MIGRATION_FILE_NOT_FOUND",
     .culprit = "9999-nope.sql"},
    {.name = "DownNotApplied",
     .files = {{"0002-two.sql", kValid}},
     .args = {"down", "0002-two.sql"},
     .exit_code = 9,
     .code = "NOT_APPLIED",
     .culprit = "0002-two.sql"},
    {.name = "DownWithoutDownSection",
     .files = {{"0002-two.sql", kValid}},
     .setup = {{"up"}},
     .args = {"down"},
     .exit_code = 13,
     .code = "MIGRATION_IRREVERSIBLE",
     .culprit = "0002-two.sql"},

    // A folder that is not there, not a folder, or holds entries that are no migration files:
    // refused, never read as "nothing to apply".
    bad_folder("Missing", {"up"}, "does/not/exist", [](const fs::path&) {}),
    bad_folder("MissingOnStatus", {"status", "--check"}, "nope", [](const fs::path&) {}),
    bad_folder("MissingOnDryRun", {"dry-run", "up"}, "nope", [](const fs::path&) {}),
    bad_folder("IsAFile", {"up"}, "file.txt",
               [](const fs::path& path) { std::ofstream(path) << "not a folder"; }),
    bad_folder("DanglingSymlink", {"up"}, "gone",
               [](const fs::path& path) { fs::create_symlink(path.parent_path() / "x", path); }),
    bad_folder("SymlinkLoop", {"up"}, "loop",
               [](const fs::path& path) { fs::create_symlink(path, path); }),
    unreadable_entry("DanglingSymlink", "0003-gone.sql",
                     [](const Project&, const fs::path& path) {
                       fs::create_symlink(path.parent_path() / "nowhere.sql", path);
                     }),
    unreadable_entry(
        "SymlinkLoop", "0003-loop.sql",
        [](const Project&, const fs::path& path) { fs::create_symlink(path.filename(), path); }),
    unreadable_entry("Directory", "0003-folder.sql",
                     [](const Project&, const fs::path& path) { fs::create_directory(path); }),
    unreadable_entry("SymlinkOutside", "0003-outside.sql",
                     [](const Project& project, const fs::path& path) {
                       const fs::path outside = project.dir().write("elsewhere.sql", kValid);
                       fs::create_symlink(outside, path);
                     }),
    unreadable_entry(
        "Fifo", "0003-fifo.sql",
        [](const Project&, const fs::path& path) { ASSERT_EQ(mkfifo(path.c_str(), 0600), 0); }),

    // Config files: unknown and repeated keys, numbers out of range, values that cannot be.
    bad_config("UnknownKeyNearMiss", R"({"migrationDir": "db"})", "did you mean \"migrationsDir\""),
    bad_config("UnknownKeyTtl", R"({"lockTTLSecond": 5})", "lockTTLSecond"),
    bad_config("UnknownKeyFar", R"({"colour": "blue"})", "colour"),
    bad_config("DuplicateKey", R"({"lockTTLSeconds": 5, "lockTTLSeconds": 50})", "lockTTLSeconds"),
    bad_config("NumberBeyondDouble", R"({"lockTTLSeconds": 1e400})", "migronaut.config.json"),
    bad_config("TtlTooLarge", R"({"lockTTLSeconds": 99999999})", "lockTTLSeconds"),
    bad_config("TtlNegative", R"({"lockTTLSeconds": -1})", "lockTTLSeconds"),
    bad_config("PollIntervalFraction", R"({"lockPollIntervalMs": 0.5})", "lockPollIntervalMs"),
    bad_config("NulInMigrationsDir", R"({"migrationsDir": "migr\u0000ations"})", "migrationsDir"),
    bad_config("MigrationsDirRoot", R"({"migrationsDir": "/"})", "migrationsDir"),
    bad_config("LockTableIsTheChangelog", R"({"lockCollection": "_migronaut_migrations"})",
               "lockCollection"),
    bad_config("UnknownEnumValue", R"({"onLockLost": "ignore"})", "onLockLost"),
    bad_config("NullDocument", "null", "migronaut.config.json"),
    bad_config("TrailingGarbage", R"({"strict": true} x)", "migronaut.config.json"),

    // Environment values are taken as written: no trimming, no coercion.
    bad_env("LockTtlLeadingSpace", "MIGRONAUT_LOCK_TTL", " 5"),
    bad_env("LockTtlTrailingNewline", "MIGRONAUT_LOCK_TTL", "5\n"),
    bad_env("LockTtlOverflow", "MIGRONAUT_LOCK_TTL", "99999999999999999999"),
    bad_env("TimeoutHex", "MIGRONAUT_TIMEOUT_MS", "0x10"),
    bad_env("StrictPadded", "MIGRONAUT_STRICT", " true"),
    bad_env("OnLockLostUppercase", "MIGRONAUT_ON_LOCK_LOST", "ABORT"),
    bad_env("MigrationsDirRoot", "MIGRONAUT_MIGRATIONS_DIR", "/"),
    bad_env("MigrationsDirDoubleSlash", "MIGRONAUT_MIGRATIONS_DIR", "//"),
    [] {
      BadInput input = bad_env("LockCollectionIsTheChangelog", "MIGRONAUT_LOCK_COLLECTION",
                               "_MIGRONAUT_MIGRATIONS");
      input.culprit = "lockCollection";  // a rule across keys names the key
      return input;
    }(),
    bad_env("CollectionTooLong", "MIGRONAUT_COLLECTION", std::string(64, 'c')),

    [] {
      BadInput input = bad_flags("DirRoot", {"up"}, "migrationsDir");
      input.dir = "/";
      return input;
    }(),
    bad_flags("WaitTimeoutHuge", {"up", "--wait", "--wait-timeout", "1e400"}, "--wait-timeout"),
    bad_flags("WaitTimeoutOverflow", {"up", "--wait", "--wait-timeout", "99999999999999999999"},
              "--wait-timeout"),
    bad_flags("DownStepsNegative", {"down", "--steps", "-1"}, "--steps"),
    bad_flags("DryRunSideways", {"dry-run", "sideways"}, "sideways"),
    bad_flags("ListPendingAndApplied", {"list", "--pending", "--applied"}, "--pending"),
    bad_flags("MissingConfigFile", {"up", "--config", "nope.json"}, "nope.json"),

    // A changelog whose numbers would overflow.
    {.name = "Changelog_BatchCounterExhausted",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up"},
     .exit_code = 37,
     .code = "CHANGELOG_INVALID",
     .culprit = "9223372036854775807",
     .prepare =
         [](const Project& project) {
           project.exec("UPDATE _migronaut_migrations SET batch = 9223372036854775807");
         }},
    tampered_changelog("UnknownStatus", {"status"}, "status = 'bogus'", "bogus"),
    tampered_changelog("UnknownStatusOnUp", {"up"}, "status = 'bogus'", "bogus"),
    tampered_changelog("NullStatus", {"status"}, "status = NULL", "0001-base.sql"),
    tampered_changelog("NullStatusOnUp", {"up"}, "status = NULL", "0001-base.sql"),
    // PostgreSQL reads the changelog in binary: a column retyped by hand is named, not misread.
    tampered_changelog("DurationRetypedNumeric", {"up"}, "duration = 1.5", "column duration",
                       "ALTER TABLE _migronaut_migrations ALTER duration TYPE numeric",
                       {"postgres"}),
    {.name = "Changelog_ReplacedByAView",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up"},
     .exit_code = 38,
     .code = "SCHEMA_INVALID",
     .culprit = "_migronaut_migrations",
     .prepare =
         [](const Project& project) {
           project.exec("ALTER TABLE _migronaut_migrations RENAME TO real_log");
           project.exec("CREATE VIEW _migronaut_migrations AS SELECT * FROM real_log");
         }},

    lock_replaced_by_view("ReplacedByAView", ""),
    // No changelog yet: on PostgreSQL the schema block, not the changelog read, meets the view.
    lock_replaced_by_view("ReplacedByAViewBeforeAnyChangelog", "DROP TABLE _migronaut_migrations"),

    // A lock row that cannot be judged is reported with its holder and the way out.
    ghost_lock("TtlNearInt64Max", 0, 9223372036854775000),
    ghost_lock("TtlBeyondAnyConfig", 0, 99999999999),
    ghost_lock("TtlNegative", 0, -5),
    ghost_lock("TtlZero", 0, 0),
    ghost_lock("LockedAtADayAhead", -86'400'000, 60'000),

    // SQLite names that are no database file: nothing is opened, so nothing is applied.
    {.name = "Sqlite_InMemory",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up"},
     .exit_code = 6,
     .code = "CONFIG_INVALID",
     .culprit = "sqlite::memory:",
     .uri = [](const Project&) { return std::string("sqlite::memory:"); },
     .stores = {"sqlite"}},
    {.name = "Sqlite_UriFilename",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up"},
     .exit_code = 6,
     .code = "CONFIG_INVALID",
     .culprit = "sqlite:file:",
     .uri = [](const Project& project) { return "sqlite:file:" + project.uri().substr(7); },
     .stores = {"sqlite"}},
    // Not read as parameters: `?mode=ro` would be part of the name of a new file.
    {.name = "Sqlite_QueryParameters",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up"},
     .exit_code = 6,
     .code = "CONFIG_INVALID",
     .culprit = "?mode=ro",
     .uri = [](const Project& project) { return project.uri() + "?mode=ro"; },
     .stores = {"sqlite"}},
    {.name = "Sqlite_Directory",
     .files = {{"0002-two.sql", kValid}},
     .args = {"up"},
     .exit_code = 6,
     .code = "CONFIG_INVALID",
     .culprit = "is a directory",
     .uri =
         [](const Project& project) {
           return "sqlite:" + fs::path(project.uri().substr(7)).parent_path().string();
         },
     .stores = {"sqlite"}},

    // Secrets: a raw '@' never reaches the driver; a password in the query never shows.
    {.name = "Secret_RawAtInPassword",
     .args = {"status"},
     .exit_code = 6,
     .code = "CONFIG_INVALID",
     .culprit = "%40",
     .uri = [](const Project&) { return std::string("postgres://app:Pa1n@w0rd77@127.0.0.1:1/db"); },
     .uri_secrets = {"Pa1n", "w0rd77"},
     .stores = {"postgres"}},
    // A raw '/' in a password would end the host part there: libpq would read the password's
    // start as the port and print it.
    bad_uri("Secret_RawSlashInPassword", "postgres://sec:Tr0ub4dor/3xyz@127.0.0.1:5432/postgres",
            "%2F", {"Tr0ub4dor", "3xyz"}),
    // Parameters libpq refuses: bad configuration, not an unreachable server; never waited out.
    [] {
      BadInput input =
          bad_uri("Uri_UnknownParameter", "postgres://app:Pa55Bogus9@127.0.0.1:5432/db?bogus=1",
                  "bogus", {"Pa55Bogus9"});
      input.args = {"up", "--wait", "--wait-timeout", "60000"};
      return input;
    }(),
    // dbmate's search_path is taken (as options); the message shows the URI as written.
    bad_uri("Uri_UnknownParameterBesideSearchPath",
            "postgres://app:Pa55Path9@127.0.0.1:5432/db?search_path=s&bogus=1",
            "?search_path=s&bogus=1: invalid URI query parameter: \"bogus\"", {"Pa55Path9"}),
    bad_uri("Uri_UnknownSslmode", "postgres://app:Pa55Ssl9@127.0.0.1:1/db?sslmode=bogus", "sslmode",
            {"Pa55Ssl9"}),
    [] {
      BadInput input = bad_uri("Uri_PortOutOfRange", "postgres://app:Pa55Port9@127.0.0.1:99999/db",
                               "port", {"Pa55Port9"});
      input.args = {"up", "--wait", "--wait-timeout", "60000"};
      return input;
    }(),
    {.name = "Secret_PasswordParameterUnreachable",
     .args = {"status"},
     .exit_code = 5,
     .code = "CONNECTION_FAILED",
     .culprit = "127.0.0.1",
     .uri =
         [](const Project&) {
           return std::string("postgres://app@127.0.0.1:1/db?password=Qu0te\"Sec7et");
         },
     .uri_secrets = {"Qu0te", "Sec7et"},
     .stores = {"postgres"}},
    {.name = "Secret_EncodedAtUnreachable",
     .args = {"up"},
     .exit_code = 5,
     .code = "CONNECTION_FAILED",
     .culprit = "127.0.0.1",
     .uri =
         [](const Project&) {
           return std::string("postgresql://app:Hid%40den9Pw@127.0.0.1:1/db?sslmode=disable");
         },
     .uri_secrets = {"Hid%40den9Pw", "den9Pw"},
     .stores = {"postgres"}},
    {.name = "Permission_RoleCannotCreateTables",
     .baseline = false,
     .files = {{"0002-two.sql", kValid}},
     .args = {"up"},
     .exit_code = 39,
     .code = "PERMISSION_DENIED",
     .culprit = "permission denied",
     .prepare =
         [](const Project& project) {
           project.exec(
               "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'weak_role') "
               "THEN CREATE ROLE weak_role LOGIN; END IF; END $$");
           project.exec("GRANT USAGE ON SCHEMA " +
                        project.uri().substr(project.uri().rfind("%3D") + 3) + " TO weak_role");
         },
     .uri =
         [](const Project& project) {
           std::string uri = project.uri();
           return uri.replace(uri.find("//postgres:") + 2, 9, "weak_role:");
         },
     .stores = {"postgres"}},
};

// Every case on every store it applies to.
std::vector<CaseOnStore> corpus_on_stores() {
  std::vector<CaseOnStore> cases;
  for (const BadInput& input : kCorpus) {
    for (const std::string& store : input.stores) cases.push_back({input, store});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInputTest, ::testing::ValuesIn(corpus_on_stores()),
                         [](const ::testing::TestParamInfo<CaseOnStore>& info) {
                           return info.param.input.name + "_" + info.param.store;
                         });

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string utc_timestamp(std::chrono::system_clock::time_point at) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[16];
  std::strftime(text, sizeof(text), "%Y%m%d%H%M%S", &utc);
  return text;
}

TEST(BadInputCreate, OntoAnExistingNameIsRefusedAndTheFileKept) {
  const std::unique_ptr<Project> owned = sqlite_project();
  const Project& project = *owned;
  project.write_migration("0001-base.sql", kBaseline);
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  // `create` names the file after the current second: whichever second it runs in, a file of
  // that name is already there.
  std::map<std::filesystem::path, std::string> existing;
  const auto now = std::chrono::system_clock::now();
  for (int offset = -2; offset <= 30; ++offset) {
    const std::string name = utc_timestamp(now + std::chrono::seconds(offset)) + "-add-tags.sql";
    const std::string text = "-- migrate:up\nSELECT " + std::to_string(offset) + ";\n";
    existing[project.write_migration(name, text)] = text;
  }

  expect_refused(project, {"--json", "create", "add tags"}, {}, 18, "MIGRATION_FILE_EXISTS",
                 "-add-tags.sql");
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(project.migrations())) {
    ++files;
    if (entry.path().filename() == "0001-base.sql") continue;
    ASSERT_TRUE(existing.contains(entry.path())) << "created " << entry.path();
    EXPECT_EQ(read_file(entry.path()), existing[entry.path()]) << entry.path();
  }
  EXPECT_EQ(files, existing.size() + 1);
}

// The way out the LOCK_RECORD_INVALID message names does get the fleet going again.
TEST(BadInputLock, AnUnusableLockRowIsClearedByUnlock) {
  for (const std::string& store : kSqlStores) {
    const std::unique_ptr<Project> project = project_for(store, "unlock_ghost_" + store);
    project->write_migration("0001-base.sql", kBaseline);
    ASSERT_EQ(project->run({"up"}).exit_code, 0);
    project->write_migration("0002-two.sql", kValid);
    project->exec(project->ghost_lock_sql(-86'400'000, 60'000));
    EXPECT_EQ(project->run({"up"}).exit_code, 40) << store;
    // audit fails where up refuses: the row does not pass for a live holder's.
    const ProcessResult audit = project->run({"audit"});
    EXPECT_EQ(audit.exit_code, 22) << describe(audit);
    EXPECT_NE(audit.out.find("unusable, it was renewed"), std::string::npos) << describe(audit);
    const ProcessResult shown = project->run({"lock"});
    EXPECT_EQ(shown.exit_code, 0) << describe(shown);
    EXPECT_NE(shown.err.find("The lock row cannot be trusted"), std::string::npos)
        << describe(shown);
    const ProcessResult unlocked = project->run({"unlock", "--yes"});
    EXPECT_EQ(unlocked.exit_code, 0) << describe(unlocked);
    const ProcessResult applied = project->run({"up"});
    EXPECT_EQ(applied.exit_code, 0) << describe(applied);
    EXPECT_NE(project->dump().find("0002-two.sql"), std::string::npos) << store;
  }
}

// A batch with two migrations no down section can revert is refused naming both, not the first
// alone (and the next after it is fixed).
TEST(BadInputDown, EveryIrreversibleMigrationOfTheBatchIsNamed) {
  for (const std::string& store : kSqlStores) {
    const std::unique_ptr<Project> project = project_for(store, "down_irreversible_" + store);
    project->write_migration("0001-base.sql", kBaseline);
    project->write_migration("0002-two.sql", kValid);
    project->write_migration("0003-three.sql", "-- migrate:up\nCREATE TABLE three (id INTEGER);\n");
    ASSERT_EQ(project->run({"up"}).exit_code, 0) << store;
    const nlohmann::json error = expect_refused(*project, {"--json", "down"}, {}, 13,
                                                "MIGRATION_IRREVERSIBLE", "0002-two.sql");
    EXPECT_NE(error.value("message", "").find("0003-three.sql"), std::string::npos) << error;
    EXPECT_EQ(error["context"].value("names", nlohmann::json()),
              nlohmann::json::array({"0003-three.sql", "0002-two.sql"}))
        << store;
  }
}

// `lock --json` marks the rows `up` refuses as untrustworthy, as its human lines and `audit` do,
// and only reads them.
TEST(BadInputLock, LockJsonMarksAnUnusableLockRowUntrusted) {
  // A TTL no holder sets, a renewal a day ahead of the database's clock, a live holder's row.
  const struct {
    std::int64_t age_ms;
    std::int64_t ttl_ms;
    bool untrusted;
  } kRows[] = {{0, 0, true}, {-86'400'000, 60'000, true}, {0, 60'000, false}};
  for (const std::string& store : kSqlStores) {
    const std::unique_ptr<Project> project = project_for(store, "lock_json_ghost_" + store);
    project->write_migration("0001-base.sql", kBaseline);
    ASSERT_EQ(project->run({"up"}).exit_code, 0);
    for (const auto& row : kRows) {
      project->exec("DELETE FROM _migronaut_locks");
      project->exec(project->ghost_lock_sql(row.age_ms, row.ttl_ms));
      const std::string before = project->bytes();
      const ProcessResult shown = project->run({"--json", "lock"});
      ASSERT_EQ(shown.exit_code, 0) << describe(shown);
      const nlohmann::json document = nlohmann::json::parse(shown.out);
      EXPECT_EQ(document["holder"]["host"], "ghost-host") << describe(shown);
      EXPECT_EQ(document.value("untrusted", nlohmann::json()), row.untrusted)
          << store << ": TTL " << row.ttl_ms << " ms, taken " << row.age_ms << " ms ago";
      EXPECT_EQ(project->bytes(), before) << "lock changed the database";
    }
  }
}

}  // namespace
}  // namespace migronaut::testing

// The bad-input corpus: malformed migrations, names, config files, environment
// values and flags, each given to the real `migronaut` binary on SQLite. Every case must exit
// with its own status, name its error code in --json, say what is wrong and where, and leave
// the database exactly as it found it.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process/sqlite_project.hpp"

namespace migronaut::testing {
namespace {

constexpr const char* kBaseline =
    "-- migrate:up\nCREATE TABLE base (id INTEGER);\nINSERT INTO base "
    "VALUES (1);\n-- migrate:down\nDROP TABLE base;\n";
constexpr const char* kValid = "-- migrate:up\nCREATE TABLE two (id INTEGER);\n";

struct BadInput {
  std::string name;
  // Applies 0001-base.sql first, so "unchanged" covers real tables, records and rows; without
  // it the database must stay absent.
  bool baseline = true;
  std::vector<std::pair<std::string, std::string>> files = {};  // migrations written next
  std::vector<std::vector<std::string>> setup = {};             // commands that must then succeed
  std::string config_file = {};  // ./migronaut.config.json in the working directory, when set
  Env env = {};
  std::vector<std::string> args = {};
  int exit_code = 0;
  std::string code = {};
  std::string culprit = {};  // the message must name it
};

std::ostream& operator<<(std::ostream& out, const BadInput& input) { return out << input.name; }

std::string describe(const ProcessResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\nstdout: " + result.out +
         "\nstderr: " + result.err;
}

// Runs `args` and checks the error it must end with and that the database did not change.
void expect_refused(const SqliteProject& project, const std::vector<std::string>& args,
                    const Env& env, int exit_code, const std::string& code,
                    const std::string& culprit) {
  const std::string before = project.dump();
  const ProcessResult result = project.run(args, env);

  EXPECT_EQ(result.exit_code, exit_code) << describe(result);
  nlohmann::json error;
  try {
    error = nlohmann::json::parse(result.out).at("error");
  } catch (const nlohmann::json::exception&) {
    FAIL() << "no {\"error\": …} document on stdout\n" << describe(result);
  }
  EXPECT_EQ(error["code"], code);
  const std::string message = error["message"].get<std::string>();
  EXPECT_NE(message.find(culprit), std::string::npos) << "message: " << message;
  EXPECT_NE(result.err.find(culprit), std::string::npos) << "stderr: " << result.err;

  EXPECT_EQ(project.dump(), before);
  EXPECT_EQ(project.lock_row(), std::nullopt);
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {
 protected:
  SqliteProject project;
};

TEST_P(BadInputTest, IsRefusedWithItsCodeAndChangesNothing) {
  const BadInput& input = GetParam();
  if (input.baseline) {
    project.write_migration("0001-base.sql", kBaseline);
    const ProcessResult applied = project.run({"up"});
    ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  }
  for (const auto& [name, text] : input.files) project.write_migration(name, text);
  for (const std::vector<std::string>& command : input.setup) {
    const ProcessResult result = project.run(command);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
  }
  if (!input.config_file.empty()) {
    project.dir().write(project.cwd() / "migronaut.config.json", input.config_file);
  }
  std::vector<std::string> args = {"--json"};
  args.insert(args.end(), input.args.begin(), input.args.end());

  expect_refused(project, args, input.env, input.exit_code, input.code, input.culprit);
  if (!input.baseline) {
    EXPECT_EQ(project.dump(), "");
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

const BadInput kCorpus[] = {
    invalid_format("NoMarkers", "CREATE TABLE two (id INTEGER);\n"),
    invalid_format("OnlyDown", "-- migrate:down\nDROP TABLE base;\n"),
    invalid_format("DuplicateUp", "-- migrate:up\nSELECT 1;\n-- migrate:up\nSELECT 2;\n"),
    invalid_format("UnknownOption", "-- migrate:up transaction:maybe\nSELECT 1;\n"),
    invalid_format("TextBeforeMarker", "SELECT 0;\n-- migrate:up\nSELECT 1;\n"),
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
    refused_statement(
        "ReleaseOfASavepointNotOpened",
        "-- migrate:up\nSAVEPOINT a;\nDELETE FROM base;\nRELEASE a;\nRELEASE outer;\n",
        "at line 5, column 1: `RELEASE outer`"),
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
    bad_flags("WaitAndNoWait", {"up", "--wait", "--no-wait"}, "--no-wait"),
    bad_flags("DownStepsZero", {"down", "--steps", "0"}, "--steps"),
    bad_flags("DownStepsText", {"down", "--steps", "abc"}, "--steps"),
    bad_flags("DownStepsAndBatch", {"down", "--steps", "1", "--batch", "1"}, "--batch"),
    bad_flags("UnknownFlag", {"up", "--bogus"}, "--bogus"),
    bad_flags("UpStepsZero", {"up", "--steps", "0"}, "--steps"),
    bad_flags("DryRunOutputWithoutSql", {"dry-run", "up", "--output", "review.sql"}, "--output"),
    bad_flags("ImportFromUnknownTool", {"import", "--from", "liquibase"}, "liquibase"),
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
                "varchar(255), batch integer, migration_time datetime);\n"}},
     .setup = {{"up"}},
     .args = {"import", "--from", "knex"},
     .exit_code = 17,
     .code = "IMPORT_TARGET_NOT_EMPTY",
     .culprit = "--force"},
    {.name = "ImportADirtyGolangMigrateVersion",
     .files = {{"0002-golang.sql",
                "-- migrate:up\nCREATE TABLE schema_migrations (version uint64,dirty bool);\n"
                "INSERT INTO schema_migrations VALUES (1, 1);\n"}},
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
};

INSTANTIATE_TEST_SUITE_P(Corpus, BadInputTest, ::testing::ValuesIn(kCorpus),
                         [](const ::testing::TestParamInfo<BadInput>& info) {
                           return info.param.name;
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
  SqliteProject project;
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

}  // namespace
}  // namespace migronaut::testing

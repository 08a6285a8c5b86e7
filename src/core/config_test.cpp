#include "migronaut/config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "migronaut/errors.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class LoadConfigTest : public ::testing::Test {
 protected:
  ConfigSources sources() const {
    ConfigSources result;
    result.cwd = dir_.path();
    return result;
  }
  void write_config(const json& document) const {
    dir_.write("migronaut.config.json", document.dump());
  }

  testing::TempDir dir_;
};

// Runs `load` and returns the ConfigInvalidError it must throw.
template <typename F>
ConfigInvalidError config_error(F load) {
  try {
    load();
  } catch (const ConfigInvalidError& error) {
    return error;
  }
  ADD_FAILURE() << "expected ConfigInvalidError";
  return ConfigInvalidError("none");
}

// What a caller checks the environment against: every variable load_config reads, and only those.
TEST(ConfigVariablesTest, NameEveryVariableLoadConfigReads) {
  const std::vector<std::string_view> names = config_variables();
  for (std::string_view name : {"MIGRONAUT_URI", "MIGRONAUT_USER", "MIGRONAUT_LOCK_WAIT_TIMEOUT_MS",
                                "MIGRONAUT_ENV_FILE", "MIGRONAUT_ON_LOCK_HELD"}) {
    EXPECT_THAT(names, ::testing::Contains(name));
  }
  EXPECT_THAT(names, Not(::testing::Contains("MIGRONAUT_LOCK_WAIT_TIMEOUT")));
  EXPECT_EQ(names.size(), 24u);  // the 23 keys' variables and MIGRONAUT_USER
}

TEST_F(LoadConfigTest, DefaultsApplyWithOnlyAUri) {
  auto s = sources();
  s.flags = {{"uri", "sqlite:app.db"}};
  const Config config = load_config(s);
  EXPECT_EQ(config.uri, "sqlite:app.db");
  EXPECT_EQ(config.migrations_dir, dir_.path() / "migrations");
  EXPECT_EQ(config.migrations_table, "_migronaut_migrations");
  EXPECT_EQ(config.lock_table, "_migronaut_locks");
  EXPECT_EQ(config.lock_ttl_seconds, 60);
  EXPECT_FALSE(config.use_transaction.has_value());
  EXPECT_FALSE(config.timeout_ms.has_value());
  EXPECT_FALSE(config.lock_wait_timeout_ms.has_value());
  EXPECT_EQ(config.lock_poll_interval_ms, 500);
  EXPECT_EQ(config.environment, "production");
  EXPECT_EQ(config.on_lock_lost, OnLockLost::kAbort);
  EXPECT_EQ(config.on_out_of_order, OnOutOfOrder::kWarn);
  EXPECT_EQ(config.on_lock_held, OnLockHeld::kWait);
  EXPECT_EQ(config.executed_by, "");  // the OS user, asked when a run writes
}

TEST_F(LoadConfigTest, EachLayerBeatsTheOneBelow) {
  write_config({{"uri", "sqlite:file.db"}, {"lockTTLSeconds", 10}, {"dbName", "from_file"}});
  auto s = sources();
  EXPECT_EQ(load_config(s).lock_ttl_seconds, 10);
  s.environment = {{"MIGRONAUT_LOCK_TTL", "20"}, {"MIGRONAUT_URI", "sqlite:env.db"}};
  EXPECT_EQ(load_config(s).lock_ttl_seconds, 20);
  EXPECT_EQ(load_config(s).uri, "sqlite:env.db");
  s.flags = {{"lockTTLSeconds", 30}};
  const Config config = load_config(s);
  EXPECT_EQ(config.lock_ttl_seconds, 30);
  EXPECT_EQ(config.uri, "sqlite:env.db");
  EXPECT_EQ(config.db_name, "from_file");
}

TEST_F(LoadConfigTest, DatabaseUrlIsTheFallbackBelowEveryLayer) {
  auto s = sources();
  s.environment = {{"DATABASE_URL", "postgres://db/platform"}};
  EXPECT_EQ(load_config(s).uri, "postgres://db/platform");
  write_config({{"uri", "sqlite:file.db"}});  // relative to the config file's folder
  EXPECT_EQ(load_config(s).uri, "sqlite:" + (dir_.path() / "file.db").string());
  s.environment["MIGRONAUT_URI"] = "sqlite:env.db";
  EXPECT_EQ(load_config(s).uri, "sqlite:env.db");
  s.flags = {{"uri", "sqlite:flag.db"}};
  EXPECT_EQ(load_config(s).uri, "sqlite:flag.db");
}

TEST_F(LoadConfigTest, AnInvalidDatabaseUrlIsRefused) {
  auto s = sources();
  s.environment = {{"DATABASE_URL", "mysql://db/app"}};
  EXPECT_THROW(load_config(s), ConfigInvalidError);
}

TEST_F(LoadConfigTest, UndefinedKeysDoNotErase) {
  write_config({{"uri", "sqlite:file.db"}, {"onLockHeld", "throw"}, {"strict", true}});
  auto s = sources();
  s.flags = {{"onLockHeld", nullptr}, {"strict", nullptr}};
  const Config config = load_config(s);
  EXPECT_EQ(config.on_lock_held, OnLockHeld::kThrow);
  EXPECT_TRUE(config.strict);
}

TEST_F(LoadConfigTest, EveryKeyReachesTheConfig) {
  auto s = sources();
  s.environment = {{"MIGRONAUT_URI", "postgres://db/app"},
                   {"MIGRONAUT_DB", "app"},
                   {"MIGRONAUT_MIGRATIONS_DIR", "/abs/migrations"},
                   {"MIGRONAUT_COLLECTION", "changelog"},
                   {"MIGRONAUT_LOCK_COLLECTION", "locks"},
                   {"MIGRONAUT_LOCK_TTL", "5"},
                   {"MIGRONAUT_STRICT", "yes"},
                   {"MIGRONAUT_USE_TRANSACTION", "FALSE"},
                   {"MIGRONAUT_SEQUENTIAL", "1"},
                   {"MIGRONAUT_TEMPLATE_PATH", "tpl.sql"},
                   {"MIGRONAUT_TIMEOUT_MS", "1000"},
                   {"MIGRONAUT_ENVIRONMENT", "staging"},
                   {"MIGRONAUT_ON_LOCK_LOST", "warn"},
                   {"MIGRONAUT_ON_OUT_OF_ORDER", "error"},
                   {"MIGRONAUT_ON_LOCK_HELD", "throw"},
                   {"MIGRONAUT_LOCK_WAIT_TIMEOUT_MS", "7000"},
                   {"MIGRONAUT_LOCK_POLL_INTERVAL_MS", "250"},
                   {"MIGRONAUT_IMPORT_FROM", "flyway"},
                   {"MIGRONAUT_IMPORT_TABLE", "app.flyway_history"},
                   {"MIGRONAUT_FLYWAY_PLACEHOLDERS", "literal"},
                   {"MIGRONAUT_USER", "deployer"}};
  const Config config = load_config(s);
  EXPECT_EQ(config.uri, "postgres://db/app");
  EXPECT_EQ(config.db_name, "app");
  EXPECT_EQ(config.migrations_dir, "/abs/migrations");
  EXPECT_EQ(config.migrations_table, "changelog");
  EXPECT_EQ(config.lock_table, "locks");
  EXPECT_EQ(config.lock_ttl_ms(), 5000);
  EXPECT_TRUE(config.strict);
  EXPECT_EQ(config.use_transaction, false);
  EXPECT_TRUE(config.sequential);
  EXPECT_EQ(config.template_path, dir_.path() / "tpl.sql");
  EXPECT_EQ(config.timeout_ms, 1000);
  EXPECT_EQ(config.environment, "staging");
  EXPECT_EQ(config.on_lock_lost, OnLockLost::kWarn);
  EXPECT_EQ(config.on_out_of_order, OnOutOfOrder::kError);
  EXPECT_EQ(config.on_lock_held, OnLockHeld::kThrow);
  EXPECT_EQ(config.lock_wait_timeout_ms, 7000);
  EXPECT_EQ(config.lock_poll_interval_ms, 250);
  EXPECT_EQ(config.import_from, "flyway");
  EXPECT_EQ(config.flyway_placeholders, FlywayPlaceholders::kLiteral);
  EXPECT_EQ(config.import_table, "app.flyway_history");
  EXPECT_EQ(config.executed_by, "deployer");
}

struct BadEnvCase {
  std::string variable;
  std::string value;
  friend void PrintTo(const BadEnvCase& c, std::ostream* out) {
    *out << c.variable << "=\"" << c.value << "\"";
  }
};

class BadEnvironmentValueTest : public ::testing::TestWithParam<BadEnvCase> {};

TEST_P(BadEnvironmentValueTest, IsRejectedNamingTheVariable) {
  testing::TempDir dir;
  ConfigSources s;
  s.cwd = dir.path();
  s.environment = {{"MIGRONAUT_URI", "sqlite:app.db"}};
  s.environment[GetParam().variable] = GetParam().value;
  const ConfigInvalidError error = config_error([&] { load_config(s); });
  EXPECT_EQ(error.context()["variable"], GetParam().variable);
  EXPECT_EQ(error.context()["value"], GetParam().value);
  EXPECT_THAT(error.what(), HasSubstr(GetParam().variable));
}

std::vector<BadEnvCase> bad_environment_values() {
  std::vector<BadEnvCase> cases;
  for (const char* variable :
       {"MIGRONAUT_STRICT", "MIGRONAUT_USE_TRANSACTION", "MIGRONAUT_SEQUENTIAL"}) {
    for (const char* value : {"", "maybe", "2", "on", "truee", " true", "1\n"}) {
      cases.push_back({variable, value});
    }
  }
  for (const char* variable :
       {"MIGRONAUT_LOCK_TTL", "MIGRONAUT_TIMEOUT_MS", "MIGRONAUT_LOCK_WAIT_TIMEOUT_MS",
        "MIGRONAUT_LOCK_POLL_INTERVAL_MS"}) {
    for (const char* value :
         {"", "abc", "1.5", "0", "-3", "+3", "NaN", "Infinity", "1e3", "0x10", "12abc",
          "99999999999999999999", "2147483648", " 5", "5\n", "5 ", "\t5"}) {
      cases.push_back({variable, value});
    }
  }
  for (const char* variable :
       {"MIGRONAUT_ON_LOCK_LOST", "MIGRONAUT_ON_OUT_OF_ORDER", "MIGRONAUT_ON_LOCK_HELD"}) {
    for (const char* value : {"", "bogus", "WARN", " warn"}) cases.push_back({variable, value});
  }
  for (const char* variable : {"MIGRONAUT_COLLECTION", "MIGRONAUT_LOCK_COLLECTION"}) {
    for (const std::string& value : {std::string(""), std::string("1abc"), std::string("a-b"),
                                     std::string("x; DROP TABLE y"), std::string(64, 'a')}) {
      cases.push_back({variable, value});
    }
  }
  for (const char* variable :
       {"MIGRONAUT_MIGRATIONS_DIR", "MIGRONAUT_TEMPLATE_PATH", "MIGRONAUT_ENV_FILE"}) {
    cases.push_back({variable, ""});
    cases.push_back({variable, "migrations "});
  }
  for (const char* root : {"/", "//", "/..", "/./"}) {
    cases.push_back({"MIGRONAUT_MIGRATIONS_DIR", root});
  }
  for (const char* value : {"", "liquibase", "Flyway", " dbmate"}) {
    cases.push_back({"MIGRONAUT_IMPORT_FROM", value});
  }
  for (const char* value : {"", "a.b.c", ".history", "app.", "x; DROP TABLE y", "a-b"}) {
    cases.push_back({"MIGRONAUT_IMPORT_TABLE", value});
  }
  cases.push_back({"MIGRONAUT_URI", "sqlite:app.db\n"});
  cases.push_back({"MIGRONAUT_ENVIRONMENT", " staging"});
  cases.push_back({"MIGRONAUT_URI", "mysql://h/db"});
  cases.push_back({"MIGRONAUT_URI", ""});
  cases.push_back({"MIGRONAUT_LOCK_TTL", "2147484"});  // × 1000 leaves 32 bits
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllVariables, BadEnvironmentValueTest,
                         ::testing::ValuesIn(bad_environment_values()));

TEST_F(LoadConfigTest, AcceptsBooleanSpellings) {
  for (const char* truthy : {"true", "TRUE", "1", "Yes"}) {
    auto s = sources();
    s.environment = {{"MIGRONAUT_URI", "sqlite:a.db"}, {"MIGRONAUT_STRICT", truthy}};
    EXPECT_TRUE(load_config(s).strict) << truthy;
  }
  for (const char* falsy : {"false", "0", "NO", "no"}) {
    auto s = sources();
    s.environment = {{"MIGRONAUT_URI", "sqlite:a.db"}, {"MIGRONAUT_STRICT", falsy}};
    EXPECT_FALSE(load_config(s).strict) << falsy;
  }
}

TEST_F(LoadConfigTest, BadUriValueIsRedactedInTheError) {
  auto s = sources();
  s.environment = {{"MIGRONAUT_URI", "mysql://root:hunter2@db/app"}};
  const ConfigInvalidError error = config_error([&] { load_config(s); });
  EXPECT_THAT(error.what(), Not(HasSubstr("hunter2")));
  EXPECT_THAT(error.context().dump(), Not(HasSubstr("hunter2")));
}

TEST_F(LoadConfigTest, EnvFileAddsVariablesButNeverOverridesTheProcess) {
  dir_.write(".env", "MIGRONAUT_URI=sqlite:dotenv.db\nMIGRONAUT_DB=from_dotenv\n");
  auto s = sources();
  s.environment = {{"MIGRONAUT_URI", "sqlite:process.db"}};
  const Config config = load_config(s);
  EXPECT_EQ(config.uri, "sqlite:process.db");
  EXPECT_EQ(config.db_name, "from_dotenv");
}

// A MIGRONAUT* name the env file sets that nothing reads is refused as the config file's unknown
// keys are (the process environment's are only warned of: it is not the user's file).
TEST_F(LoadConfigTest, AnUnknownMigronautVariableInTheEnvFileIsRefused) {
  dir_.write(".env", "MIGRONAUT_URI=sqlite:a.db\nMIGRONAUT_LOCK_TTLL=5\n");
  try {
    load_config(sources());
    FAIL() << "an unknown variable in the env file was ignored";
  } catch (const ConfigInvalidError& error) {
    EXPECT_EQ(error.context()["variable"], "MIGRONAUT_LOCK_TTLL");
    EXPECT_EQ(error.context()["suggestion"], "MIGRONAUT_LOCK_TTL");
  }
  // What the caller reads itself (the CLI's color switches) an env file may set.
  dir_.write(".env", "MIGRONAUT_URI=sqlite:a.db\nMIGRONAUT_NO_COLOR=1\n");
  auto s = sources();
  s.caller_variables = {"MIGRONAUT_NO_COLOR"};
  EXPECT_EQ(load_config(s).uri, "sqlite:a.db");
  EXPECT_THROW(load_config(sources()), ConfigInvalidError);
}

TEST_F(LoadConfigTest, NoEnvSkipsTheEnvFile) {
  dir_.write(".env", "MIGRONAUT_URI=sqlite:dotenv.db\n");
  auto s = sources();
  s.load_env_file = false;
  s.require_uri = false;
  EXPECT_EQ(load_config(s).uri, "");
}

TEST_F(LoadConfigTest, EnvFileFalseInTheConfigFileSkipsIt) {
  dir_.write(".env", "MIGRONAUT_DB=from_dotenv\n");
  write_config({{"uri", "sqlite:a.db"}, {"envFile", false}});
  EXPECT_EQ(load_config(sources()).db_name, "");
}

TEST_F(LoadConfigTest, EnvFileLocationFollowsItsLayers) {
  dir_.write("file.env", "MIGRONAUT_DB=file\n");
  dir_.write("variable.env", "MIGRONAUT_DB=variable\n");
  dir_.write("flag.env", "MIGRONAUT_DB=flag\n");
  write_config({{"uri", "sqlite:a.db"}, {"envFile", "file.env"}});
  auto s = sources();
  EXPECT_EQ(load_config(s).db_name, "file");
  s.environment = {{"MIGRONAUT_ENV_FILE", "variable.env"}};
  EXPECT_EQ(load_config(s).db_name, "variable");
  s.env_file = "flag.env";
  EXPECT_EQ(load_config(s).db_name, "flag");
}

TEST_F(LoadConfigTest, ExplicitEnvFileMustExist) {
  auto s = sources();
  s.flags = {{"uri", "sqlite:a.db"}};
  s.env_file = "missing.env";
  EXPECT_THROW(load_config(s), ConfigInvalidError);
}

TEST_F(LoadConfigTest, InvalidJsonInTheFileIsRejected) {
  dir_.write("migronaut.config.json", R"({"uri": "postgres://u:hunter2@h/db",)");
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_EQ(error.context()["file"], (dir_.path() / "migronaut.config.json").string());
  EXPECT_THAT(error.what(), Not(HasSubstr("hunter2")));
}

// The parser's message quotes what it last read: here a piece of the password.
TEST_F(LoadConfigTest, AnInvalidStringInTheFileDoesNotQuoteIt) {
  dir_.write("migronaut.config.json", R"({"uri": "postgres://app:Pa55\word@h/db"})");
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_THAT(error.what(), HasSubstr("line 1"));
  EXPECT_THAT(error.what(), Not(HasSubstr("Pa55")));
  EXPECT_THAT(error.context().dump(), Not(HasSubstr("Pa55")));
}

TEST_F(LoadConfigTest, NonObjectFileIsRejected) {
  write_config(json::array({1, 2}));
  EXPECT_THROW(load_config(sources()), ConfigInvalidError);
}

TEST_F(LoadConfigTest, WrongTypesInTheFileNameTheKey) {
  for (const json& bad :
       {json{{"lockTTLSeconds", "60"}}, json{{"lockTTLSeconds", 0}}, json{{"lockTTLSeconds", -1}},
        json{{"lockTTLSeconds", 1.5}}, json{{"lockPollIntervalMs", 2147483648LL}},
        json{{"strict", "true"}}, json{{"onLockHeld", "sometimes"}}, json{{"uri", 42}},
        json{{"migrationsCollection", "bad name"}}, json{{"migrationsDir", ""}},
        json{{"envFile", true}}}) {
    write_config(bad);
    const ConfigInvalidError error = config_error([&] { load_config(sources()); });
    EXPECT_EQ(error.context()["key"], bad.begin().key()) << bad.dump();
    EXPECT_THAT(error.what(), HasSubstr(bad.begin().key()));
  }
}

TEST_F(LoadConfigTest, WholeFloatsAreAccepted) {
  write_config({{"uri", "sqlite:a.db"}, {"timeoutMs", 1e3}});
  EXPECT_EQ(load_config(sources()).timeout_ms, 1000);
}

TEST_F(LoadConfigTest, UnknownKeysAreRefusedWithTheNearestKnownOne) {
  const std::pair<const char*, const char*> typos[] = {{"migrationDir", "migrationsDir"},
                                                       {"lockTTLSecond", "lockTTLSeconds"},
                                                       {"locktTlseconds", "lockTTLSeconds"},
                                                       {"URI", "uri"},
                                                       // what the C++ field, or another tool, says
                                                       {"migrationsTable", "migrationsCollection"},
                                                       {"databaseUrl", "uri"}};
  for (const auto& [typo, meant] : typos) {
    write_config({{"uri", "sqlite:a.db"}, {typo, 1}});
    const ConfigInvalidError error = config_error([&] { load_config(sources()); });
    EXPECT_EQ(error.context()["key"], typo);
    EXPECT_EQ(error.context()["suggestion"], meant);
    EXPECT_THAT(error.what(), HasSubstr(std::string("did you mean \"") + meant + "\""));
  }
  write_config({{"uri", "sqlite:a.db"}, {"somethingElse", {1, 2}}});
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_THAT(error.what(), HasSubstr("somethingElse"));
  EXPECT_FALSE(error.context().contains("suggestion"));
}

TEST_F(LoadConfigTest, DuplicateKeysAreRefused) {
  dir_.write("migronaut.config.json",
             R"({"uri": "sqlite:a.db", "lockTTLSeconds": 10, "uri": "sqlite:b.db"})");
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_EQ(error.context()["key"], "uri");
  EXPECT_THAT(error.what(), HasSubstr("appears twice"));
}

TEST_F(LoadConfigTest, NumbersBeyondADoubleAreRefusedAsConfigErrors) {
  dir_.write("migronaut.config.json", R"({"uri": "sqlite:a.db", "lockTTLSeconds": 1e400})");
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_THAT(error.what(), HasSubstr("migronaut.config.json"));
}

TEST_F(LoadConfigTest, ControlCharactersInStringsAreRefused) {
  for (const json& bad : {json{{"uri", std::string("sqlite:a.db\0x", 13)}},
                          json{{"migrationsDir", "migrations\n"}}, json{{"dbName", "a\tb"}}}) {
    write_config(bad);
    const ConfigInvalidError error = config_error([&] { load_config(sources()); });
    EXPECT_EQ(error.context()["key"], bad.begin().key()) << bad.dump();
    EXPECT_THAT(error.what(), HasSubstr("control character"));
  }
}

TEST_F(LoadConfigTest, TheLockAndTheChangelogNeedTablesOfTheirOwn) {
  write_config(
      {{"uri", "sqlite:a.db"}, {"migrationsCollection", "history"}, {"lockCollection", "HISTORY"}});
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_EQ(error.context()["key"], "lockCollection");
}

// A history table without its tool would be read by nobody: refused, naming the tools.
TEST_F(LoadConfigTest, AnImportTableNeedsItsTool) {
  write_config({{"uri", "sqlite:a.db"}, {"importTable", "app_migrations"}});
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_EQ(error.context()["key"], "importTable");
  EXPECT_THAT(error.what(), HasSubstr("importFrom"));
  EXPECT_THAT(error.what(), HasSubstr("sql-migrate"));
}

// A misspelt tool is echoed, with the one it is most likely a misspelling of.
TEST_F(LoadConfigTest, AnUnknownImportToolIsEchoedWithTheNearestKnownOne) {
  write_config({{"uri", "sqlite:a.db"}, {"importFrom", "flyaway"}});
  const ConfigInvalidError error = config_error([&] { load_config(sources()); });
  EXPECT_EQ(error.context()["key"], "importFrom");
  EXPECT_THAT(error.what(), HasSubstr("\"flyaway\" is no tool"));
  EXPECT_THAT(error.what(), HasSubstr("did you mean \"flyway\"?"));
  write_config({{"uri", "sqlite:a.db"}, {"importFrom", "liquibase"}});
  EXPECT_THAT(config_error([&] { load_config(sources()); }).what(), Not(HasSubstr("did you mean")));
}

TEST_F(LoadConfigTest, PathsInAConfigFileResolveAgainstItsFolder) {
  dir_.write("deploy/migronaut.config.json", json{{"uri", "sqlite:data/app.db"},
                                                  {"migrationsDir", "db"},
                                                  {"templatePath", "../tpl.sql"},
                                                  {"envFile", "deploy.env"}}
                                                 .dump());
  dir_.write("deploy/deploy.env", "MIGRONAUT_DB=from_deploy_env\n");
  auto s = sources();
  s.config_file = "deploy/migronaut.config.json";
  const Config config = load_config(s);
  EXPECT_EQ(config.uri, "sqlite:" + (dir_.path() / "deploy/data/app.db").string());
  EXPECT_EQ(config.migrations_dir, dir_.path() / "deploy/db");
  EXPECT_EQ(config.template_path, dir_.path() / "tpl.sql");
  EXPECT_EQ(config.db_name, "from_deploy_env");
}

TEST_F(LoadConfigTest, ExplicitConfigFileMustExist) {
  auto s = sources();
  s.config_file = "nope.json";
  EXPECT_THROW(load_config(s), ConfigInvalidError);
  // A folder there is said to be one, not to be missing.
  dir_.write("deploy/placeholder", "");
  s.config_file = "deploy";
  try {
    load_config(s);
    ADD_FAILURE() << "a folder was read as the config file";
  } catch (const ConfigInvalidError& error) {
    EXPECT_THAT(error.what(), HasSubstr("is not a regular file"));
  }
}

TEST_F(LoadConfigTest, ExplicitConfigFileReplacesDiscovery) {
  write_config({{"uri", "sqlite:discovered.db"}});
  dir_.write("other.json", json{{"uri", "sqlite:explicit.db"}}.dump());
  auto s = sources();
  s.config_file = "other.json";
  EXPECT_EQ(load_config(s).uri, "sqlite:" + (dir_.path() / "explicit.db").string());
}

TEST_F(LoadConfigTest, UriIsRequiredUnlessWaived) {
  EXPECT_THROW(load_config(sources()), ConfigInvalidError);
  auto s = sources();
  s.require_uri = false;
  EXPECT_NO_THROW(load_config(s));
}

TEST_F(LoadConfigTest, UriSchemeMustBeKnown) {
  for (const char* uri : {"postgres://h/db", "postgresql://h/db", "mongodb://h/db",
                          "mongodb+srv://c/db", "sqlite:x.db", "sqlite::memory:"}) {
    auto s = sources();
    s.flags = {{"uri", uri}};
    EXPECT_EQ(load_config(s).uri, uri);
  }
  for (const char* uri : {"mysql://h/db", "file:x.db", "Postgres://h/db", "x"}) {
    auto s = sources();
    s.flags = {{"uri", uri}};
    EXPECT_THROW(load_config(s), ConfigInvalidError) << uri;
  }
}

TEST_F(LoadConfigTest, RelativePathsResolveAgainstCwdButSqliteUriStays) {
  auto s = sources();
  s.flags = {{"uri", "sqlite:data/app.db"}, {"migrationsDir", "db/migrations"}};
  const Config config = load_config(s);
  EXPECT_EQ(config.uri, "sqlite:data/app.db");
  EXPECT_EQ(config.migrations_dir, dir_.path() / "db/migrations");
  EXPECT_TRUE(config.template_path.empty());
}

TEST(ValidateConfigTest, ACodeBuiltConfigIsCheckedLikeAFile) {
  Config good;
  good.uri = "sqlite:a.db";
  EXPECT_NO_THROW(validate_config(good));
  const std::pair<const char*, std::function<void(Config&)>> bad[] = {
      {"uri", [](Config& c) { c.uri = ""; }},
      {"uri", [](Config& c) { c.uri = "mysql://h/db"; }},
      {"lockTTLSeconds", [](Config& c) { c.lock_ttl_seconds = 0; }},
      {"lockTTLSeconds", [](Config& c) { c.lock_ttl_seconds = -5; }},
      {"lockTTLSeconds", [](Config& c) { c.lock_ttl_seconds = std::int64_t{1} << 40; }},
      {"timeoutMs", [](Config& c) { c.timeout_ms = 0; }},
      {"lockWaitTimeoutMs", [](Config& c) { c.lock_wait_timeout_ms = -1; }},
      {"lockPollIntervalMs", [](Config& c) { c.lock_poll_interval_ms = 0; }},
      {"onLockHeld", [](Config& c) { c.on_lock_held = static_cast<OnLockHeld>(7); }},
      {"migrationsCollection", [](Config& c) { c.migrations_table = "x; DROP TABLE y"; }},
      {"lockCollection", [](Config& c) { c.lock_table = c.migrations_table; }},
      {"migrationsDir", [](Config& c) { c.migrations_dir = "/"; }},
      {"migrationsDir", [](Config& c) { c.migrations_dir = ""; }},
      {"importFrom", [](Config& c) { c.import_from = "liquibase"; }},
      {"importTable", [](Config& c) { c.import_table = "a.b.c"; }},
      {"importTable", [](Config& c) { c.import_table = "app_migrations"; }},  // no importFrom
      {"importTable",
       [](Config& c) {
         c.import_from = "dbmate";
         c.import_table = "_MIGRONAUT_LOCKS";
       }},
      {"importTable",
       [](Config& c) {
         c.import_from = "dbmate";
         c.import_table = "main.app_migrations";  // SQLite has no schemas
       }},
  };
  for (const auto& [key, spoil] : bad) {
    Config config = good;
    spoil(config);
    const ConfigInvalidError error = config_error([&] { validate_config(config); });
    EXPECT_EQ(error.context().value("key", ""), key) << error.what();
  }
}

// A missing URI is named as the caller sets it: a Config built in code reads no flag, file or
// variable, so only its field is named; load_config names its layers, the flags' as the caller
// calls it.
TEST_F(LoadConfigTest, AMissingUriIsNamedAsTheCallerSetsIt) {
  const auto message = [](auto load) { return std::string(config_error(load).what()); };
  EXPECT_THAT(message([] { validate_config(Config{}); }),
              AllOf(HasSubstr("set Config::uri"), Not(HasSubstr("--uri")),
                    Not(HasSubstr("MIGRONAUT_URI"))));
  EXPECT_THAT(message([] { config_from_json(json::object()); }),
              AllOf(HasSubstr("set \"uri\" in the document"), Not(HasSubstr("--uri"))));
  ConfigSources layered = sources();
  EXPECT_THAT(message([&] { load_config(layered); }),
              AllOf(HasSubstr("\"uri\" in ConfigSources::flags, MIGRONAUT_URI"),
                    HasSubstr("DATABASE_URL"), Not(HasSubstr("--uri"))));
  layered.uri_flag = "--uri";
  EXPECT_THAT(message([&] { load_config(layered); }), HasSubstr("set --uri, MIGRONAUT_URI"));
}

TEST(ConfigFromJsonTest, AppliesDefaultsAndValidates) {
  const Config config = config_from_json({{"uri", "mongodb://h/db"}, {"dbName", "app"}});
  EXPECT_EQ(config.db_name, "app");
  EXPECT_EQ(config.lock_ttl_seconds, 60);
  EXPECT_THROW(config_from_json({{"uri", "mongodb://h/db"}, {"lockTTLSeconds", 0}}),
               ConfigInvalidError);
  EXPECT_THROW(config_from_json(json::object()), ConfigInvalidError);
  EXPECT_THROW(config_from_json("mongodb://h/db"), ConfigInvalidError);
  EXPECT_THROW(config_from_json({{"uri", "mongodb://h/db"}, {"lockTTLSeconds", NAN}}),
               ConfigInvalidError);
  EXPECT_THROW(config_from_json({{"uri", "mongodb://h/db"}, {"lockTTLSecond", 5}}),
               ConfigInvalidError);
}

}  // namespace
}  // namespace migronaut

// Coming from another tool, with the real `migronaut` binary against SQLite: other tools'
// folders run as they are, other tools' history tables are imported, and `audit` and `repair`
// gate CI. Each test judges the CLI by the database it leaves.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "process/sqlite_project.hpp"

namespace migronaut::testing {
namespace {

using Statuses = std::map<std::string, std::string>;

nlohmann::json json_of(const ProcessResult& result) {
  try {
    return nlohmann::json::parse(result.out);
  } catch (const nlohmann::json::exception&) {
    ADD_FAILURE() << "not JSON on stdout: " << describe(result);
    return nlohmann::json::object();
  }
}

std::string sections(const std::string& table) {
  return "-- migrate:up\nCREATE TABLE " + table + " (id INTEGER);\n-- migrate:down\nDROP TABLE " +
         table + ";\n";
}

// Table a made and recorded by dbmate under its default table.
constexpr std::string_view kDbmateAppliedA =
    "CREATE TABLE a (id INTEGER); CREATE TABLE schema_migrations (version varchar(128) PRIMARY "
    "KEY); INSERT INTO schema_migrations VALUES ('20260101120000');";

class AdoptTest : public ::testing::Test {
 protected:
  bool has_table(const std::string& name) const {
    return project.exists() && project.open().has_table(name);
  }
  // Runs `args`, expecting `code`.
  ProcessResult expect(const std::vector<std::string>& args, int code, const Env& env = {}) {
    ProcessResult result = project.run(args, env);
    EXPECT_EQ(result.exit_code, code) << describe(result);
    return result;
  }
  // `up`, `status`, `down`, `status` on a folder of two migrations creating tables a and b.
  void up_status_down(const std::string& first, const std::string& second) {
    expect({"up"}, 0);
    EXPECT_TRUE(has_table("a"));
    EXPECT_TRUE(has_table("b"));
    EXPECT_EQ(project.statuses(), (Statuses{{first, "applied"}, {second, "applied"}}));
    const nlohmann::json status = json_of(expect({"--json", "status"}, 0));
    EXPECT_EQ(status["pending"], 0);
    EXPECT_EQ(status["migrations"][0]["name"], first);
    expect({"down", "--steps", "1"}, 0);
    EXPECT_TRUE(has_table("a"));
    EXPECT_FALSE(has_table("b"));
    expect({"down"}, 0);
    EXPECT_FALSE(has_table("a"));
    EXPECT_EQ(project.statuses(), (Statuses{{first, "reverted"}, {second, "reverted"}}));
  }

  // A folder of one migration creating table a, a database `sql` made, and a configuration naming
  // `table` as dbmate's history (importFrom, importTable).
  void configure_dbmate_history(const std::string& sql, const std::string& table) {
    project.write_migration("20260101120000_a.sql", sections("a"));
    std::ofstream(project.db_path()).flush();  // an empty file is an empty SQLite database
    project.open().exec(sql);
    std::ofstream(project.cwd() / "migronaut.config.json")
        << R"({"importFrom": "dbmate", "importTable": ")" << table << R"("})";
  }

  // `create title`: the names of the files it wrote.
  std::vector<std::string> create(const std::string& title) {
    const nlohmann::json created = json_of(expect({"--json", "create", title}, 0));
    std::vector<std::string> names;
    for (const auto& path : created["paths"]) {
      names.push_back(std::filesystem::path(path.get<std::string>()).filename().string());
    }
    return names;
  }

  SqliteProject project;
};

// One configuration serves every environment: where dbmate ran under its default table, not the
// one importTable names, its history is still found and `up` refused until the import, which
// finds it there too. A configured table that is not there is said.
TEST_F(AdoptTest, AConfiguredHistoryTableLeavesTheToolsDefaultGuarded) {
  configure_dbmate_history(std::string(kDbmateAppliedA), "app_migration");
  const std::string before = project.dump();
  const ProcessResult refused = expect({"up"}, 24);
  EXPECT_NE(refused.err.find("dbmate's history (schema_migrations)"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("importTable app_migration: no such table"), std::string::npos)
      << refused.err;
  EXPECT_EQ(project.dump(), before);

  expect({"import"}, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"20260101120000_a.sql", "applied"}}));
}

// `audit`, the CI gate, says what `up` warns of: a configured history table that is not there
// (a misspelt name) guards nothing.
TEST_F(AdoptTest, AuditWarnsOfAConfiguredHistoryTableThatIsNotThere) {
  configure_dbmate_history("CREATE TABLE other (id INTEGER);", "app_migration");
  const nlohmann::json report = json_of(expect({"--json", "audit"}, 0));
  const auto check = std::find_if(report["checks"].begin(), report["checks"].end(),
                                  [](const nlohmann::json& c) { return c["name"] == "import"; });
  ASSERT_NE(check, report["checks"].end()) << report;
  EXPECT_EQ((*check)["status"], "warn") << report;
  EXPECT_NE((*check)["detail"].get<std::string>().find("importTable app_migration: no such table"),
            std::string::npos)
      << report;
}

// A history kept behind a view is read as the table it shows: `up` refuses over it and `import`
// records what it holds.
TEST_F(AdoptTest, AConfiguredHistoryViewIsReadAsItsTable) {
  configure_dbmate_history(
      "CREATE TABLE a (id INTEGER); CREATE TABLE old_history (version varchar(128) PRIMARY KEY); "
      "INSERT INTO old_history VALUES ('20260101120000'); "
      "CREATE VIEW app_migrations AS SELECT version FROM old_history;",
      "app_migrations");
  const ProcessResult refused = expect({"up"}, 24);
  EXPECT_NE(refused.err.find("dbmate's history (app_migrations)"), std::string::npos)
      << refused.err;
  expect({"import"}, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"20260101120000_a.sql", "applied"}}));
}

// A view over golang-migrate's table is golang-migrate's history, whatever it is configured as:
// read as dbmate's, its one current version would pass for the only one applied.
TEST_F(AdoptTest, AConfiguredHistoryViewOverAnotherToolsTableIsRefused) {
  configure_dbmate_history(
      "CREATE TABLE a (id INTEGER); CREATE TABLE gm (version bigint, dirty boolean); "
      "INSERT INTO gm VALUES (20260101120000, 0); CREATE VIEW app_migrations AS SELECT * FROM gm;",
      "app_migrations");
  const std::string before = project.dump();
  const ProcessResult refused = expect({"up"}, 20);
  EXPECT_NE(refused.err.find("it has a dirty column"), std::string::npos) << refused.err;
  EXPECT_EQ(project.dump(), before);
}

// The configured table is there but holds nothing of this folder, the default one does: `import`
// reads the one `up` refused over, so the way out it names works.
TEST_F(AdoptTest, ImportReadsTheHistoryTableUpRefusedOver) {
  configure_dbmate_history(std::string(kDbmateAppliedA) +
                               "CREATE TABLE app_migrations (version varchar(128) PRIMARY KEY);",
                           "app_migrations");
  expect({"up"}, 24);
  const ProcessResult imported = expect({"import"}, 0);
  EXPECT_NE(imported.err.find("1 imported from dbmate (schema_migrations)"), std::string::npos)
      << imported.err;
  EXPECT_EQ(project.statuses(), (Statuses{{"20260101120000_a.sql", "applied"}}));
  expect({"up"}, 0);
}

// A table the configuration names as a tool's history (importFrom, importTable) is the user's
// word: one that cannot be read as that tool's stops `up` before anything runs, saying why,
// where a table of that name under the tool's default would stand aside as another
// application's.
TEST_F(AdoptTest, AConfiguredHistoryTableThatIsNotTheToolsRefusesUp) {
  configure_dbmate_history(
      "CREATE TABLE app_migrations (id INTEGER); INSERT INTO app_migrations "
      "VALUES (1);",
      "app_migrations");
  const std::string before = project.dump();
  const ProcessResult refused = expect({"up"}, 20);
  EXPECT_NE(refused.err.find("app_migrations is not dbmate's history table"), std::string::npos)
      << refused.err;
  EXPECT_EQ(project.dump(), before);
}

TEST_F(AdoptTest, ADbmateFolderRunsAsItIs) {
  project.write_migration("20260101120000_create_a.sql", sections("a"));
  project.write_migration("20260102120000_create_b.sql", sections("b"));
  up_status_down("20260101120000_create_a.sql", "20260102120000_create_b.sql");
}

TEST_F(AdoptTest, AGolangMigrateFolderRunsItsPairsInNumericOrder) {
  project.write_migration("2_create_a.up.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("2_create_a.down.sql", "DROP TABLE a;\n");
  // 10 after 2: it needs a, so text order would fail.
  project.write_migration("10_create_b.up.sql", "CREATE TABLE b (id INTEGER REFERENCES a);\n");
  project.write_migration("10_create_b.down.sql", "DROP TABLE b;\n");
  up_status_down("2_create_a.up.sql", "10_create_b.up.sql");
}

// The failure's line is the down file's: the message names that file beside the migration.
TEST_F(AdoptTest, AFailingGolangMigrateDownNamesItsOwnFile) {
  project.write_migration("1_create_a.up.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("1_create_a.down.sql", "DROP TABLE a;\nDROP TABLE nope;\n");
  expect({"up"}, 0);
  const nlohmann::json error = json_of(expect({"--json", "down"}, 7))["error"];
  EXPECT_NE(error["message"].get<std::string>().find(
                "Migration 1_create_a.up.sql failed in 1_create_a.down.sql: line 2, column 1"),
            std::string::npos)
      << error;
  EXPECT_EQ(error["context"]["file"], "1_create_a.down.sql") << error;
  EXPECT_TRUE(has_table("a"));  // rolled back
  EXPECT_EQ(project.statuses(), (Statuses{{"1_create_a.up.sql", "applied"}}));
}

TEST_F(AdoptTest, AFlywayFolderRunsDottedVersionsNumericallyWithUndoFiles) {
  project.write_migration("V1.2__create_a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("U1.2__create_a.sql", "DROP TABLE a;\n");
  project.write_migration("V1.10__create_b.sql", "CREATE TABLE b (id INTEGER REFERENCES a);\n");
  project.write_migration("U1.10__create_b.sql", "DROP TABLE b;\n");
  up_status_down("V1.2__create_a.sql", "V1.10__create_b.sql");
}

// A Flyway file to run with a placeholder would run with the placeholder's text in place of its
// value: refused before anything runs, an undo file as well, unless the configuration says
// Flyway ran them as written. A file Flyway applied is history, not read for them.
TEST_F(AdoptTest, AFlywayPlaceholderIsRefusedUnlessConfiguredLiteral) {
  project.write_migration("V1__a.sql",
                          "CREATE TABLE a (who TEXT);\nINSERT INTO a VALUES ('${owner}');\n");
  project.write_migration("U1__a.sql", "DELETE FROM a WHERE who = '${owner}';\nDROP TABLE a;\n");
  const ProcessResult refused = expect({"up"}, 20);
  EXPECT_NE(refused.err.find("V1__a.sql at line 2: the Flyway placeholder ${owner}"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(has_table("a"));
  expect({"dry-run", "up"}, 20);

  expect({"up"}, 0, {{"MIGRONAUT_FLYWAY_PLACEHOLDERS", "literal"}});
  EXPECT_EQ(project.open().value("SELECT who FROM a"), "${owner}");
  const ProcessResult undo = expect({"down"}, 20);
  EXPECT_NE(undo.err.find("U1__a.sql at line 1"), std::string::npos) << undo.err;
  EXPECT_TRUE(has_table("a"));

  project.write_migration("V2__b.sql", "CREATE TABLE b (id INTEGER);\n");
  expect({"up"}, 0);
  EXPECT_TRUE(has_table("b"));
}

// Flyway matches its suffix in any case, so "V2__create_b.SQL" ran there: it runs here, never
// skipped under an "up to date"; its undo file in any case joins it.
TEST_F(AdoptTest, AFlywayFileWithAnUpperCaseSuffixRuns) {
  project.write_migration("V1__create_a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("U1__create_a.sql", "DROP TABLE a;\n");
  project.write_migration("V2__create_b.SQL", "CREATE TABLE b (id INTEGER REFERENCES a);\n");
  project.write_migration("U2__create_b.Sql", "DROP TABLE b;\n");
  project.write_migration("README.md", "# notes\n");
  up_status_down("V1__create_a.sql", "V2__create_b.SQL");
}

// As Flyway runs such a file: a plain file of VACUUM alone runs outside a transaction; one that
// mixes it with other statements is refused before anything runs, with advice it can follow.
TEST_F(AdoptTest, APlainFileOfVacuumAloneRunsOutsideATransaction) {
  project.write_migration("1_create_a.up.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("2_tidy.up.sql", "-- tidy up\nDELETE FROM a;\nVACUUM;\n");
  const ProcessResult refused = expect({"up"}, 20);
  EXPECT_NE(refused.err.find("Invalid migration 2_tidy.up.sql at line 3, column 1: `VACUUM`"),
            std::string::npos)
      << describe(refused);
  EXPECT_NE(refused.err.find("split the file"), std::string::npos) << describe(refused);
  EXPECT_FALSE(has_table("a"));
  EXPECT_EQ(project.statuses(), Statuses{});

  project.write_migration("2_tidy.up.sql", "-- tidy up\nVACUUM;\n");
  expect({"up"}, 0);
  EXPECT_EQ(project.statuses(),
            (Statuses{{"1_create_a.up.sql", "applied"}, {"2_tidy.up.sql", "applied"}}));
}

TEST_F(AdoptTest, TargetsMayBeVersionsAndUpTakesSteps) {
  project.write_migration("V1__a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("V1.1__b.sql", "CREATE TABLE b (id INTEGER);\n");
  project.write_migration("V2__c.sql", "CREATE TABLE c (id INTEGER);\n");
  expect({"up", "--to", "1.1"}, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"V1__a.sql", "applied"}, {"V1.1__b.sql", "applied"}}));
  expect({"up", "--to", "7"}, 8);
  expect({"up", "--steps", "1"}, 0);
  EXPECT_TRUE(has_table("c"));
}

TEST_F(AdoptTest, CreateInAGolangMigrateFolderWritesTheNextPair) {
  project.write_migration("000001_create_a.up.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("000001_create_a.down.sql", "DROP TABLE a;\n");
  const std::vector<std::string> created = create("create b");
  EXPECT_EQ(created,
            (std::vector<std::string>{"000002_create_b.up.sql", "000002_create_b.down.sql"}));
  const nlohmann::json status = json_of(expect({"--json", "status"}, 0));
  EXPECT_EQ(status["migrations"][1]["name"], "000002_create_b.up.sql");
  EXPECT_EQ(status["migrations"][1]["upEmpty"], true);
  expect({"up"}, 20);  // nothing is recorded for an empty file
  EXPECT_FALSE(has_table("a"));

  project.write_migration(created[0], "CREATE TABLE b (id INTEGER);\n");
  project.write_migration(created[1], "DROP TABLE b;\n");
  up_status_down("000001_create_a.up.sql", "000002_create_b.up.sql");
}

TEST_F(AdoptTest, CreateInAFlywayFolderWritesTheNextMajorVersion) {
  project.write_migration("V1__create_a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("V1.1__create_x.sql", "CREATE TABLE x (id INTEGER);\n");
  project.write_migration("V3__create_y.sql", "CREATE TABLE y (id INTEGER);\n");
  EXPECT_EQ(create("Create B"), std::vector<std::string>{"V4__create_b.sql"});
  project.write_migration("V4__create_b.sql", "CREATE TABLE b (id INTEGER);\n");
  expect({"up"}, 0);
  EXPECT_TRUE(has_table("b"));
  EXPECT_EQ(project.statuses()["V4__create_b.sql"], "applied");
}

TEST_F(AdoptTest, CreateInADbmateFolderWritesATimestampedDbmateFile) {
  project.write_migration("20200101120000_create_a.sql", sections("a"));
  const std::vector<std::string> created = create("create b");
  ASSERT_EQ(created.size(), 1u);
  EXPECT_TRUE(std::regex_match(created[0], std::regex(R"(\d{14}_create_b\.sql)"))) << created[0];
  std::ifstream in(project.migrations() / created[0]);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "-- migrate:up\n\n-- migrate:down\n");
  project.write_migration(created[0], sections("b"));
  up_status_down("20200101120000_create_a.sql", created[0]);
}

TEST_F(AdoptTest, CreateInAnEmptyFolderKeepsMigronautsNaming) {
  const std::vector<std::string> created = create("create a");
  ASSERT_EQ(created.size(), 1u);
  EXPECT_TRUE(std::regex_match(created[0], std::regex(R"(\d{14}-create-a\.sql)"))) << created[0];
}

TEST_F(AdoptTest, CreateInAMixedFolderIsRefusedNamingTheOddFile) {
  project.write_migration("V1__a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("V2__b.sql", "CREATE TABLE b (id INTEGER);\n");
  project.write_migration("3_c.up.sql", "CREATE TABLE c (id INTEGER);\n");
  const ProcessResult result = expect({"create", "d"}, 19);
  EXPECT_NE(result.err.find("3_c.up.sql"), std::string::npos) << result.err;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(project.migrations()), {}), 3);
}

TEST_F(AdoptTest, AFolderMixingNamingsIsRefusedNamingTheOddFile) {
  project.write_migration("20260101120000_a.sql", sections("a"));
  project.write_migration("20260102120000_b.sql", sections("b"));
  project.write_migration("20260103120000-c.sql", sections("c"));
  const ProcessResult result = expect({"up"}, 19);
  EXPECT_NE(result.err.find("20260103120000-c.sql"), std::string::npos) << result.err;
  EXPECT_FALSE(project.exists() && has_table("a"));
}

TEST_F(AdoptTest, ARenamedFileIsNotRunAgain) {
  project.write_migration("20260101120000_create_a.sql", sections("a"));
  expect({"up"}, 0);
  std::filesystem::rename(project.migrations() / "20260101120000_create_a.sql",
                          project.migrations() / "20260101120000_create_table_a.sql");
  const nlohmann::json status = json_of(expect({"--json", "status"}, 0));
  EXPECT_EQ(status["pending"], 0);
  EXPECT_EQ(status["migrations"][0]["renamedFrom"], "20260101120000_create_a.sql");
  project.write_migration("20260102120000_create_b.sql", sections("b"));
  expect({"up"}, 0);  // would fail on "table a already exists" if it ran again
  EXPECT_EQ(project.statuses()["20260101120000_create_table_a.sql"], "applied");
  EXPECT_EQ(project.statuses()["20260101120000_create_a.sql"], "reverted");  // retired
  EXPECT_EQ(json_of(expect({"--json", "status"}, 0))["migrations"].size(), 2u);
}

// Reverting a renamed migration leaves no applied record behind under the former name.
TEST_F(AdoptTest, ARenamedMigrationRevertsCleanly) {
  project.write_migration("1-a.sql", sections("a"));
  expect({"up"}, 0);
  std::filesystem::rename(project.migrations() / "1-a.sql", project.migrations() / "1-b.sql");
  expect({"down"}, 0);
  EXPECT_FALSE(has_table("a"));
  EXPECT_EQ(project.statuses(), (Statuses{{"1-a.sql", "reverted"}, {"1-b.sql", "reverted"}}));
  const nlohmann::json status = json_of(expect({"--json", "status"}, 0));
  ASSERT_EQ(status["migrations"].size(), 1u);
  EXPECT_EQ(status["migrations"][0]["state"], "reverted");
  expect({"audit"}, 0);
  expect({"up"}, 0);
  EXPECT_TRUE(has_table("a"));
}

// A file renamed and edited may be that migration or a new one reusing its version: `down` and
// `redo` of another migration refuse it as `up` does (exit 4), recording no rename, until
// `repair` takes it as renamed.
TEST_F(AdoptTest, ARenamedAndEditedFileStopsADownOfAnotherMigrationAsItStopsUp) {
  project.write_migration("1-a.sql", sections("a"));
  expect({"up"}, 0);
  project.write_migration("2-b.sql", sections("b"));
  expect({"up"}, 0);
  std::filesystem::rename(project.migrations() / "1-a.sql", project.migrations() / "1-x.sql");
  project.write_migration("1-x.sql", sections("a") + "-- edited\n");
  const std::string before = project.dump();
  expect({"up"}, 4);
  const ProcessResult down = expect({"down"}, 4);
  EXPECT_NE(down.err.find("1-x.sql has the version of the applied 1-a.sql"), std::string::npos)
      << down.err;
  expect({"redo"}, 4);
  expect({"dry-run", "down"}, 4);
  EXPECT_EQ(project.dump(), before);
  expect({"repair", "--yes", "1-x.sql"}, 0);
  expect({"down"}, 0);
  EXPECT_FALSE(has_table("b"));
  EXPECT_EQ(project.statuses()["1-x.sql"], "applied");
}

// A file renamed twice, each recorded, then renamed back is still the applied migration.
TEST_F(AdoptTest, AFileRenamedBackIsNotRunAgain) {
  project.write_migration("1-a.sql", sections("a"));
  expect({"up"}, 0);
  // Each rename is recorded by the next run that takes the lock: one with something to apply.
  std::filesystem::rename(project.migrations() / "1-a.sql", project.migrations() / "1-b.sql");
  project.write_migration("2-c.sql", sections("c"));
  expect({"up"}, 0);
  EXPECT_EQ(project.statuses()["1-a.sql"], "reverted");
  std::filesystem::rename(project.migrations() / "1-b.sql", project.migrations() / "1-z.sql");
  project.write_migration("3-d.sql", sections("d"));
  expect({"up"}, 0);
  std::filesystem::rename(project.migrations() / "1-z.sql", project.migrations() / "1-a.sql");
  project.write_migration("4-e.sql", sections("e"));
  expect({"up"}, 0);  // would fail on "table a already exists" if 1-a.sql ran again
  EXPECT_EQ(project.statuses(), (Statuses{{"1-a.sql", "applied"},
                                          {"1-b.sql", "reverted"},
                                          {"1-z.sql", "reverted"},
                                          {"2-c.sql", "applied"},
                                          {"3-d.sql", "applied"},
                                          {"4-e.sql", "applied"}}));
  expect({"audit"}, 0);
}

TEST_F(AdoptTest, RepeatablesRunAfterVersionedOnesAndAgainWhenChanged) {
  project.write_migration("V1__t.sql", "CREATE TABLE t (id INTEGER);\n");
  project.write_migration("R__view.sql",
                          "DROP VIEW IF EXISTS v; CREATE VIEW v AS SELECT 1 AS x;\n");
  expect({"up"}, 0);
  EXPECT_EQ(project.open().value("SELECT x FROM v"), "1");
  expect({"up"}, 0);
  EXPECT_EQ(json_of(expect({"--json", "status"}, 0))["pending"], 0);
  project.write_migration("R__view.sql",
                          "DROP VIEW IF EXISTS v; CREATE VIEW v AS SELECT 2 AS x;\n");
  EXPECT_EQ(json_of(expect({"--json", "status"}, 0))["pending"], 1);
  expect({"up"}, 0);
  EXPECT_EQ(project.open().value("SELECT x FROM v"), "2");
}

// Flyway's undo leaves R__ files applied; so does a down that names no file, which reverts the
// versioned migrations of the batch beside them.
TEST_F(AdoptTest, ADownRevertsTheVersionedMigrationsOfABatchAndLeavesItsRepeatables) {
  project.write_migration("V1__t.sql", "CREATE TABLE t (id INTEGER);\n");
  project.write_migration("U1__t.sql", "DROP TABLE t;\n");
  project.write_migration("R__view.sql",
                          "DROP VIEW IF EXISTS v; CREATE VIEW v AS SELECT 1 AS x;\n");
  expect({"up"}, 0);
  project.write_migration("V2__u.sql", "CREATE TABLE u (id INTEGER);\n");
  project.write_migration("U2__u.sql", "DROP TABLE u;\n");
  project.write_migration("R__view.sql",
                          "DROP VIEW IF EXISTS v; CREATE VIEW v AS SELECT 2 AS x;\n");
  expect({"up"}, 0);

  expect({"down"}, 0);
  EXPECT_FALSE(project.open().has_table("u"));
  EXPECT_TRUE(project.open().has_table("t"));
  EXPECT_EQ(project.open().value("SELECT x FROM v"), "2");
  EXPECT_EQ(
      project.statuses(),
      (Statuses{{"V1__t.sql", "applied"}, {"V2__u.sql", "reverted"}, {"R__view.sql", "applied"}}));
}

TEST_F(AdoptTest, AuditFailsOnDriftAndRepairMakesItPassWithoutRunningAnything) {
  project.write_migration("0001-a.sql", sections("a"));
  project.write_migration("0002-b.sql", sections("b"));
  expect({"up"}, 0);
  const nlohmann::json clean = json_of(expect({"--json", "audit"}, 0));
  EXPECT_EQ(clean["ok"], true);
  EXPECT_EQ(clean["failed"], 0);

  // A cosmetic edit of an applied file.
  project.write_migration("0002-b.sql", "-- b holds nothing yet\n" + sections("b"));
  const nlohmann::json drift = json_of(expect({"--json", "audit"}, 22));
  EXPECT_EQ(drift["ok"], false);
  bool named = false;
  for (const auto& check : drift["checks"]) {
    if (check["name"] == "checksums") {
      EXPECT_EQ(check["status"], "fail");
      named = check["detail"].get<std::string>().find("0002-b.sql") != std::string::npos;
    }
  }
  EXPECT_TRUE(named) << drift.dump();

  const std::string batches_before =
      *project.open().value("SELECT group_concat(batch || applied_at) FROM _migronaut_migrations");
  expect({"repair", "--yes", "--reason", "comment only"}, 0);
  EXPECT_EQ(json_of(expect({"--json", "audit"}, 0))["ok"], true);
  SqliteDb db = project.open();
  EXPECT_EQ(db.value("SELECT group_concat(batch || applied_at) FROM _migronaut_migrations"),
            batches_before);  // nothing re-ran
  EXPECT_EQ(db.value("SELECT reason FROM _migronaut_migrations WHERE name = '0002-b.sql'"),
            "comment only");
}

// Reverting a migration whose file changed since it was applied runs the file's down section as
// it is now: with strict that is refused before anything runs, as `up` refuses drift; without,
// it is said.
TEST_F(AdoptTest, DownAndRedoOfAChangedFileAreRefusedWhenStrictAndSaidOtherwise) {
  project.write_migration("1-a.sql", sections("a"));
  project.write_migration("2-b.sql", sections("b"));
  expect({"up"}, 0);
  project.write_migration("2-b.sql",
                          "-- migrate:up\nCREATE TABLE b (id INTEGER);\n"
                          "-- migrate:down\nDROP TABLE b;\nCREATE TABLE oops (id INTEGER);\n");
  const Env strict = {{"MIGRONAUT_STRICT", "true"}};
  expect({"up"}, 4, strict);
  expect({"status", "--check"}, 4, strict);  // as `up` says, not "nothing pending"
  expect({"status", "--check"}, 0);
  const std::string error = expect({"down"}, 4, strict).err;
  EXPECT_NE(error.find("2-b.sql"), std::string::npos) << error;
  expect({"redo"}, 4, strict);
  expect({"redo", "1-a.sql"}, 4, strict);  // its up half would meet 2-b.sql's drift
  EXPECT_TRUE(has_table("a"));
  EXPECT_TRUE(has_table("b"));
  EXPECT_EQ(project.statuses(), (Statuses{{"1-a.sql", "applied"}, {"2-b.sql", "applied"}}));

  const std::string said = expect({"down"}, 0).err;
  EXPECT_NE(said.find("2-b.sql changed since it was applied"), std::string::npos) << said;
  EXPECT_TRUE(has_table("oops"));
}

TEST_F(AdoptTest, AuditFailsOnAMissingAppliedFile) {
  project.write_migration("0001-a.sql", sections("a"));
  expect({"up"}, 0);
  std::filesystem::remove(project.migrations() / "0001-a.sql");
  const ProcessResult result = expect({"audit"}, 22);
  // The checks are a report, on stdout; the verdict is an error, on stderr.
  EXPECT_NE(result.out.find("0001-a.sql"), std::string::npos) << describe(result);
  EXPECT_NE(result.err.find("Audit failed"), std::string::npos) << describe(result);
  EXPECT_EQ(result.err.find("0001-a.sql"), std::string::npos) << describe(result);
}

TEST_F(AdoptTest, AuditReportsAnUnreachableDatabaseAsAFailedCheck) {
  const ProcessResult result =
      Process({migronaut_binary(), "--no-env", "--json", "--uri",
               "sqlite:" + (project.dir().path() / "no" / "such" / "dir.db").string(), "audit"},
              {}, project.cwd())
          .wait();
  EXPECT_EQ(result.exit_code, 22) << describe(result);
  const nlohmann::json report = json_of(result);
  EXPECT_EQ(report["checks"][1]["name"], "connection");
  EXPECT_EQ(report["checks"][1]["status"], "fail");

  // A database file that does not exist is a failed check too, and audit does not create it.
  const std::filesystem::path missing = project.dir().path() / "missing.db";
  const ProcessResult absent = Process({migronaut_binary(), "--no-env", "--json", "--uri",
                                        "sqlite:" + missing.string(), "audit"},
                                       {}, project.cwd())
                                   .wait();
  EXPECT_EQ(absent.exit_code, 22) << describe(absent);
  EXPECT_EQ(json_of(absent)["checks"][1]["status"], "fail");
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST_F(AdoptTest, AuditOfAMissingSqliteFileFailsAndCreatesNoFile) {
  project.write_migration("0001-a.sql", sections("a"));
  const ProcessResult result = expect({"--json", "audit"}, 22);
  const nlohmann::json report = json_of(result);
  EXPECT_EQ(report["checks"][1]["name"], "connection");
  EXPECT_EQ(report["checks"][1]["status"], "fail");
  EXPECT_NE(report["checks"][1]["detail"].get<std::string>().find(project.db_path().string()),
            std::string::npos)
      << report.dump();
  EXPECT_FALSE(project.exists());
  EXPECT_FALSE(std::filesystem::exists(project.db_path().string() + "-wal"));
}

TEST_F(AdoptTest, DatabaseUrlIsUsedWhenNothingElseNamesTheDatabase) {
  project.write_migration("0001-a.sql", sections("a"));
  const ProcessResult result =
      Process({migronaut_binary(), "--no-env", "--dir", project.migrations().string(), "up"},
              {{"DATABASE_URL", "sqlite:" + project.db_path().string()}}, project.cwd())
          .wait();
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_TRUE(has_table("a"));
}

// dbmate's other spelling of the SQLite scheme, relative and absolute.
TEST_F(AdoptTest, DbmatesSqlite3SchemeIsSqlite) {
  project.write_migration("0001-a.sql", sections("a"));
  const ProcessResult result =
      Process({migronaut_binary(), "--no-env", "--dir", project.migrations().string(), "up"},
              {{"DATABASE_URL", "sqlite3:" + project.db_path().string()}}, project.cwd())
          .wait();
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_TRUE(has_table("a"));
  project.write_migration("0002-b.sql", sections("b"));
  const std::filesystem::path relative =
      std::filesystem::relative(project.db_path(), project.cwd());
  const ProcessResult again =
      Process({migronaut_binary(), "--no-env", "--uri", "sqlite3://" + relative.string(), "--dir",
               project.migrations().string(), "up"},
              {}, project.cwd())
          .wait();
  EXPECT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_TRUE(has_table("b"));
}

TEST_F(AdoptTest, DryRunSqlShowsTheScriptsInOrderAndWritesNothing) {
  project.write_migration("V1__a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("V2__b.sql", "CREATE TABLE b (id INTEGER);\n");
  const ProcessResult shown = expect({"dry-run", "up", "--sql"}, 0);
  EXPECT_EQ(shown.out,
            "-- migronaut up V1__a.sql\nCREATE TABLE a (id INTEGER);\n"
            "-- migronaut up V2__b.sql\nCREATE TABLE b (id INTEGER);\n");
  const std::filesystem::path file = project.dir().path() / "review.sql";
  expect({"dry-run", "up", "--sql", "--output", file.string()}, 0);
  std::ifstream in(file);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, shown.out);
  EXPECT_FALSE(has_table("a"));
  EXPECT_TRUE(project.statuses().empty());
}

TEST_F(AdoptTest, WaitGivesUpAtOnceWhenAPendingMigrationFailed) {
  project.write_migration("0001-bad.sql", "-- migrate:up\nSELECT * FROM no_such_table;\n");
  expect({"up"}, 7);
  const ProcessResult result = expect({"wait", "--timeout", "600000"}, 7);
  EXPECT_NE(result.err.find("0001-bad.sql"), std::string::npos) << result.err;
}

TEST_F(AdoptTest, WaitHonoursItsTimeoutToThePoll) {
  project.write_migration("0001-a.sql", sections("a"));
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult result = expect({"--json", "wait", "--timeout", "700"}, 2);
  // The error's waitedMs is the last poll's: it reaches the deadline instead of stopping early.
  EXPECT_GE(json_of(result)["error"]["context"]["waitedMs"].get<std::int64_t>(), 700);
  (void)started;
}

// History tables exactly as each tool creates them on SQLite (from the tools' sources).
TEST_F(AdoptTest, ImportsGolangMigrateHistoryAndRefusesADirtyOne) {
  project.write_migration("1_a.up.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("2_b.up.sql", "CREATE TABLE b (id INTEGER);\n");
  project.write_migration("3_c.up.sql", "CREATE TABLE c (id INTEGER);\n");
  { std::ofstream create(project.db_path()); }
  project.open().exec(
      "CREATE TABLE schema_migrations (version uint64,dirty bool);"
      "CREATE UNIQUE INDEX version_unique ON schema_migrations (version);"
      "INSERT INTO schema_migrations VALUES (2, 1);");
  // dbmate names its table the same, and would read only the version row itself.
  const ProcessResult not_dbmate = expect({"import", "--from", "dbmate"}, 20);
  EXPECT_NE(not_dbmate.err.find("--from golang-migrate"), std::string::npos) << not_dbmate.err;
  const ProcessResult dirty = expect({"import", "--from", "golang-migrate"}, 24);
  EXPECT_NE(dirty.err.find("dirty"), std::string::npos) << dirty.err;
  EXPECT_TRUE(project.statuses().empty());

  project.open().exec("UPDATE schema_migrations SET dirty = 0, version = -5");
  expect({"import", "--from", "golang-migrate"}, 20);
  EXPECT_TRUE(project.statuses().empty());

  project.open().exec("UPDATE schema_migrations SET version = 2");
  const std::string source = project.open().rows("SELECT * FROM schema_migrations")[0][0];
  expect({"import", "--from", "golang-migrate"}, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"1_a.up.sql", "applied"}, {"2_b.up.sql", "applied"}}));
  EXPECT_EQ(project.open().value("SELECT origin FROM _migronaut_migrations LIMIT 1"),
            "golang-migrate");
  EXPECT_EQ(project.open().rows("SELECT * FROM schema_migrations")[0][0], source);
  expect({"up"}, 0);  // only 3 runs
  EXPECT_TRUE(has_table("c"));
  EXPECT_FALSE(has_table("a"));
}

// A first `up` on a database dbmate migrated, its history never imported, would run dbmate's
// migrations again: refused until `import`. Another app's schema_migrations (Rails keeps the same
// table), whose versions are no file here, stands aside.
TEST_F(AdoptTest, AFirstUpOverAnotherToolsUnimportedHistoryIsRefused) {
  project.write_migration("20240101000000_a.sql", "-- migrate:up\nCREATE TABLE a (id INTEGER);\n");
  project.write_migration("20240102000000_b.sql", "-- migrate:up\nCREATE TABLE b (id INTEGER);\n");
  { std::ofstream create(project.db_path()); }
  project.open().exec(
      "CREATE TABLE schema_migrations (version VARCHAR(128) PRIMARY KEY);"
      "INSERT INTO schema_migrations VALUES ('20190101000000');");
  expect({"up"}, 0);  // a history of other files: not this folder's
  EXPECT_TRUE(has_table("a"));

  const std::filesystem::path other = project.dir().path() / "dbmate.db";
  { std::ofstream create(other); }
  SqliteDb(other).exec(
      "CREATE TABLE schema_migrations (version VARCHAR(128) PRIMARY KEY);"
      "INSERT INTO schema_migrations VALUES ('20240101000000');"
      "CREATE TABLE a (id INTEGER);");
  const std::string before = dump_database(other);
  const auto run_on_other = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {migronaut_binary(), "--no-env", "--uri", "sqlite:" + other.string(),
                               "--dir", project.migrations().string()});
    return Process(args, {}, project.cwd()).wait();
  };
  const ProcessResult refused = run_on_other({"--json", "up"});
  EXPECT_EQ(refused.exit_code, 24) << describe(refused);
  EXPECT_EQ(json_of(refused)["error"]["context"]["tool"], "dbmate");
  EXPECT_NE(refused.err.find("migronaut import --from dbmate"), std::string::npos) << refused.err;
  EXPECT_EQ(dump_database(other), before);
  EXPECT_EQ(run_on_other({"import", "--from", "dbmate"}).exit_code, 0);
  const ProcessResult up = run_on_other({"up"});
  EXPECT_EQ(up.exit_code, 0) << describe(up);  // only b runs; a would fail: its table exists
  EXPECT_TRUE(SqliteDb(other).has_table("b"));
}

// The user trial's database: golang-migrate applied 1 to 3 of this folder's four (clean at
// version 3), and nobody imported its history. Its dump, to show a command left it as it was.
class UnimportedHistoryTest : public AdoptTest {
 protected:
  void SetUp() override {
    for (const char* name : {"1_a", "2_b", "3_c", "4_d"}) {
      const std::string table(1, name[2]);
      project.write_migration(std::string(name) + ".up.sql",
                              "CREATE TABLE " + table + " (id INTEGER);\n");
    }
    { std::ofstream create(project.db_path()); }
    project.open().exec(
        "CREATE TABLE schema_migrations (version uint64,dirty bool);"
        "CREATE UNIQUE INDEX version_unique ON schema_migrations (version);"
        "INSERT INTO schema_migrations VALUES (3, 0);"
        "CREATE TABLE a (id INTEGER); CREATE TABLE b (id INTEGER); CREATE TABLE c (id INTEGER);");
    before = project.dump();
  }
  // What `up` says, naming the tool, its table and the import that lifts the refusal.
  static void expect_names_the_import(const std::string& text) {
    EXPECT_NE(text.find("golang-migrate's history (schema_migrations), which applied 3 "
                        "migration(s) of this folder"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("`migronaut import --from golang-migrate`"), std::string::npos) << text;
  }
  std::string before;
};

// `dry-run up` shows what `up` would do, and `up` refuses: so does the dry run, alike.
TEST_F(UnimportedHistoryTest, DryRunUpIsRefusedLikeUp) {
  const ProcessResult up = expect({"up"}, 24);
  const ProcessResult dry_run = expect({"dry-run", "up"}, 24);
  expect_names_the_import(dry_run.err);
  EXPECT_EQ(dry_run.err, up.err);
  const nlohmann::json error = json_of(expect({"--json", "dry-run", "up", "--sql"}, 24))["error"];
  EXPECT_EQ(error["code"], "MIGRATION_BLOCKED") << error;
  EXPECT_EQ(error["context"]["tool"], "golang-migrate") << error;
  EXPECT_EQ(error["context"]["table"], "schema_migrations") << error;
  EXPECT_EQ(project.dump(), before);
}

// Nothing gets applied until someone imports, which a Job's `import && up` may be doing: `wait`
// waits as for any run, and its timeout says why with up's refusal (24, not 2).
TEST_F(UnimportedHistoryTest, WaitsAndItsTimeoutNamesTheImport) {
  const ProcessResult wait = expect({"wait", "--timeout", "300ms"}, 24);
  expect_names_the_import(wait.err);
  EXPECT_EQ(project.dump(), before);
}

// A dirty version (golang-migrate failed midway, or at work now) on a database never imported:
// `up` refuses it as `import` would, and so do `status --check`, `audit` and `wait` (at its
// timeout: golang-migrate marks every version dirty while it runs it), while `status` still
// lists the migrations and warns.
TEST_F(UnimportedHistoryTest, ADirtyHistoryIsRefusedByUpAndShownByStatus) {
  project.open().exec("UPDATE schema_migrations SET dirty = 1");
  const std::string dirty_before = project.dump();
  EXPECT_NE(expect({"up"}, 24).err.find("dirty"), std::string::npos);
  const ProcessResult status = expect({"--json", "status"}, 0);
  EXPECT_EQ(json_of(status)["pending"], 4) << status.out;
  EXPECT_EQ(json_of(status)["upRefusal"]["context"]["dirty"], true) << status.out;
  EXPECT_NE(status.err.find("golang-migrate's history (schema_migrations) was not read"),
            std::string::npos)
      << status.err;
  expect({"status", "--check"}, 24);
  const ProcessResult wait = expect({"--json", "wait", "--timeout", "300ms"}, 24);
  EXPECT_NE(wait.err.find("dirty"), std::string::npos) << wait.err;
  const ProcessResult audit = expect({"audit"}, 22);
  EXPECT_NE(audit.out.find("dirty"), std::string::npos) << audit.out;
  EXPECT_EQ(project.dump(), dirty_before);
}

// A migration imported from the tool stays the tool's through migronaut's own redo and down (its
// record keeps the tool as origin): the tool's row for it is older than the import, so the next
// `up` runs it again as any reverted migration, refusing nothing.
TEST_F(UnimportedHistoryTest, AnImportedMigrationStaysTheToolsThroughARedoAndADown) {
  project.write_migration("3_c.down.sql", "DROP TABLE c;\n");
  expect({"import", "--from", "golang-migrate"}, 0);
  expect({"redo", "3_c.up.sql"}, 0);
  expect({"down", "3_c.up.sql"}, 0);
  EXPECT_FALSE(has_table("c"));
  expect({"status", "--check"}, 2);  // pending, not another tool's
  expect({"up", "--to", "3_c.up.sql"}, 0);
  EXPECT_TRUE(has_table("c"));
  EXPECT_EQ(project.statuses()["3_c.up.sql"], "applied");
}

TEST_F(UnimportedHistoryTest, AuditFailsNamingTheTableAndTheImport) {
  const nlohmann::json report = json_of(expect({"--json", "audit"}, 22));
  EXPECT_EQ(report["ok"], false);
  nlohmann::json import_check;
  for (const nlohmann::json& check : report["checks"]) {
    if (check["name"] == "import") import_check = check;
  }
  EXPECT_EQ(import_check["status"], "fail") << report.dump(2);
  const std::string detail = import_check.value("detail", "");
  EXPECT_NE(detail.find("golang-migrate's history (schema_migrations)"), std::string::npos)
      << detail;
  EXPECT_NE(detail.find("migronaut import --from golang-migrate"), std::string::npos) << detail;
  EXPECT_EQ(project.dump(), before);

  expect({"import", "--from", "golang-migrate"}, 0);
  // Kept whole: a member of a temporary would not outlive the search.
  const nlohmann::json audited = json_of(expect({"--json", "audit"}, 0));
  EXPECT_TRUE(std::any_of(audited["checks"].begin(), audited["checks"].end(),
                          [](const nlohmann::json& check) {
                            return check["name"] == "import" && check["status"] == "pass";
                          }))
      << audited;
}

// `status` only reads: it lists the rows as the changelog has them, and says on stderr that
// `up` refuses; `--check` exits as `up` would (24), "pending" being no true answer.
TEST_F(UnimportedHistoryTest, StatusWarnsAndCheckExitsAsUpWould) {
  const ProcessResult status = expect({"status"}, 0);
  EXPECT_NE(status.out.find("0 applied, 4 pending"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find("golang-migrate"), std::string::npos) << status.out;
  expect_names_the_import(status.err);
  const nlohmann::json document = json_of(expect({"--json", "status"}, 0));
  EXPECT_EQ(document["pending"], 4);
  EXPECT_EQ(
      document["unimportedHistory"],
      (nlohmann::json{{"tool", "golang-migrate"}, {"table", "schema_migrations"}, {"covered", 3}}));
  expect_names_the_import(expect({"status", "--check"}, 24).err);
  EXPECT_EQ(project.dump(), before);

  expect({"import", "--from", "golang-migrate"}, 0);
  EXPECT_TRUE(json_of(expect({"--json", "status", "--check"}, 2))["unimportedHistory"].is_null());
}

// After the import golang-migrate applied 4 as well (a host still running it): `up` would run it
// again, so it refuses, naming it, as `status --check` and `audit` do, until that is imported
// too; an `up` of another file runs. What migronaut applies itself after the import is no such
// history. A dirty version (golang-migrate failed midway) is refused by `up`, as `import` refuses
// it, and only warned of by `status`.
TEST_F(UnimportedHistoryTest, WhatTheToolAppliesAfterTheImportIsRefusedUntilImportedToo) {
  expect({"import", "--from", "golang-migrate"}, 0);
  project.open().exec("UPDATE schema_migrations SET version = 4; CREATE TABLE d (id INTEGER);");
  const std::string applied_by_it = project.dump();
  const ProcessResult up = expect({"--json", "up"}, 24);
  const nlohmann::json context = json_of(up)["error"]["context"];
  EXPECT_EQ(context["sinceImport"], nlohmann::json::array({"4_d.up.sql"})) << context;
  EXPECT_EQ(context["covered"], 1) << context;
  EXPECT_NE(up.err.find("applied that migronaut's changelog does not record as applied"),
            std::string::npos)
      << up.err;
  EXPECT_NE(up.err.find("`migronaut import --from golang-migrate --force`"), std::string::npos)
      << up.err;
  EXPECT_EQ(
      json_of(expect({"--json", "status", "--check"}, 24))["unimportedHistory"]["sinceImport"],
      nlohmann::json::array({"4_d.up.sql"}));
  expect({"audit"}, 22);
  EXPECT_EQ(project.dump(), applied_by_it);

  project.write_migration("5_e.up.sql", "CREATE TABLE e (id INTEGER);\n");
  expect({"up", "5_e.up.sql"}, 0);
  EXPECT_TRUE(has_table("e"));
  expect({"up"}, 24);
  expect({"import", "--from", "golang-migrate", "--force"}, 0);
  const std::string imported = project.dump();
  expect({"up"}, 0);
  EXPECT_EQ(project.dump(), imported);  // nothing ran: d was golang-migrate's
  EXPECT_EQ(project.statuses()["4_d.up.sql"], "applied");
  expect({"audit"}, 0);

  project.write_migration("6_f.up.sql", "CREATE TABLE f (id INTEGER);\n");
  project.open().exec("UPDATE schema_migrations SET version = 6, dirty = 1");
  const ProcessResult status = expect({"status"}, 0);
  EXPECT_NE(status.err.find("golang-migrate's history (schema_migrations) was not read"),
            std::string::npos)
      << status.err;
  const ProcessResult dirty = expect({"up"}, 24);
  EXPECT_NE(dirty.err.find("dirty"), std::string::npos) << dirty.err;
  EXPECT_FALSE(has_table("f"));
}

// `baseline` records migrations applied without running them: over a history never imported it
// would stand in for `import` with made-up times, and over a dirty version mark applied what
// golang-migrate may not have finished. Refused as `up` refuses, the database left as it was.
TEST_F(UnimportedHistoryTest, BaselineIsRefusedAsUpIs) {
  expect_names_the_import(expect({"baseline", "--yes", "--to", "1_a.up.sql"}, 24).err);
  EXPECT_EQ(project.dump(), before);
  project.open().exec("UPDATE schema_migrations SET dirty = 1");
  const std::string dirty = project.dump();
  EXPECT_NE(expect({"baseline", "--yes"}, 24).err.find("dirty"), std::string::npos);
  EXPECT_EQ(project.dump(), dirty);
}

// migronaut's changelog began with a file dbmate never had (its history then covered no file
// here); dbmate's files came into the folder after. They are applied: `up` refuses to run them
// again, naming them, until `import --force` records them.
TEST_F(AdoptTest, AChangelogBegunWithoutTheToolDoesNotHideItsHistory) {
  { std::ofstream create(project.db_path()); }
  project.open().exec(
      "CREATE TABLE schema_migrations (version VARCHAR(128) PRIMARY KEY);"
      "INSERT INTO schema_migrations VALUES ('20240101000000'), ('20240102000000');"
      "CREATE TABLE a (id INTEGER); CREATE TABLE b (id INTEGER);");
  project.write_migration("20240103000000_c.sql", sections("c"));
  expect({"up"}, 0);
  EXPECT_TRUE(has_table("c"));
  project.write_migration("20240101000000_a.sql", sections("a"));
  project.write_migration("20240102000000_b.sql", sections("b"));
  const std::string with_c = project.dump();
  const ProcessResult up = expect({"--json", "up"}, 24);
  EXPECT_EQ(json_of(up)["error"]["context"]["sinceImport"],
            nlohmann::json::array({"20240101000000_a.sql", "20240102000000_b.sql"}))
      << up.out;
  EXPECT_NE(up.err.find("`migronaut import --from dbmate --force`"), std::string::npos) << up.err;
  expect({"status", "--check"}, 24);
  EXPECT_EQ(project.dump(), with_c);

  expect({"import", "--from", "dbmate", "--force"}, 0);
  const std::string imported = project.dump();
  expect({"up"}, 0);
  EXPECT_EQ(project.dump(), imported);  // nothing ran again
  EXPECT_EQ(project.statuses(), (Statuses{{"20240101000000_a.sql", "applied"},
                                          {"20240102000000_b.sql", "applied"},
                                          {"20240103000000_c.sql", "applied"}}));
}

// Another application's golang-migrate table, dirty, beside a changelog that holds nothing from
// it and none of whose versions is a file here, stands aside: `up` runs.
TEST_F(AdoptTest, AnotherAppsDirtyHistoryBesideAChangelogStandsAside) {
  project.write_migration("20240103000000_c.sql", sections("c"));
  expect({"up"}, 0);
  project.open().exec(
      "CREATE TABLE schema_migrations (version uint64,dirty bool);"
      "INSERT INTO schema_migrations VALUES (7, 1);");
  project.write_migration("20240104000000_d.sql", sections("d"));
  expect({"up"}, 0);
  EXPECT_TRUE(has_table("d"));
}

// migronaut's first run of a migration failed; a host still running golang-migrate then applied
// it. `up` refuses it (exit 24) rather than retry it over the tool's work, and `import --force`
// records it applied over the failure.
TEST_F(UnimportedHistoryTest, WhatTheToolAppliesAfterMigronautFailedItIsNotRunAgain) {
  expect({"import", "--from", "golang-migrate"}, 0);
  project.open().exec("CREATE TABLE d (id INTEGER);");  // in the way of migronaut's run
  expect({"up"}, 7);
  EXPECT_EQ(project.statuses()["4_d.up.sql"], "failed");
  project.open().exec(
      "DROP TABLE d; CREATE TABLE d (id INTEGER);"
      "UPDATE schema_migrations SET version = 4;");
  project.open().exec("INSERT INTO d VALUES (1);");  // the tool's d, in use
  const std::string applied_by_it = project.dump();

  const ProcessResult up = expect({"--json", "up"}, 24);
  EXPECT_EQ(json_of(up)["error"]["context"]["sinceImport"], nlohmann::json::array({"4_d.up.sql"}))
      << up.out;
  expect({"status", "--check"}, 24);
  EXPECT_EQ(project.dump(), applied_by_it);

  expect({"import", "--from", "golang-migrate", "--force"}, 0);
  EXPECT_EQ(project.statuses()["4_d.up.sql"], "applied");
  expect({"up"}, 0);
  EXPECT_EQ(project.open().value("SELECT count(*) FROM d"), "1");
  expect({"audit"}, 0);
}

// An import writes all its records or none: one cut short would leave the rest pending, for
// `up` to run again. Here the database refuses the third record.
TEST_F(AdoptTest, AnImportThatFailsMidwayWritesNoRecord) {
  for (const char* name : {"1_a.sql", "2_b.sql", "3_c.sql"}) {
    project.write_migration(name, "-- migrate:up\nCREATE TABLE t (id INTEGER);\n");
  }
  { std::ofstream create(project.db_path()); }
  project.open().exec(
      "CREATE TABLE schema_migrations (version VARCHAR(128) PRIMARY KEY);"
      "INSERT INTO schema_migrations VALUES ('1');");
  expect({"import", "--from", "dbmate"}, 0);
  project.open().exec(
      "INSERT INTO schema_migrations VALUES ('2'), ('3');"
      "CREATE TRIGGER refuse_third BEFORE INSERT ON _migronaut_migrations"
      " WHEN NEW.name = '3_c.sql' BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
  const std::string before = project.dump();
  const ProcessResult failed = project.run({"import", "--from", "dbmate", "--force"});
  EXPECT_NE(failed.exit_code, 0) << describe(failed);
  EXPECT_NE(failed.err.find("disk full"), std::string::npos) << failed.err;
  EXPECT_EQ(project.statuses(), (Statuses{{"1_a.sql", "applied"}}));
  EXPECT_EQ(project.dump(), before);
}

// flyway_schema_history as Flyway's SQLite support creates it. The rows' checksums are Flyway's
// of the files the tests write (CRC-32 of the lines, as a signed number).
constexpr const char* kFlywayHistory =
    "CREATE TABLE flyway_schema_history (installed_rank INT NOT NULL PRIMARY KEY,"
    " version VARCHAR(50), description VARCHAR(200) NOT NULL, type VARCHAR(20) NOT NULL,"
    " script VARCHAR(1000) NOT NULL, checksum INT, installed_by VARCHAR(100) NOT NULL,"
    " installed_on TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now')),"
    " execution_time INT NOT NULL, success BOOLEAN NOT NULL);";

// A database whose Flyway history holds only `flyway baseline -baselineVersion=<version>`.
void write_flyway_baseline(const SqliteProject& project, const std::string& version) {
  { std::ofstream create(project.db_path()); }
  project.open().exec(std::string(kFlywayHistory) +
                      "INSERT INTO flyway_schema_history VALUES (1, '" + version +
                      "', '<< Flyway Baseline >>', 'BASELINE', '<< Flyway Baseline >>', NULL,"
                      " 'dba', '2025-03-04 05:06:07.000', 0, 1);");
}

TEST_F(AdoptTest, ImportsFlywayHistoryWithItsTimesOnceAFailedRowIsRepaired) {
  project.write_migration("V1__a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("V1.1__b.sql", "CREATE TABLE b (id INTEGER);\n");
  { std::ofstream create(project.db_path()); }
  project.open().exec(
      std::string(kFlywayHistory) +
      "INSERT INTO flyway_schema_history VALUES"
      " (1, '1', 'a', 'SQL', 'V1__a.sql', -59897099, 'dba', '2025-03-04 05:06:07.000', 5, 1),"
      " (2, '1.1', 'b', 'SQL', 'V1.1__b.sql', -317497204, 'dba', '2025-03-05 05:06:07.000', 5,"
      " 0);");
  // V1.1 failed: perhaps half applied. Refused until its row is gone, as `flyway repair` does.
  const std::string before = project.dump();
  const ProcessResult refused = expect({"import", "--from", "flyway"}, 24);
  EXPECT_NE(refused.err.find("V1.1__b.sql as failed"), std::string::npos) << refused.err;
  EXPECT_EQ(project.dump(), before);
  project.open().exec("DELETE FROM flyway_schema_history WHERE success = 0");
  const nlohmann::json preview =
      json_of(expect({"--json", "import", "--from", "flyway", "--dry-run"}, 0));
  EXPECT_EQ(preview["imported"].size(), 1u);
  EXPECT_TRUE(project.statuses().empty());
  expect({"import", "--from", "flyway"}, 0);
  EXPECT_EQ(project.statuses(), (Statuses{{"V1__a.sql", "applied"}}));
  EXPECT_EQ(project.open().value("SELECT applied_at FROM _migronaut_migrations"),
            "1741064767000");  // 2025-03-04T05:06:07Z
  // A second import needs --force, and is then idempotent.
  expect({"import", "--from", "flyway"}, 17);
  const nlohmann::json again =
      json_of(expect({"--json", "import", "--from", "flyway", "--force"}, 0));
  EXPECT_EQ(again["imported"].size(), 0u);
  EXPECT_EQ(again["skipped"], nlohmann::json::array({"V1__a.sql"}));
  expect({"up"}, 0);
  EXPECT_TRUE(has_table("b"));
  EXPECT_FALSE(has_table("a"));
}

// Flyway ran V2 and the repeatable before they were edited: V2 is imported as drift, which audit
// fails and repair accepts, and the repeatable runs again at the next up, as Flyway would.
TEST_F(AdoptTest, AFileEditedSinceFlywayRanItIsImportedAsDrift) {
  project.write_migration("V1__a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("V2__b.sql", "CREATE TABLE b (id INTEGER, note TEXT);\n");
  project.write_migration("R__v.sql", "DROP VIEW IF EXISTS v;\nCREATE VIEW v AS SELECT 2 AS n;\n");
  { std::ofstream create(project.db_path()); }
  project.open().exec(
      std::string(kFlywayHistory) +
      "CREATE TABLE a (id INTEGER); CREATE TABLE b (id INTEGER); CREATE VIEW v AS SELECT 1 AS n;"
      "INSERT INTO flyway_schema_history VALUES"
      " (1, '1', 'a', 'SQL', 'V1__a.sql', -59897099, 'dba', '2025-03-04 05:06:07.000', 5, 1),"
      " (2, '2', 'b', 'SQL', 'V2__b.sql', -317497204, 'dba', '2025-03-05 05:06:07.000', 5, 1),"
      " (3, NULL, 'v', 'SQL', 'R__v.sql', 1358804636, 'dba', '2025-03-06 05:06:07.000', 5, 1);");
  const nlohmann::json imported =
      json_of(expect({"--json", "import", "--from", "flyway"}, 0))["imported"];
  ASSERT_EQ(imported.size(), 3u);
  EXPECT_EQ(imported[0]["checksumSource"], "verified");
  EXPECT_EQ(imported[1]["checksumSource"], "changed");
  EXPECT_EQ(imported[1]["checksum"], "flyway:-317497204");
  EXPECT_EQ(imported[2]["checksumSource"], "changed");
  EXPECT_EQ(
      project.open().value("SELECT reason FROM _migronaut_migrations WHERE name = 'V2__b.sql'"),
      "the file changed since flyway applied it: its checksum is flyway's");

  expect({"up"}, 0);  // runs the repeatable again, not V2 (whose table is there)
  EXPECT_EQ(project.open().value("SELECT n FROM v"), "2");
  EXPECT_EQ(
      project.open().value("SELECT checksum FROM _migronaut_migrations WHERE name = 'V2__b.sql'"),
      "flyway:-317497204");  // still drift, for repair to accept
  expect({"audit"}, 22);
  expect({"repair", "--yes"}, 0);
  expect({"audit"}, 0);
}

// `flyway baseline -baselineVersion=2`: everything up to and including 2 counts as applied.
TEST_F(AdoptTest, ImportsAFlywayBaselineAsEverythingUpToItsVersion) {
  project.write_migration("V1__a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("V2__b.sql", "CREATE TABLE b (id INTEGER);\n");
  project.write_migration("V3__c.sql", "CREATE TABLE c (id INTEGER);\n");
  write_flyway_baseline(project, "2");
  const nlohmann::json imported =
      json_of(expect({"--json", "import", "--from", "flyway"}, 0))["imported"];
  ASSERT_EQ(imported.size(), 2u) << imported.dump();
  EXPECT_EQ(imported[0]["baseline"], "2");
  EXPECT_EQ(project.statuses(), (Statuses{{"V1__a.sql", "applied"}, {"V2__b.sql", "applied"}}));
  EXPECT_EQ(project.open().value("SELECT group_concat(origin || ' ' || applied_at || ' ' || reason,"
                                 " '; ') FROM _migronaut_migrations"),
            "baseline 1741064767000 covered by the Flyway baseline at version 2; "
            "baseline 1741064767000 covered by the Flyway baseline at version 2");
  expect({"up"}, 0);  // only V3 runs
  EXPECT_TRUE(has_table("c"));
  EXPECT_FALSE(has_table("a"));
  EXPECT_FALSE(has_table("b"));
}

// Flyway never undoes below its baseline: an undo file for a baselined version does not make
// it revertible here either. `down` reverts what ran and then refuses the baselined one.
TEST_F(AdoptTest, AFlywayBaselinedImportIsForwardOnlyEvenWithAnUndoFile) {
  project.write_migration("V1__a.sql", "CREATE TABLE a (id INTEGER);\n");
  project.write_migration("U1__a.sql", "DROP TABLE a;\n");
  project.write_migration("V2__b.sql", "CREATE TABLE b (id INTEGER);\n");
  project.write_migration("U2__b.sql", "DROP TABLE b;\n");
  write_flyway_baseline(project, "1");
  project.open().exec("CREATE TABLE a (id INTEGER);");  // what the baseline says is there
  expect({"import", "--from", "flyway"}, 0);
  expect({"up"}, 0);    // V2 runs
  expect({"down"}, 0);  // reverts V2
  EXPECT_FALSE(has_table("b"));
  expect({"down"}, 13);  // V1 was baselined: irreversible
  EXPECT_TRUE(has_table("a"));
  EXPECT_EQ(project.statuses(), (Statuses{{"V1__a.sql", "applied"}, {"V2__b.sql", "reverted"}}));
}

TEST_F(AdoptTest, ImportsKnexHistoryOntoPortedFiles) {
  project.write_migration("20260101120000_users.sql", sections("users"));
  { std::ofstream create(project.db_path()); }
  project.open().exec(
      "CREATE TABLE knex_migrations (id integer not null primary key autoincrement,"
      " name varchar(255), batch integer, migration_time datetime);"
      "INSERT INTO knex_migrations (name, batch, migration_time)"
      " VALUES ('20260101120000_users.js', 1, 1767268800000);");
  expect({"import", "--from", "knex"}, 0);
  SqliteDb db = project.open();
  EXPECT_EQ(db.value("SELECT name || ' ' || status || ' ' || applied_at || ' ' || origin"
                     " FROM _migronaut_migrations"),
            "20260101120000_users.sql applied 1767268800000 knex");
}

TEST_F(AdoptTest, ImportFromAToolThatSqliteCannotHostIsAConfigError) {
  project.write_migration("0001-a.sql", sections("a"));
  expect({"import", "--from", "node-pg-migrate"}, 6);
  expect({"import", "--from", "liquibase"}, 6);
  expect({"import", "--from", "dbmate"}, 6);  // no schema_migrations table
}

}  // namespace
}  // namespace migronaut::testing

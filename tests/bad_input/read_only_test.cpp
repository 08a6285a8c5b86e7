// Commands that only look create nothing: no SQLite file, no table, on any store — and say
// so when the database does not exist (an `up` refused before it ran does not: `up` creates the
// database, so its absence is no news). Paths resolve where the README says they do.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "bad_input/project.hpp"
#include "process/sqlite_project.hpp"

namespace migronaut::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPending = "-- migrate:up\nCREATE TABLE t (id INTEGER);\n";

struct ReadOnlyRun {
  std::string name;
  std::vector<std::string> args;
  int exit_code = 0;
};

std::ostream& operator<<(std::ostream& out, const ReadOnlyRun& run) { return out << run.name; }

const ReadOnlyRun kReadOnlyRuns[] = {
    {"Status", {"status"}, 0},
    {"StatusCheck", {"status", "--check"}, 2},
    {"List", {"list"}, 0},
    {"ListPending", {"list", "--pending"}, 0},
    {"Lock", {"lock"}, 0},
    {"Unlock", {"unlock", "--yes"}, 0},
    {"DryRunUp", {"dry-run", "up"}, 0},
    {"DryRunDown", {"dry-run", "down"}, 0},
    {"Wait", {"wait", "--timeout", "1"}, 2},
    {"Down", {"down"}, 0},
    {"Redo", {"redo"}, 9},
    {"UpRefused", {"up", "--to", "9999-none.sql"}, 8},
    {"UpFileNotPending", {"up", "9999-none.sql"}, 8},
};

class ReadOnlyTest : public ::testing::TestWithParam<std::tuple<ReadOnlyRun, std::string>> {};

TEST_P(ReadOnlyTest, OnAMissingDatabaseCreatesNothing) {
  const auto& [run, store] = GetParam();
  const std::unique_ptr<Project> project =
      store == "sqlite" ? sqlite_project() : postgres_project("ro_" + run.name);
  project->write_migration("0001-t.sql", kPending);

  for (const bool json : {false, true}) {
    std::vector<std::string> args = run.args;
    if (json) args.insert(args.begin(), "--json");
    const ProcessResult result = project->run(args);
    EXPECT_EQ(result.exit_code, run.exit_code) << result.out << result.err;
    if (json) {
      EXPECT_TRUE(nlohmann::json::accept(result.out)) << result.out;
    }
    if (store == "sqlite") {
      EXPECT_EQ(project->bytes(), "<absent>") << "created the database file";
      const bool says_missing = result.err.find("does not exist") != std::string::npos;
      EXPECT_EQ(says_missing, run.args.front() != "up") << result.err;
    } else {
      EXPECT_EQ(project->dump(), "") << "created tables";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Commands, ReadOnlyTest,
                         ::testing::Combine(::testing::ValuesIn(kReadOnlyRuns),
                                            ::testing::Values("sqlite", "postgres")),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" + std::get<1>(info.param);
                         });

TEST(ReadOnlySqlite, ReadingAnExistingDatabaseLeavesItsBytes) {
  const std::unique_ptr<Project> project = sqlite_project();
  project->write_migration("0001-t.sql", kPending);
  ASSERT_EQ(project->run({"up"}).exit_code, 0);
  project->write_migration("0002-u.sql", "-- migrate:up\nCREATE TABLE u (id INTEGER);\n");
  const std::string before = project->bytes();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"status"}, {"list"}, {"lock"}, {"dry-run", "up"}}) {
    EXPECT_EQ(project->run(args).exit_code, 0);
  }
  EXPECT_EQ(project->bytes(), before);
}

TEST(EmptyMigrationsFolder, IsFineButSaysSo) {
  const std::unique_ptr<Project> project = sqlite_project();
  const ProcessResult result = project->run({"up"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("No migrations in " + project->migrations().string()),
            std::string::npos)
      << result.err;
}

TEST(SqliteUriForms, DoubleSlashIsRelativeTripleSlashAbsolute) {
  TempDir dir;
  fs::create_directories(dir.file("cwd"));
  dir.write("migrations/0001-t.sql", kPending);
  const auto up = [&](const std::string& uri) {
    return run_migronaut({"--no-env", "--uri", uri, "--dir", dir.file("migrations").string(), "up"},
                         {}, dir.file("cwd"));
  };
  ASSERT_EQ(up("sqlite://rel.db").exit_code, 0);
  EXPECT_TRUE(fs::exists(dir.file("cwd/rel.db")));
  ASSERT_EQ(up("sqlite://" + dir.file("abs.db").string()).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir.file("abs.db")));
}

TEST(ConfigFileElsewhere, ItsRelativePathsResolveAgainstItsFolder) {
  TempDir dir;
  fs::create_directories(dir.file("cwd"));
  dir.write("deploy/migronaut.config.json",
            R"({"uri": "sqlite:data.db", "migrationsDir": "migrations"})");
  dir.write("deploy/migrations/0001-t.sql", kPending);
  const ProcessResult result = run_migronaut(
      {"--no-env", "--config", "../deploy/migronaut.config.json", "up"}, {}, dir.file("cwd"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(SqliteDb(dir.file("deploy/data.db")).value("SELECT count(*) FROM t"), "0");
  EXPECT_FALSE(fs::exists(dir.file("cwd/data.db")));
}

}  // namespace
}  // namespace migronaut::testing

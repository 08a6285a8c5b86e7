#include "source/migration_set.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <typeinfo>

#include "migronaut/errors.hpp"
#include "support/temp_dir.hpp"
#include "util/checksum.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kSql = "-- migrate:up\nSELECT 1;\n-- migrate:down\nSELECT 2;\n";

std::vector<std::string> names_of(const std::vector<Migration>& migrations) {
  std::vector<std::string> names;
  for (const Migration& migration : migrations) names.push_back(migration.name);
  return names;
}

CodeMigration code_migration(std::string name) {
  CodeMigration migration;
  migration.name = std::move(name);
  migration.up = [](MigrationContext&) {};
  return migration;
}

class LoadMigrationsTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

// Runs `load` and returns the error of type E it must throw.
template <typename E, typename F>
E error_of(F load) {
  try {
    load();
  } catch (const E& error) {
    return error;
  }
  ADD_FAILURE() << "expected " << typeid(E).name();
  return E("none");
}

TEST_F(LoadMigrationsTest, MissingFolderIsRefusedUnlessCodeBringsMigrations) {
  const auto error = error_of<MigrationsDirNotFoundError>(
      [&] { load_migrations(dir_.path() / "absent", ".sql"); });
  EXPECT_EQ(error.context()["path"], (dir_.path() / "absent").string());
  EXPECT_EQ(names_of(load_migrations(dir_.path() / "absent", ".sql", {code_migration("0001-a")})),
            std::vector<std::string>{"0001-a"});
}

// The default folder missing where dbmate's is: the way to it is named.
TEST_F(LoadMigrationsTest, AMissingMigrationsFolderBesideDbmatesNamesIt) {
  dir_.write("db/migrations/20240101000000_a.sql", "-- migrate:up\nSELECT 1;\n");
  for (const char* folder : {"migrations", "migrations/"}) {
    const auto error = error_of<MigrationsDirNotFoundError>(
        [&] { load_migrations(dir_.path() / folder, ".sql"); });
    EXPECT_THAT(error.what(), ::testing::HasSubstr("but db/migrations does (dbmate's folder: "
                                                   "--dir db/migrations)"))
        << folder;
  }
}

TEST_F(LoadMigrationsTest, EmptyFolderHoldsNothing) {
  EXPECT_TRUE(load_migrations(dir_.path(), ".sql").empty());
}

TEST_F(LoadMigrationsTest, FolderThatIsAFileIsRefused) {
  EXPECT_THROW(load_migrations(dir_.write("file", ""), ".sql"), MigrationsDirNotFoundError);
}

TEST_F(LoadMigrationsTest, EntriesNamedLikeMigrationsMustBeReadableFilesInside) {
  namespace fs = std::filesystem;
  const fs::path folder = dir_.path() / "migrations";
  const std::pair<std::string, std::function<void(const fs::path&)>> entries[] = {
      {"0002-dir.sql", [](const fs::path& p) { fs::create_directory(p); }},
      {"0002-dangling.sql", [](const fs::path& p) { fs::create_symlink("nowhere.sql", p); }},
      {"0002-loop.sql", [](const fs::path& p) { fs::create_symlink(p.filename(), p); }},
      {"0002-outside.sql",
       [&](const fs::path& p) { fs::create_symlink(dir_.write("outside.sql", kSql), p); }},
  };
  for (const auto& [name, make] : entries) {
    fs::remove_all(folder);
    dir_.write(folder / "0001-a.sql", kSql);
    make(folder / name);
    const auto error =
        error_of<MigrationFileUnreadableError>([&] { load_migrations(folder, ".sql"); });
    EXPECT_EQ(error.context()["name"], name);
    EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
  }
}

TEST_F(LoadMigrationsTest, SymlinksInsideTheFolderAreFollowed) {
  dir_.write("migrations/shared/0001-a.sql", kSql);
  std::filesystem::create_symlink("shared/0001-a.sql", dir_.path() / "migrations/0001-a.sql");
  EXPECT_EQ(names_of(load_migrations(dir_.path() / "migrations", ".sql")),
            std::vector<std::string>{"0001-a.sql"});
}

TEST_F(LoadMigrationsTest, LoadsTopLevelFilesOfTheExtensionSortedByName) {
  dir_.write("0002-b.sql", kSql);
  dir_.write("0001-a.sql", kSql);
  dir_.write("0003-c.json", R"({"up": [{"ping": 1}]})");
  dir_.write(".0000-hidden.sql", "not sql");
  dir_.write("README.md", "docs");
  dir_.write("0004-nested/0005-inner.sql", kSql);
  EXPECT_EQ(names_of(load_migrations(dir_.path(), ".sql")),
            (std::vector<std::string>{"0001-a.sql", "0002-b.sql"}));
  EXPECT_EQ(names_of(load_migrations(dir_.path(), ".json")),
            (std::vector<std::string>{"0003-c.json"}));
}

// A file that starts like a migration but does not end in the folder's extension is never run:
// it is handed back, in name order, for the caller to name. Tools' leftovers, JavaScript
// migrations, folders and files that start like no migration are not.
TEST_F(LoadMigrationsTest, HandsBackTheNearMissesItDoesNotRead) {
  for (const char* name : {"0001-a.sql", "0002-b.sql"}) dir_.write(name, kSql);
  const std::vector<std::string> near_misses = {"0003-c.sql.txt", "0004-d.psql", "0005-e",
                                                "0006-f.sql ", "V7__g.sq"};
  for (const std::string& name : near_misses) dir_.write(name, kSql);
  for (const char* name : {"0001-a.sql~", "0002-b.sql.bak", "0002-b.SQL.ORIG", "0002-b.sql.rej",
                           "0002-b.sql.swp", "0002-b.sql.tmp", "#0001-a.sql#", ".0001-a.sql.swp",
                           "0008-h.js", "0009_i.ts", "README.md", "notes.txt"}) {
    dir_.write(name, kSql);
  }
  dir_.write("0010-nested/0011-inner.sql", kSql);
  std::vector<std::string> ignored;
  EXPECT_EQ(names_of(load_migrations(dir_.path(), ".sql", {}, &ignored)),
            (std::vector<std::string>{"0001-a.sql", "0002-b.sql"}));
  EXPECT_EQ(ignored, near_misses);
}

// A MongoDB folder's migrations are .json files of migronaut's naming: a .sql file of that
// naming is a near miss there, a JavaScript migration the Node side's.
TEST_F(LoadMigrationsTest, AJsonFolderHandsBackItsOwnNearMisses) {
  dir_.write("0001-a.json", R"({"up": [{"ping": 1}]})");
  for (const char* name : {"0002-b.sql", "0003-c.js", "0004_d.txt", "V5__e.txt"}) {
    dir_.write(name, "");
  }
  std::vector<std::string> ignored;
  EXPECT_EQ(load_migrations(dir_.path(), ".json", {}, &ignored).size(), 1u);
  EXPECT_EQ(ignored, std::vector<std::string>{"0002-b.sql"});
}

TEST(IgnoredFilesWarningTest, NamesTheFilesAndWhatToDo) {
  EXPECT_EQ(ignored_files_warning({"3_add_index.sql.txt"}, ".sql"),
            "Ignored 3_add_index.sql.txt: named like a migration, but a migration's file name "
            "ends in .sql, so it never runs: rename it, or move it out of the migrations folder");
  const std::string many = ignored_files_warning(
      {"1_a.gz", "2_b.gz", "3_c.gz", "4_d.gz", "5_e.gz", "6_f.gz", "7_g.gz"}, ".sql");
  EXPECT_NE(many.find("Ignored 7 files named like migrations (1_a.gz, 2_b.gz, 3_c.gz, 4_d.gz, "
                      "5_e.gz and 2 more): a migration's file name ends in .sql"),
            std::string::npos)
      << many;
  EXPECT_EQ(ignored_files_warning({"1_a\nWarning: forged"}, ".sql").find('\n'), std::string::npos);
}

// A large folder is read on several threads: every file still lands with its own text, in
// name order.
TEST_F(LoadMigrationsTest, ALargeFolderLoadsEveryFileWithItsOwnText) {
  constexpr int kFiles = 1500;
  const auto text_of = [](int i) {
    return fmt::format("-- migrate:up\nCREATE TABLE t{} ();\n", i);
  };
  for (int i = 1; i <= kFiles; ++i) dir_.write(fmt::format("{:05}-t{}.sql", i, i), text_of(i));
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(migrations.size(), static_cast<std::size_t>(kFiles));
  for (int i = 1; i <= kFiles; ++i) {
    const Migration& migration = migrations[static_cast<std::size_t>(i - 1)];
    ASSERT_EQ(migration.name, fmt::format("{:05}-t{}.sql", i, i));
    ASSERT_EQ(migration.checksum, checksum_hex(text_of(i))) << migration.name;
  }
}

// However the threads share a large folder out, the file reported is the first in name order
// that does not parse, though a long one is found bad after a later, short one.
TEST_F(LoadMigrationsTest, ALargeFolderReportsItsFirstBadFileInNameOrder) {
  for (int i = 1; i <= 1500; ++i) {
    std::string text(kSql);
    if (i == 700) text = "DROP TABLE users;\n" + std::string(8 << 20, '-');
    if (i == 1300) text = "DROP TABLE users;\n";
    dir_.write(fmt::format("{:05}-t{}.sql", i, i), text);
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    const auto error =
        error_of<MigrationInvalidFormatError>([&] { load_migrations(dir_.path(), ".sql"); });
    EXPECT_EQ(error.context()["file"], "00700-t700.sql");
  }
}

TEST_F(LoadMigrationsTest, ChecksumsTheRawFile) {
  dir_.write("0001-a.sql", "-- migrate:up\r\nSELECT 1;\r\n");
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(migrations.size(), 1u);
  EXPECT_EQ(migrations[0].checksum, checksum_hex("-- migrate:up\nSELECT 1;\n"));
}

TEST_F(LoadMigrationsTest, MergesCodeMigrations) {
  dir_.write("0001-a.sql", kSql);
  dir_.write("0003-c.sql", kSql);
  CodeMigration code = code_migration("0002-seed");
  code.description = "seed";
  code.use_transaction = false;
  code.timeout = std::chrono::milliseconds(5);
  code.version = "7";
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql", {code});
  ASSERT_EQ(names_of(migrations),
            (std::vector<std::string>{"0001-a.sql", "0002-seed", "0003-c.sql"}));
  const Migration& seed = migrations[1];
  EXPECT_EQ(seed.description, "seed");
  EXPECT_EQ(seed.checksum, checksum_hex("code:0002-seed:7"));
  EXPECT_TRUE(std::holds_alternative<MigrationBody>(seed.up));
  EXPECT_FALSE(seed.down.has_value());
  EXPECT_EQ(seed.options.transactional, false);
  EXPECT_EQ(seed.timeout, std::chrono::milliseconds(5));
}

TEST_F(LoadMigrationsTest, CodeMigrationWithDownIsReversible) {
  CodeMigration code = code_migration("0001-seed");
  code.down = [](MigrationContext&) {};
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql", {code});
  ASSERT_EQ(migrations.size(), 1u);
  EXPECT_TRUE(migrations[0].down.has_value());
}

TEST_F(LoadMigrationsTest, CodeVersionChangesTheChecksum) {
  CodeMigration first = code_migration("0001-seed");
  CodeMigration second = first;
  second.version = "2";
  EXPECT_NE(load_migrations(dir_.path(), ".sql", {first})[0].checksum,
            load_migrations(dir_.path(), ".sql", {second})[0].checksum);
}

TEST_F(LoadMigrationsTest, RejectsASharedVersionNamingBoth) {
  dir_.write("0001-a.sql", kSql);
  dir_.write("0001-b.sql", kSql);
  try {
    load_migrations(dir_.path(), ".sql");
    FAIL() << "expected MigrationInvalidNameError";
  } catch (const MigrationInvalidNameError& error) {
    EXPECT_EQ(error.context()["name"], "0001-b.sql");
    EXPECT_EQ(error.context()["conflictsWith"], "0001-a.sql");
    EXPECT_NE(std::string(error.what()).find("0001-a.sql"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("0001-b.sql"), std::string::npos);
  }
}

TEST_F(LoadMigrationsTest, RejectsACodeMigrationSharingAFilesVersion) {
  dir_.write("0001-a.sql", kSql);
  EXPECT_THROW(load_migrations(dir_.path(), ".sql", {code_migration("0001-seed")}),
               MigrationInvalidNameError);
}

TEST_F(LoadMigrationsTest, RejectsTwoCodeMigrationsWithOneName) {
  EXPECT_THROW(load_migrations(dir_.path(), ".sql",
                               {code_migration("0001-seed"), code_migration("0001-seed")}),
               MigrationInvalidNameError);
}

// Refused with the other bad input, before anything runs, not as a failure midway.
TEST_F(LoadMigrationsTest, RejectsACodeMigrationWithoutAnUpBody) {
  CodeMigration empty = code_migration("0001-seed");
  empty.up = nullptr;
  EXPECT_THROW(load_migrations(dir_.path(), ".sql", {empty}), MigrationInvalidFormatError);
}

TEST_F(LoadMigrationsTest, RejectsInvalidFileNames) {
  dir_.write("create users.sql", kSql);
  EXPECT_THROW(load_migrations(dir_.path(), ".sql"), MigrationInvalidNameError);
}

TEST_F(LoadMigrationsTest, RejectsInvalidCodeMigrationNames) {
  EXPECT_THROW(load_migrations(dir_.path(), ".sql", {code_migration("../0001-escape")}),
               MigrationInvalidNameError);
}

TEST_F(LoadMigrationsTest, RejectsAFileThatDoesNotParse) {
  dir_.write("0001-a.sql", "DROP TABLE users;\n");
  try {
    load_migrations(dir_.path(), ".sql");
    FAIL() << "expected MigrationInvalidFormatError";
  } catch (const MigrationInvalidFormatError& error) {
    EXPECT_EQ(error.context()["file"], "0001-a.sql");
  }
}

TEST_F(LoadMigrationsTest, OrdersVersionsAsNumbers) {
  dir_.write("10-c.sql", kSql);
  dir_.write("9-b.sql", kSql);
  dir_.write("0001-a.sql", kSql);
  EXPECT_EQ(names_of(load_migrations(dir_.path(), ".sql")),
            (std::vector<std::string>{"0001-a.sql", "9-b.sql", "10-c.sql"}));
}

TEST_F(LoadMigrationsTest, ReadsDbmateNamesWithTheSameSections) {
  dir_.write("20260101120000_add_users.sql", kSql);
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(migrations.size(), 1u);
  EXPECT_EQ(migrations[0].version, "20260101120000");
  EXPECT_EQ(std::get<Script>(migrations[0].up).text, "SELECT 1;");
  EXPECT_EQ(std::get<Script>(*migrations[0].down).text, "SELECT 2;\n");
}

TEST_F(LoadMigrationsTest, PairsGolangMigrateUpAndDownFiles) {
  dir_.write("2_users.up.sql", "CREATE TABLE users (id int);\n");
  dir_.write("2_users.down.sql", "DROP TABLE users;\n");
  dir_.write("10_orders.up.sql", "CREATE TABLE orders (id int);\n");
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(names_of(migrations), (std::vector<std::string>{"2_users.up.sql", "10_orders.up.sql"}));
  EXPECT_EQ(std::get<Script>(migrations[0].up).text, "CREATE TABLE users (id int);\n");
  EXPECT_EQ(std::get<Script>(*migrations[0].down).text, "DROP TABLE users;\n");
  EXPECT_EQ(migrations[0].checksum, checksum_hex("CREATE TABLE users (id int);\n"));
  EXPECT_EQ(migrations[0].file_for(Direction::kUp), "2_users.up.sql");
  EXPECT_EQ(migrations[0].file_for(Direction::kDown), "2_users.down.sql");
  EXPECT_FALSE(migrations[1].down.has_value());
}

TEST(ReadMigrationFileTest, ReadsEachFileAsTheFolderLoaderDoes) {
  const auto read = [](std::string_view name, std::string_view text) {
    const NamedFile file{std::string(name), *parse_file_name(name, ".sql")};
    return read_migration_file(file, text, ".sql");
  };
  const Migration up = read("1_users.up.sql", "CREATE TABLE users (id int);\n");
  EXPECT_EQ(std::get<Script>(up.up).text, "CREATE TABLE users (id int);\n");
  EXPECT_EQ(up.version, "1");
  EXPECT_EQ(up.checksum, checksum_hex("CREATE TABLE users (id int);\n"));
  const Migration down = read("1_users.down.sql", "DROP TABLE users;\n");
  EXPECT_TRUE(down.up_empty);
  EXPECT_EQ(std::get<Script>(*down.down).text, "DROP TABLE users;\n");
  EXPECT_EQ(down.file_for(Direction::kDown), "1_users.down.sql");
  EXPECT_TRUE(read("R__views.sql", "CREATE VIEW v AS SELECT 1;").repeatable);
  EXPECT_EQ(std::get<Script>(read("20260101120000_a.sql", kSql).up).text, "SELECT 1;");
}

TEST_F(LoadMigrationsTest, ReadsFlywayDottedVersionsNumericallyWithUndoFiles) {
  dir_.write("V1.10__later.sql", "SELECT 10;");
  dir_.write("V1.2__add_users.sql", "SELECT 2;");
  dir_.write("U1.2__add_users.sql", "SELECT -2;");
  dir_.write("V1__init.sql", "SELECT 1;");
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(names_of(migrations),
            (std::vector<std::string>{"V1__init.sql", "V1.2__add_users.sql", "V1.10__later.sql"}));
  EXPECT_EQ(migrations[1].description, "add users");
  EXPECT_EQ(std::get<Script>(*migrations[1].down).text, "SELECT -2;");
  EXPECT_FALSE(migrations[0].down.has_value());
}

TEST_F(LoadMigrationsTest, RepeatablesRunAfterEveryVersionedMigration) {
  dir_.write("R__views.sql", "CREATE VIEW v AS SELECT 1;");
  dir_.write("V2__b.sql", "SELECT 2;");
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(names_of(migrations), (std::vector<std::string>{"V2__b.sql", "R__views.sql"}));
  EXPECT_TRUE(migrations[1].repeatable);
}

TEST_F(LoadMigrationsTest, RefusesAFolderThatMixesNamingsNamingTheOddFiles) {
  dir_.write("20260101120000_a.sql", kSql);
  dir_.write("20260101120100_b.sql", kSql);
  dir_.write("20260101120200-c.sql", kSql);
  try {
    load_migrations(dir_.path(), ".sql");
    FAIL() << "expected MigrationInvalidNameError";
  } catch (const MigrationInvalidNameError& error) {
    EXPECT_EQ(error.context()["naming"], "dbmate");
    EXPECT_EQ(error.context()["files"], nlohmann::json::array({"20260101120200-c.sql"}));
    EXPECT_NE(std::string(error.what()).find("20260101120200-c.sql"), std::string::npos);
  }
}

// Flyway matches its suffix in any case: a ".SQL" file is a migration, never skipped.
TEST_F(LoadMigrationsTest, ReadsTheExtensionInAnyCase) {
  dir_.write("V1__a.sql", "SELECT 1;");
  dir_.write("V5__add_x.SQL", "SELECT 5;");
  dir_.write("V6__b.Sql", "SELECT 6;");
  dir_.write("README.md", "docs");
  dir_.write("notes.txt", "notes");
  EXPECT_EQ(names_of(load_migrations(dir_.path(), ".sql")),
            (std::vector<std::string>{"V1__a.sql", "V5__add_x.SQL", "V6__b.Sql"}));
  dir_.write("7_c.up.SQL", "SELECT 7;");
  EXPECT_THROW(load_migrations(dir_.path(), ".sql"), MigrationInvalidNameError);
}

// dbmate skips "2_x.SQL": it never ran there, so it is refused, with the name to use.
TEST_F(LoadMigrationsTest, RefusesADbmateFileWithAnUpperCaseExtension) {
  dir_.write("20260101000001_a.sql", "-- migrate:up\nSELECT 1;\n");
  dir_.write("20260101000002_b.SQL", "-- migrate:up\nSELECT 2;\n");
  const auto error =
      error_of<MigrationInvalidNameError>([&] { load_migrations(dir_.path(), ".sql"); });
  EXPECT_EQ(error.context()["name"], "20260101000002_b.SQL");
  EXPECT_NE(std::string(error.what()).find("rename it 20260101000002_b.sql"), std::string::npos)
      << error.what();
}

// golang-migrate skips "5_x.UP.sql": it never ran there, so it is refused, with the name to use.
TEST_F(LoadMigrationsTest, RefusesAGolangMigrateDirectionInAnotherCase) {
  dir_.write("1_a.up.sql", "SELECT 1;");
  dir_.write("1_a.down.sql", "SELECT -1;");
  dir_.write("5_AddX.UP.sql", "SELECT 5;");
  dir_.write("5_AddX.Down.sql", "SELECT -5;");
  const auto error =
      error_of<MigrationInvalidNameError>([&] { load_migrations(dir_.path(), ".sql"); });
  EXPECT_EQ(error.context()["name"], "5_AddX.Down.sql");
  EXPECT_NE(std::string(error.what()).find("rename it 5_AddX.down.sql"), std::string::npos)
      << error.what();
}

TEST_F(LoadMigrationsTest, RefusesADownFileWithoutItsMigration) {
  dir_.write("1_a.up.sql", "SELECT 1;");
  dir_.write("2_b.down.sql", "SELECT 2;");
  EXPECT_THROW(load_migrations(dir_.path(), ".sql"), MigrationInvalidNameError);
}

TEST_F(LoadMigrationsTest, AnEmptyPlainSqlFileLoadsAsEmptyAndIrreversible) {
  dir_.write("1_a.up.sql", " \n");
  dir_.write("1_a.down.sql", "");
  dir_.write("2_b.up.sql", "SELECT 1;");
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(migrations.size(), 2u);
  EXPECT_TRUE(migrations[0].up_empty);
  EXPECT_FALSE(migrations[0].down.has_value());
  EXPECT_FALSE(migrations[1].up_empty);
}

// A down file of comments alone would record its migration reverted having undone nothing: as
// an empty one, it leaves the migration irreversible. A deliberate no-op down says so in SQL.
TEST_F(LoadMigrationsTest, APlainSqlFileOfCommentsOnlyIsEmptyAndSoIsItsDown) {
  dir_.write("1_a.up.sql", "-- nothing yet\n");
  dir_.write("1_a.down.sql", "-- TODO\n;\n/* later */\n");
  dir_.write("2_b.up.sql", "SELECT 1;");
  dir_.write("2_b.down.sql", "-- nothing to undo\nSELECT 1;\n");
  const std::vector<Migration> migrations = load_migrations(dir_.path(), ".sql");
  ASSERT_EQ(migrations.size(), 2u);
  EXPECT_TRUE(migrations[0].up_empty);
  EXPECT_FALSE(migrations[0].down.has_value());
  EXPECT_TRUE(migrations[1].down.has_value());
}

// Flyway reads its location's subfolders, migronaut the folder alone: a Flyway migration below
// it would be left out without a word. Refused, naming it, in a folder of Flyway's naming or of
// none; other folders' subfolders (a dbmate folder's notes) are theirs.
TEST_F(LoadMigrationsTest, RefusesFlywayMigrationsInSubfolders) {
  dir_.write("V1__a.sql", "SELECT 1;");
  dir_.write("2024/q1/V2__b.sql", "SELECT 2;");
  dir_.write("notes/README.md", "not a migration");
  dir_.write("2024/.hidden/V3__c.sql", "SELECT 3;");
  std::filesystem::create_symlink("nowhere", dir_.file("2024/V0__dangling.sql"));
  const auto error =
      error_of<MigrationInvalidNameError>([&] { load_migrations(dir_.path(), ".sql"); });
  EXPECT_EQ(error.context()["files"], nlohmann::json::array({"2024/q1/V2__b.sql"}));

  const testing::TempDir only_below;
  only_below.write("sql/V1__a.sql", "SELECT 1;");
  EXPECT_THROW(load_migrations(only_below.path(), ".sql"), MigrationInvalidNameError);

  const testing::TempDir dbmate;
  dbmate.write("20240101000000_a.sql", "-- migrate:up\nSELECT 1;\n");
  dbmate.write("archive/V1__old.sql", "SELECT 1;");
  dbmate.write(".git/V9__x.sql", "SELECT 1;");
  EXPECT_EQ(load_migrations(dbmate.path(), ".sql").size(), 1u);
}

// Prisma's folder per migration would run nothing here and pass for done: refused, naming each
// file. A folder of migrations kept aside is the user's.
TEST_F(LoadMigrationsTest, RefusesPrismasFolderPerMigration) {
  dir_.write("20240101000000_init/migration.sql", "CREATE TABLE a (id int);");
  dir_.write("20240102000000_users/migration.sql", "CREATE TABLE b (id int);");
  dir_.write("migration_lock.toml", "provider = \"postgresql\"");
  const auto error =
      error_of<MigrationInvalidNameError>([&] { load_migrations(dir_.path(), ".sql"); });
  EXPECT_EQ(error.context()["files"],
            nlohmann::json::array(
                {"20240101000000_init/migration.sql", "20240102000000_users/migration.sql"}));
  EXPECT_THAT(error.what(),
              ::testing::HasSubstr("named after its folder (20240101000000_init.sql), with -- "
                                   "migrate:up as its first line"));

  const testing::TempDir kept_aside;
  kept_aside.write("20240101000000_a.sql", "-- migrate:up\nSELECT 1;\n");
  kept_aside.write("2023_archive/20230101000000_old.sql", "-- migrate:up\nSELECT 1;\n");
  EXPECT_EQ(load_migrations(kept_aside.path(), ".sql").size(), 1u);
}

// Flyway would replace ${who} before running the file; run as it is, the row would hold the
// placeholder. Only Flyway's files, and only a placeholder's shape, are refused.
TEST(FlywayPlaceholderTest, RefusesAPlaceholderInAFlywayFileNamingItsLine) {
  const Script flyway{.text = "CREATE TABLE t (v text);\nINSERT INTO t VALUES ('${owner}');\n",
                      .first_line = 3};
  try {
    refuse_flyway_placeholders("V2__seed.sql", flyway);
    ADD_FAILURE() << "a placeholder passed";
  } catch (const MigrationInvalidFormatError& error) {
    EXPECT_EQ(error.context()["line"], 4);
    EXPECT_THAT(error.what(), ::testing::HasSubstr("the Flyway placeholder ${owner}"));
  }
  EXPECT_THROW(refuse_flyway_placeholders("U3__s.sql", {.text = "SELECT '${flyway:timestamp}';"}),
               MigrationInvalidFormatError);
  EXPECT_NO_THROW(refuse_flyway_placeholders("V4__d.sql", {.text = "SELECT $1, '${}', '${ a }';"}));
  EXPECT_NO_THROW(
      refuse_flyway_placeholders("20240101000000_a.sql", {.text = "SELECT '${owner}';"}));
}

TEST_F(LoadMigrationsTest, RefusesVersionsThatAreOneNumber) {
  dir_.write("V1__a.sql", "SELECT 1;");
  dir_.write("V1.0__b.sql", "SELECT 2;");
  EXPECT_THROW(load_migrations(dir_.path(), ".sql"), MigrationInvalidNameError);
}

}  // namespace
}  // namespace migronaut

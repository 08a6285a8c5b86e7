#include "source/sql_file.hpp"

#include <gtest/gtest.h>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kName = "0001-users.sql";

std::string script(const Work& work) { return std::get<Script>(work).text; }

// The reason and line of the MigrationInvalidFormatError that parsing `text` must throw.
std::pair<std::string, int> format_error(std::string_view text) {
  try {
    parse_sql_migration(kName, text);
  } catch (const MigrationInvalidFormatError& error) {
    EXPECT_EQ(error.context()["file"], kName);
    return {error.context()["reason"], error.context()["line"]};
  }
  ADD_FAILURE() << "expected MigrationInvalidFormatError for:\n" << text;
  return {};
}

TEST(SqlFileTest, SplitsUpAndDown) {
  const Migration migration = parse_sql_migration(
      kName, "-- migrate:up\nCREATE TABLE users (id int);\n-- migrate:down\nDROP TABLE users;\n");
  EXPECT_EQ(migration.name, kName);
  EXPECT_EQ(script(migration.up), "CREATE TABLE users (id int);");
  ASSERT_TRUE(migration.down.has_value());
  EXPECT_EQ(script(*migration.down), "DROP TABLE users;\n");
  EXPECT_FALSE(migration.options.transactional.has_value());
  EXPECT_FALSE(migration.down_options.has_value());
  EXPECT_TRUE(migration.checksum.empty());
}

TEST(SqlFileTest, ScriptsKnowTheLineTheyStartOn) {
  const Migration migration = parse_sql_migration(
      kName, "-- description: x\n\n-- migrate:up\nSELECT 1;\n-- migrate:down\nSELECT 2;");
  EXPECT_EQ(std::get<Script>(migration.up).first_line, 4u);
  EXPECT_EQ(std::get<Script>(*migration.down).first_line, 6u);
}

// A blank line after a marker stays in the script, so a position in it maps to its file line.
TEST(SqlFileTest, BlankLinesAfterAMarkerKeepLinesInPlace) {
  const Migration migration =
      parse_sql_migration(kName, "-- migrate:up\n\nSELECT 1;\n-- migrate:down\n\n\nSELECT 2;\n");
  EXPECT_EQ(script(migration.up), "\nSELECT 1;");
  EXPECT_EQ(std::get<Script>(migration.up).first_line, 2u);  // SELECT 1 is on line 3
  EXPECT_EQ(script(*migration.down), "\n\nSELECT 2;\n");
  EXPECT_EQ(std::get<Script>(*migration.down).first_line, 5u);  // SELECT 2 is on line 7
}

TEST(SqlFileTest, KeepsMultiStatementSectionsWhole) {
  const Migration migration =
      parse_sql_migration(kName, "-- migrate:up\nSELECT 1;\n\n-- a comment\nSELECT 2;");
  EXPECT_EQ(script(migration.up), "SELECT 1;\n\n-- a comment\nSELECT 2;");
}

TEST(SqlFileTest, NoDownSectionIsIrreversible) {
  EXPECT_FALSE(parse_sql_migration(kName, "-- migrate:up\nSELECT 1;\n").down.has_value());
  EXPECT_FALSE(parse_sql_migration(kName, "-- migrate:up\nSELECT 1;\n-- migrate:down\n  \n")
                   .down.has_value());
  // Comments alone would undo nothing, yet record the migration reverted.
  EXPECT_FALSE(parse_sql_migration(kName, "-- migrate:up\nSELECT 1;\n-- migrate:down\n-- TODO\n;\n")
                   .down.has_value());
  EXPECT_TRUE(parse_sql_migration(kName, "-- migrate:up\nSELECT 1;\n-- migrate:down\nSELECT 1;\n")
                  .down.has_value());
}

// A marker in another case would be read as a comment, its section joined to the one before it
// or missing: refused, naming the line.
TEST(SqlFileTest, RefusesAMarkerSpelledOtherwise) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-- Migrate:Up\nSELECT 1;\n", "'-- Migrate:Up' is no marker"},
      {"-- migrate:up\nSELECT 1;\n-- MIGRATE:DOWN\nSELECT 2;\n", "'-- MIGRATE:DOWN' is no marker"},
      // Indented, more dashes, another separator: the down would run as part of the up.
      {"-- migrate:up\nSELECT 1;\n  -- migrate:down\nSELECT 2;\n",
       "'-- migrate:down' is indented: a marker starts its line"},
      {"-- migrate:up\nSELECT 1;\n--- migrate:down\nSELECT 2;\n", "'--- migrate:down' is no"},
      {"-- migrate:up\nSELECT 1;\n-- migrate down\nSELECT 2;\n", "'-- migrate down' is no"},
      {"-- migrate:up\nSELECT 1;\n-- Migrate_Down\nSELECT 2;\n", "write '-- migrate:down'"},
      {"\t--migrate-up\nSELECT 1;\n", "'--migrate-up' is no marker"},
      {"-- migrate up transaction:false\nSELECT 1;\n", "'-- migrate up transaction:false' is no"}};
  for (const auto& [text, reason] : cases) {
    try {
      parse_sql_migration(kName, text);
      ADD_FAILURE() << "read as a comment: " << text;
    } catch (const MigrationInvalidFormatError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
  }
  // Prose that merely starts alike is a comment.
  EXPECT_EQ(
      script(parse_sql_migration(kName, "-- migrate:up\n-- Migrate: the old rows\nSELECT 1;").up),
      "-- Migrate: the old rows\nSELECT 1;");
  for (const std::string prose :
       {"  -- migrated upwards", "-- migrate up to v2 later", "-- Migrate down the legacy rows"}) {
    EXPECT_EQ(script(parse_sql_migration(kName, "-- migrate:up\n" + prose + "\nSELECT 1;").up),
              prose + "\nSELECT 1;");
  }
}

// sql-migrate's files read as sql-migrate reads them: Up and Down sections, each in a
// transaction unless its own line says notransaction (whatever the configuration's default),
// StatementBegin/End kept as the comments they are here; CRLF, blanks and tabs as it splits them.
TEST(SqlFileTest, ReadsSqlMigrateCommands) {
  const Migration migration =
      parse_sql_migration(kName,
                          "-- +migrate Up notransaction\nCREATE INDEX CONCURRENTLY t_c ON t (c);\n"
                          "-- +migrate StatementBegin\nCREATE FUNCTION f() RETURNS int AS $$ "
                          "SELECT 1; $$ LANGUAGE sql;\n"
                          "-- +migrate StatementEnd\n\n-- +migrate Down\nDROP INDEX t_c;\n");
  EXPECT_EQ(script(migration.up),
            "CREATE INDEX CONCURRENTLY t_c ON t (c);\n-- +migrate StatementBegin\nCREATE FUNCTION "
            "f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\n-- +migrate StatementEnd\n");
  EXPECT_EQ(std::get<Script>(migration.up).first_line, 2u);
  EXPECT_EQ(migration.options_for(Direction::kUp).transactional, false);
  ASSERT_TRUE(migration.down.has_value());
  EXPECT_EQ(script(*migration.down), "DROP INDEX t_c;\n");
  EXPECT_EQ(migration.options_for(Direction::kDown).transactional, true);
  const Migration spaced = parse_sql_migration(
      kName, "-- +migrate Up\t notransaction  \r\nSELECT 1;\r\n-- +migrate Down \r\nSELECT 2;");
  EXPECT_EQ(spaced.options_for(Direction::kUp).transactional, false);
  EXPECT_EQ(script(spaced.up), "SELECT 1;");
  EXPECT_EQ(spaced.options_for(Direction::kDown).transactional, true);
  // sql-migrate takes the sections in either order.
  const Migration down_first = parse_sql_migration(
      kName, "-- +migrate Down\nDROP TABLE t;\n-- +migrate Up\nCREATE TABLE t (c int);\n");
  EXPECT_EQ(script(down_first.up), "CREATE TABLE t (c int);\n");
  EXPECT_EQ(script(*down_first.down), "DROP TABLE t;");
}

// What sql-migrate would skip without a word (a command in another spelling or case, an
// unknown one), or read otherwise, is refused, naming the line.
TEST(SqlFileTest, RefusesSqlMigrateCommandsItWouldSkip) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-- +migrate up\nSELECT 1;\n", "line 1: unknown sql-migrate command 'up'"},
      {"-- +migrate Up\nSELECT 1;\n-- +Migrate Down\nSELECT 2;\n",
       "line 3: '-- +Migrate Down' is no sql-migrate command"},
      {"-- +migrate Up\nSELECT 1;\n--+migrate Down\nSELECT 2;\n", "'--+migrate Down' is no"},
      {"-- +migrate Up\nSELECT 1;\n  -- +migrate Down\nSELECT 2;\n", "'-- +migrate Down' is no"},
      {"-- +migrate Up no-transaction\nSELECT 1;\n",
       "unknown option 'no-transaction': sql-migrate knows only notransaction"},
      {"-- +migrate Up\nSELECT 1;\n-- migrate:down\nSELECT 2;\n", "line 3: the file mixes"},
      {"-- +migrate Up\nSELECT 1;\n-- +migrate Up\nSELECT 2;\n",
       "duplicate '-- +migrate Up' marker (first on line 1)"},
      {"-- +migrate Down\nSELECT 1;\n", "no '-- +migrate Up' marker"},
      // sql-migrate reads the first line after a byte-order mark as SQL, and skips the section.
      {"\xEF\xBB\xBF-- +migrate Up\nSELECT 1;\n", "line 1: a byte-order mark comes before"},
      {"-- +migrate Up\n-- +migrate StatementBegin\nSELECT 1;\n-- +migrate Down\nSELECT 2;\n",
       "line 2: '-- +migrate StatementBegin' has no '-- +migrate StatementEnd'"},
      {"SELECT 0;\n-- +migrate Up\nSELECT 1;\n", "line 1: only comments may come before"}};
  for (const auto& [text, reason] : cases) {
    try {
      parse_sql_migration(kName, text);
      ADD_FAILURE() << "read: " << text;
    } catch (const MigrationInvalidFormatError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
  }
}

TEST(SqlFileTest, TransactionOption) {
  EXPECT_EQ(parse_sql_migration(kName,
                                "-- migrate:up transaction:false\nCREATE INDEX "
                                "CONCURRENTLY i ON t (c);")
                .options.transactional,
            false);
  EXPECT_EQ(parse_sql_migration(kName, "--migrate:up   transaction:true\nSELECT 1;")
                .options.transactional,
            true);
}

// The report that started it: dbmate's options on each marker, for that direction alone. A down
// marker without options still takes the up's, as every such file always has.
TEST(SqlFileTest, EachMarkersOptionsApplyToItsDirection) {
  const Migration migration = parse_sql_migration(
      kName,
      "-- migrate:up statement_timeout:5min\nCREATE INDEX t_c ON t (c);\n\n"
      "-- migrate:down transaction:false\nDROP INDEX CONCURRENTLY IF EXISTS t_c;\n");
  const RunOptions& up = migration.options_for(Direction::kUp);
  EXPECT_EQ(up.transactional, std::nullopt);
  EXPECT_EQ(up.statement_timeout, std::chrono::minutes(5));
  const RunOptions& down = migration.options_for(Direction::kDown);
  EXPECT_EQ(down.transactional, false);
  EXPECT_EQ(down.statement_timeout, std::nullopt);  // not the up's: the down's options replace
  EXPECT_EQ(down.lock_timeout, std::nullopt);

  const Migration inherits =
      parse_sql_migration(kName,
                          "-- migrate:up transaction:false\nCREATE INDEX CONCURRENTLY i ON t (c);\n"
                          "-- migrate:down\nDROP INDEX CONCURRENTLY IF EXISTS i;\n");
  EXPECT_FALSE(inherits.down_options.has_value());
  EXPECT_EQ(inherits.options_for(Direction::kDown).transactional, false);
}

// The timeouts are SET LOCAL in the migration's transaction: without one they would not apply,
// so the file is refused on the marker's line, saying what to write instead. Off says what
// happens anyway, and is accepted.
TEST(SqlFileTest, RefusesTimeoutsOnATransactionFalseMarker) {
  const auto [reason, line] = format_error(
      "-- migrate:up transaction:false statement_timeout:1s lock_timeout:1s\nSELECT 1;");
  EXPECT_EQ(line, 1);
  EXPECT_NE(reason.find("'lock_timeout:1s' cannot apply with 'transaction:false'"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("SET lock_timeout = '1s';"), std::string::npos) << reason;
  // Whatever the order of the options on the marker.
  EXPECT_NE(format_error("-- migrate:up statement_timeout:5min transaction:false\nSELECT 1;")
                .first.find("SET statement_timeout = '5min';"),
            std::string::npos);
  EXPECT_EQ(format_error("-- migrate:up\nA;\n-- migrate:down transaction:false lock_timeout:2s\nB;")
                .second,
            3);
  EXPECT_EQ(parse_sql_migration(kName, "-- migrate:up transaction:false lock_timeout:off\nA;")
                .options.lock_timeout,
            std::chrono::milliseconds(0));
  // The up's timeouts do not reach a transaction:false down: it has options of its own.
  EXPECT_EQ(parse_sql_migration(kName,
                                "-- migrate:up lock_timeout:2s\nA;\n"
                                "-- migrate:down transaction:false\nB;")
                .options_for(Direction::kDown)
                .lock_timeout,
            std::nullopt);
}

TEST(SqlFileTest, ReadsDescriptionAndAllowsCommentsBeforeTheFirstMarker) {
  const Migration migration = parse_sql_migration(
      kName, "\n-- Author: ops\n-- description:  users table \n\n-- migrate:up\nSELECT 1;");
  EXPECT_EQ(migration.description, "users table");
}

TEST(SqlFileTest, HandlesCrlfAndBom) {
  const Migration migration = parse_sql_migration(
      kName, "\xEF\xBB\xBF-- migrate:up\r\nSELECT 1;\r\n-- migrate:down\r\nSELECT 2;\r\n");
  EXPECT_EQ(script(migration.up), "SELECT 1;");
  EXPECT_EQ(script(*migration.down), "SELECT 2;\n");
}

TEST(SqlFileTest, RejectsMalformedFiles) {
  struct Case {
    std::string text;
    int line;
    std::string reason_part;
  };
  for (const char* scaffold :
       {"-- migrate:up\n\n  \n-- migrate:down\nSELECT 1;", "-- migrate:up\n"}) {
    EXPECT_TRUE(parse_sql_migration(kName, scaffold).up_empty) << scaffold;
  }
  EXPECT_FALSE(parse_sql_migration(kName, "-- migrate:up\nSELECT 1;").up_empty);
  const Case cases[] = {
      {"", 1, "no '-- migrate:up'"},
      {"SELECT 1;\n", 1, "only comments"},
      {"-- c\nDROP TABLE x;\n-- migrate:up\nSELECT 1;", 2, "only comments"},
      {"-- migrate:up\nSELECT 1;\n-- migrate:up\nSELECT 2;", 3, "duplicate"},
      {"-- migrate:up\nA;\n-- migrate:down\nB;\n-- migrate:down\nC;", 5, "duplicate"},
      {"-- migrate:down\nB;\n-- migrate:up\nA;", 1, "comes before"},
      {"-- migrate:up transaction:maybe\nA;", 1,
       "invalid value 'maybe' for option 'transaction': it takes true or false"},
      {"-- migrate:up transaction:\nA;", 1, "invalid value '' for option 'transaction'"},
      {"-- migrate:up notransaction\nA;", 1, "unknown option"},
      {"-- migrate:up\nA;\n-- migrate:down transaction:maybe\nB;", 3, "invalid value 'maybe'"},
      {"-- migrate:up\nA;\n-- migrate:down lock_timeout:soon\nB;", 3, "needs a duration"},
      {"-- migrate:upp\nA;", 1, "unknown marker"},
      {"-- migrate:up\nA;\n-- migrate:sideways\nB;", 3, "unknown marker"},
      {std::string("-- migrate:up\nSELECT 1;\nSELECT\0 2;", 34), 3, "a NUL byte at column 7"},
      {"-- migrate:up\nSELECT 'caf\xE9';", 2, "invalid UTF-8 at column 12"},
      {"-- description: caf\xC3\n-- migrate:up\nSELECT 1;", 1, "invalid UTF-8"},
  };
  for (const Case& c : cases) {
    const auto [reason, line] = format_error(c.text);
    EXPECT_EQ(line, c.line) << c.text;
    EXPECT_NE(reason.find(c.reason_part), std::string::npos) << c.text << " → " << reason;
  }
}

}  // namespace
}  // namespace migronaut

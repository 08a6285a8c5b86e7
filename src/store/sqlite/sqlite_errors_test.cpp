#include "store/sqlite/sqlite_errors.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>

#include "migronaut/errors.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using DbHandle = std::unique_ptr<sqlite3, decltype(&sqlite3_close_v2)>;

DbHandle open(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  return DbHandle(db, &sqlite3_close_v2);
}

// Every reader of the database (the changelog's, other tools' tables' for import) reports a
// file it may not write as a permission problem (exit 39), not as an unreachable database.
TEST(SqliteErrorsTest, AWriteToAReadOnlyDatabaseIsPermissionDenied) {
  testing::TempDir dir("migronaut-sqlite-errors");
  const std::string path = dir.file("app.db").string();
  open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  DbHandle db = open(path, SQLITE_OPEN_READONLY);
  const int rc = sqlite3_exec(db.get(), "CREATE TABLE t (id INTEGER)", nullptr, nullptr, nullptr);
  ASSERT_EQ(rc & 0xff, SQLITE_READONLY);
  try {
    throw_sqlite_error(db.get(), sqlite3_extended_errcode(db.get()), "write");
    FAIL() << "no error thrown";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kPermissionDenied) << error.what();
  }
}

TEST(SqliteErrorsTest, ANonDatabaseFileIsAConnectionFailure) {
  testing::TempDir dir("migronaut-sqlite-errors");
  dir.write("app.db", "not a database, just text that is long enough to have a header");
  DbHandle db = open(dir.file("app.db").string(), SQLITE_OPEN_READONLY);
  const int rc = sqlite3_exec(db.get(), "SELECT * FROM sqlite_master", nullptr, nullptr, nullptr);
  ASSERT_EQ(rc & 0xff, SQLITE_NOTADB);
  EXPECT_THROW(throw_sqlite_error(db.get(), rc, "read"), ConnectionFailedError);
}

}  // namespace
}  // namespace migronaut

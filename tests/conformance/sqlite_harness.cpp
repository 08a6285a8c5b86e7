// The SQLite store under the conformance suite: a fresh database file in a new temp dir for
// every test.
#include <sqlite3.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "conformance/store_harness.hpp"
#include "support/temp_dir.hpp"

namespace migronaut::testing {
namespace {

class SqliteHarness final : public StoreHarness {
 public:
  void reset() override {
    dir_.reset();
    dir_.emplace("migronaut-conformance");
  }

  std::unique_ptr<Store> open() override { return open_store(config()); }

  Script create_objects_script(const std::vector<std::string>& names) override {
    Script script;
    for (const std::string& name : names) {
      script.text += "CREATE TABLE \"" + name + "\" (id INTEGER PRIMARY KEY);\n";
    }
    return script;
  }

  Script failing_script() override { return {"SELECT * FROM conformance_no_such_table;"}; }

  std::optional<Script> foreign_history_script(ForeignTool tool) override {
    switch (tool) {
      case ForeignTool::kKnex:  // knex's sqlite3 client stores dates as ms
        return Script{
            "CREATE TABLE knex_migrations (id integer not null primary key autoincrement,"
            " name varchar(255), batch integer, migration_time datetime);"
            "INSERT INTO knex_migrations (name, batch, migration_time) VALUES"
            " ('20260101120000_a.js', 1, 1767268800000), ('20260102120000_b.js', 2,"
            " 1767355200000);"};
      case ForeignTool::kGolangMigrate:
        return Script{
            "CREATE TABLE schema_migrations (version uint64,dirty bool);"
            "CREATE UNIQUE INDEX version_unique ON schema_migrations (version);"
            "INSERT INTO schema_migrations VALUES (2, 1);"};
      default:
        return std::nullopt;
    }
  }

  bool object_exists(const std::string& name) override {
    sqlite3* db = nullptr;
    // Read-only: looking must not create the file.
    if (sqlite3_open_v2(database().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      sqlite3_close(db);
      return false;
    }
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = ?", -1, &stmt, nullptr);
    sqlite3_bind_text(stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      throw std::runtime_error("object_exists: " + std::string(sqlite3_errstr(rc)));
    }
    return rc == SQLITE_ROW;
  }

 private:
  std::string database() const { return dir_->file("conformance.db").string(); }

  Config config() const {
    Config config;
    config.uri = "sqlite:" + database();
    return config;
  }

  std::optional<TempDir> dir_;
};

const bool registered = register_harness(
    {"sqlite", [] { return std::unique_ptr<StoreHarness>(std::make_unique<SqliteHarness>()); }});

}  // namespace
}  // namespace migronaut::testing

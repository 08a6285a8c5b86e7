// The conformance suite's PostgreSQL backend: the process's throwaway cluster (PgCluster), with
// an empty schema for every test.
#include "conformance/store_harness.hpp"
#include "support/pg_cluster.hpp"

namespace migronaut::testing {
namespace {

class PostgresHarness : public StoreHarness {
 public:
  void reset() override {
    config_.uri = PgCluster::shared().fresh_schema_uri("postgres", "conformance");
  }

  std::unique_ptr<Store> open() override { return open_store(config_); }

  Script create_objects_script(const std::vector<std::string>& names) override {
    Script script;
    for (const std::string& name : names) {
      script.text += "CREATE TABLE \"" + name + "\" (id bigint PRIMARY KEY);\n";
    }
    return script;
  }

  Script failing_script() override {
    return Script{"SELECT * FROM migronaut_conformance_missing_table;"};
  }

  std::optional<Script> foreign_history_script(ForeignTool tool) override {
    switch (tool) {
      case ForeignTool::kKnex:
        return Script{
            "CREATE TABLE knex_migrations (id serial primary key, name varchar(255),"
            " batch integer, migration_time timestamptz);"
            "INSERT INTO knex_migrations (name, batch, migration_time) VALUES"
            " ('20260101120000_a.js', 1, '2026-01-01 12:00:00+00'),"
            " ('20260102120000_b.js', 2, '2026-01-02 12:00:00+00');"};
      case ForeignTool::kGolangMigrate:
        return Script{
            "CREATE TABLE IF NOT EXISTS schema_migrations (version bigint not null primary key,"
            " dirty boolean not null);"
            "INSERT INTO schema_migrations VALUES (2, true);"};
      default:
        return std::nullopt;
    }
  }

  bool object_exists(const std::string& name) override {
    return pg_query_value(config_.uri, "SELECT to_regclass('\"" + name + "\"')").has_value();
  }

 private:
  Config config_;
};

const bool registered =
    register_harness({"postgres", [] { return std::make_unique<PostgresHarness>(); }});

}  // namespace
}  // namespace migronaut::testing

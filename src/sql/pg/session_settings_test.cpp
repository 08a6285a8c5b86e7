#include "sql/pg/session_settings.hpp"

#include <gtest/gtest.h>

#include <string>

namespace migronaut {
namespace {

std::vector<std::string> settings_of(const std::string& script) {
  const std::vector<PgStatement> statements = parse_pg_script(script);
  std::vector<std::string> found;
  for (const PgStatement* statement : session_settings(statements)) {
    found.emplace_back(statement->text(script));
  }
  return found;
}

TEST(SessionSettingsTest, FindsWhatOutlivesItsTransaction) {
  EXPECT_EQ(settings_of("SET statement_timeout = '1s';\nCREATE INDEX CONCURRENTLY i ON t (a);\n"
                        "RESET statement_timeout;"),
            (std::vector<std::string>{"SET statement_timeout = '1s'", "RESET statement_timeout"}));
  for (const char* setting :
       {"SET search_path TO app", "SET SESSION lock_timeout = '5s'", "SET ROLE migrator",
        "SET SESSION AUTHORIZATION migrator", "RESET ALL", "SET TIME ZONE 'UTC'",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"}) {
    EXPECT_EQ(settings_of(std::string("SELECT 1; ") + setting + ";"),
              std::vector<std::string>{setting})
        << setting;
  }
}

TEST(SessionSettingsTest, LeavesWhatEndsWithItsTransaction) {
  EXPECT_TRUE(settings_of("SET LOCAL statement_timeout = '1s'; SET TRANSACTION ISOLATION LEVEL "
                          "SERIALIZABLE; SELECT set_config('x.y', '1', true); CREATE TABLE t (a "
                          "int);")
                  .empty());
  EXPECT_TRUE(settings_of("SET search_path TO (").empty());  // does not parse: the server's
}

}  // namespace
}  // namespace migronaut

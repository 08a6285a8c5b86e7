#include "source/json_file.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

using nlohmann::json;

constexpr std::string_view kName = "20260101120000-users.json";

json steps_of(const Work& work) { return json::parse(std::get<Script>(work).text); }

TEST(JsonFileTest, ParsesEveryField) {
  const Migration migration = parse_json_migration(kName, R"({
    "description": "users: unique email",
    "useTransaction": false,
    "timeoutMs": 60000,
    "up": [ { "createIndexes": "users",
              "indexes": [ { "key": { "email": 1 }, "name": "email_1", "unique": true } ] },
            { "insert": "audit", "documents": [ { "at": { "$date": "2026-01-01T00:00:00Z" } } ] } ],
    "down": [ { "dropIndexes": "users", "index": "email_1" } ] })");
  EXPECT_EQ(migration.name, kName);
  EXPECT_EQ(migration.description, "users: unique email");
  EXPECT_EQ(migration.options.transactional, false);
  EXPECT_EQ(migration.timeout, std::chrono::milliseconds(60000));
  const json up = steps_of(migration.up);
  ASSERT_EQ(up.size(), 2u);
  EXPECT_EQ(up[0]["createIndexes"], "users");
  EXPECT_EQ(up[1]["documents"][0]["at"]["$date"], "2026-01-01T00:00:00Z");
  ASSERT_TRUE(migration.down.has_value());
  EXPECT_EQ(steps_of(*migration.down),
            json::parse(R"([{"dropIndexes":"users","index":"email_1"}])"));
}

TEST(JsonFileTest, ScriptIsTheDumpedStepArray) {
  const Migration migration = parse_json_migration(kName, R"({"up": [ {"ping": 1} ]})");
  EXPECT_EQ(std::get<Script>(migration.up).text, R"([{"ping":1}])");
}

TEST(JsonFileTest, OptionalFieldsStayUnset) {
  const Migration migration = parse_json_migration(kName, R"({"up": [{"ping": 1}]})");
  EXPECT_EQ(migration.description, "");
  EXPECT_FALSE(migration.options.transactional.has_value());
  EXPECT_FALSE(migration.timeout.has_value());
  EXPECT_FALSE(migration.down.has_value());
}

TEST(JsonFileTest, EmptyDownIsIrreversible) {
  EXPECT_FALSE(parse_json_migration(kName, R"({"up": [{"ping": 1}], "down": []})").down);
}

TEST(JsonFileTest, RejectsMalformedFiles) {
  for (const char* text : {
           "",
           "{",
           "[]",
           R"("up")",
           R"({})",
           R"({"up": {"ping": 1}})",
           R"({"up": [1]})",
           R"({"up": [{}]})",
           R"({"up": [[{"ping": 1}]]})",
           R"({"up": [{"ping": 1}], "down": {"ping": 1}})",
           R"({"up": [{"ping": 1}], "down": ["x"]})",
           R"({"up": [{"ping": 1}], "description": 5})",
           R"({"up": [{"ping": 1}], "useTransaction": "false"})",
           R"({"up": [{"ping": 1}], "timeoutMs": 0})",
           R"({"up": [{"ping": 1}], "timeoutMs": -5})",
           R"({"up": [{"ping": 1}], "timeoutMs": 1.5})",
           R"({"up": [{"ping": 1}], "timeoutMs": "100"})",
           R"({"up": [{"ping": 1}], "timeoutMs": 2147483648})",
           R"({"up": [{"ping": 1}], "upp": []})",
       }) {
    try {
      parse_json_migration(kName, text);
      ADD_FAILURE() << "expected MigrationInvalidFormatError for " << text;
    } catch (const MigrationInvalidFormatError& error) {
      EXPECT_EQ(error.context()["file"], kName);
      EXPECT_FALSE(error.context()["reason"].get<std::string>().empty());
    }
  }
}

}  // namespace
}  // namespace migronaut

// docs/JSON.md promises one vocabulary for every command's --json document. This runs every
// command through the real binary and checks its document against the example the page gives:
// the same top-level keys, no undocumented key deeper down, the same types, times as ISO-8601
// UTC, and none of the old words (`file`, `duration`).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "process/sqlite_project.hpp"

namespace migronaut::testing {
namespace {

using nlohmann::json;

const Env kFastLock = {{"MIGRONAUT_LOCK_TTL", "2"}, {"MIGRONAUT_LOCK_POLL_INTERVAL_MS", "50"}};

// "### `status`" followed by a ```json block → {"status": example}; the errors section is "error".
std::map<std::string, json> documented_examples() {
  std::ifstream file(MIGRONAUT_JSON_DOC);
  std::map<std::string, json> examples;
  std::string line;
  std::string command;
  std::string block;
  bool in_block = false;
  static const std::regex kHeading("^### `([a-z-]+)`.*|^### Errors.*");
  while (std::getline(file, line)) {
    std::smatch match;
    if (!in_block && std::regex_match(line, match, kHeading)) {
      command = match[1].matched ? match[1].str() : "error";
    } else if (!in_block && line == "```json" && !command.empty()) {
      in_block = true;
      block.clear();
    } else if (in_block && line == "```") {
      in_block = false;
      examples[command] = json::parse(block);
      command.clear();
    } else if (in_block) {
      block += line + "\n";
    }
  }
  return examples;
}

bool is_iso_time(const json& value) {
  static const std::regex kIso(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)");
  return value.is_string() && std::regex_match(value.get<std::string>(), kIso);
}

bool same_type(const json& documented, const json& actual) {
  if (documented.is_number()) return actual.is_number();
  if (documented.is_null()) return actual.is_null() || actual.is_boolean();   // checksumOk
  if (documented.is_object()) return actual.is_object() || actual.is_null();  // holder
  return documented.type() == actual.type();
}

// Every key of `actual` is documented with the same type; `top` also requires every documented
// key. Returns the first mismatch, or "".
std::string shape_mismatch(const json& documented, const json& actual, const std::string& path,
                           bool top) {
  if (!same_type(documented, actual)) {
    return path + ": documented " + documented.dump() + ", got " + actual.dump();
  }
  if (path.ends_with("At") && !is_iso_time(actual)) return path + " is not ISO-8601 UTC";
  if (documented.is_array() && !documented.empty()) {
    for (std::size_t i = 0; i < actual.size(); ++i) {
      const std::string found = shape_mismatch(documented.front(), actual[i],
                                               path + "[" + std::to_string(i) + "]", false);
      if (!found.empty()) return found;
    }
  }
  if (!documented.is_object() || !actual.is_object()) return "";
  for (const auto& [key, value] : actual.items()) {
    if (key == "file" || key == "duration") return path + "." + key + " is the old vocabulary";
    if (!documented.contains(key)) return path + "." + key + " is not documented";
    // An error's context depends on the error: only its times are checked.
    if (key == "context") {
      for (const auto& [name, field] : value.items()) {
        if (name.ends_with("At") && !is_iso_time(field)) return path + ".context." + name;
      }
      continue;
    }
    const std::string found = shape_mismatch(documented[key], value, path + "." + key, false);
    if (!found.empty()) return found;
  }
  if (top) {
    for (const auto& [key, value] : documented.items()) {
      if (!actual.contains(key)) return path + "." + key + " is documented but missing";
    }
  }
  return "";
}

class JsonDocTest : public ::testing::Test {
 protected:
  // `migronaut --json args…`: its one document, checked against docs/JSON.md's `command`.
  json check(const std::string& command, const std::vector<std::string>& args, int exit_code = 0,
             const Env& env = {}) {
    std::vector<std::string> all = {"--json"};
    all.insert(all.end(), args.begin(), args.end());
    const ProcessResult result = project.run(all, env);
    EXPECT_EQ(result.exit_code, exit_code) << command << "\n" << result.out << result.err;
    json document;
    try {
      document = json::parse(result.out);
    } catch (const json::exception&) {
      ADD_FAILURE() << command << " printed no single JSON document: " << result.out;
      return json::object();
    }
    checked.insert(command);
    if (!examples.contains(command)) {
      ADD_FAILURE() << "docs/JSON.md has no example for " << command;
      return document;
    }
    const std::string found = shape_mismatch(examples.at(command), document, command, true);
    EXPECT_EQ(found, "") << document.dump(2);
    return document;
  }

  void hold_foreign_lock(std::int64_t age_ms) {
    project.open().exec(
        "INSERT INTO _migronaut_locks (id, locked_at, ttl_ms, owner, nonce, pid, host,"
        " executed_by, migration, step, total) VALUES ('migronaut_lock', " +
        std::string(kSqliteNowMs) + " - " + std::to_string(age_ms) +
        ", 60000, 'foreign-run', 'foreign-nonce', 4242, 'elsewhere', 'ops', '0002-b.sql', 1, 2)");
  }

  // A command run outside the project (no config, no .env): `migronaut --json args…` in `cwd`.
  json check_outside(const std::string& command, const std::vector<std::string>& args,
                     int exit_code, const std::filesystem::path& cwd) {
    std::vector<std::string> all = {migronaut_binary(), "--no-env", "--json"};
    all.insert(all.end(), args.begin(), args.end());
    const ProcessResult result = Process(all, {}, cwd).wait();
    EXPECT_EQ(result.exit_code, exit_code) << command << "\n" << result.out << result.err;
    const json document = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(document.is_discarded()) << command << ": " << result.out;
    const std::string found = shape_mismatch(examples.at(command), document, command, true);
    EXPECT_EQ(found, "") << document.dump(2);
    checked.insert(command);
    return document;
  }

  // import (from a dbmate history), lint and help, which need a database or folder of their own.
  void check_standalone() {
    TempDir dir;
    dir.write("migrations/20260101000000_a.sql", "-- migrate:up\nCREATE INDEX i ON t (c);\n");
    SqliteDb(dir.write("dbmate.db", ""))  // an empty file is an empty database
        .exec(
            "CREATE TABLE schema_migrations (version VARCHAR PRIMARY KEY);"
            "INSERT INTO schema_migrations VALUES ('20260101000000')");
    const std::string uri = "sqlite:" + (dir.path() / "dbmate.db").string();
    const json imported =
        check_outside("import", {"--uri", uri, "--dir", "migrations", "import", "--from", "dbmate"},
                      0, dir.path());
    EXPECT_FALSE(imported["imported"][0].contains("appliedAt")) << "dbmate keeps no time";
    const json linted = check_outside("lint", {"--dir", "migrations", "lint"}, 45, dir.path());
    EXPECT_EQ(
        linted["findings"][0]["path"],
        (std::filesystem::canonical(dir.path()) / "migrations/20260101000000_a.sql").string());
    EXPECT_EQ(check_outside("help", {"help", "baseline"}, 0, dir.path())["name"], "baseline");
    EXPECT_TRUE(check_outside("help", {"up", "--help"}, 0, dir.path())["help"]
                    .get<std::string>()
                    .starts_with("Apply pending migrations"));
    EXPECT_EQ(json::parse(Process({migronaut_binary(), "--json", "--version"}).wait().out)
                  .at("version")
                  .size(),
              1u);
  }

  std::map<std::string, json> examples = documented_examples();
  std::set<std::string> checked;
  SqliteProject project;
};

TEST_F(JsonDocTest, EveryCommandPrintsWhatTheDocumentShows) {
  ASSERT_GE(examples.size(), 13u) << "docs/JSON.md lost its examples";
  const std::vector<std::string> bare_init = {migronaut_binary(), "--no-env", "--json", "init"};
  const ProcessResult init = Process(bare_init, {}, project.cwd()).wait();
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string found =
      shape_mismatch(examples.at("init"), json::parse(init.out), "init", true);
  EXPECT_EQ(found, "");
  checked.insert("init");

  check("create", {"create", "a"});
  for (const auto& entry : std::filesystem::directory_iterator(project.migrations())) {
    std::filesystem::remove(entry.path());
  }
  project.write_migration("0001-a.sql",
                          "-- migrate:up\nCREATE TABLE a (id INTEGER);\n-- migrate:down\nDROP "
                          "TABLE a;\n");
  project.write_migration("0002-b.sql",
                          "-- migrate:up\nCREATE TABLE b (id INTEGER);\n-- migrate:down\nDROP "
                          "TABLE b;\n");
  check("dry-run", {"dry-run", "up"});
  check("list", {"list"});
  EXPECT_EQ(check("baseline", {"baseline", "--yes", "--to", "0001-a.sql"})["baselined"].size(), 1u);
  EXPECT_EQ(check("up", {"up"})["results"].size(), 1u);
  EXPECT_EQ(check("status", {"status"})["migrations"][1]["record"]["status"], "applied");
  // A revert reports the batch its migration was applied in: b went in batch 2, again in 3.
  const nlohmann::json redone = check("redo", {"redo"})["results"];
  ASSERT_EQ(redone.size(), 2u);
  EXPECT_EQ(redone[0]["batch"], 2);
  EXPECT_EQ(redone[1]["batch"], 3);
  const nlohmann::json reverted = check("down", {"down"})["results"];
  ASSERT_EQ(reverted.size(), 1u);
  EXPECT_EQ(reverted[0]["batch"], 3);
  check("error", {"wait", "--timeout", "200ms"}, 2, kFastLock);  // b is pending again
  ASSERT_EQ(project.run({"up"}).exit_code, 0);
  check("wait", {"wait"});

  hold_foreign_lock(0);
  EXPECT_EQ(check("lock", {"lock"})["holder"]["host"], "elsewhere");
  project.write_migration("0003-c.sql", "-- migrate:up\nCREATE TABLE c (id INTEGER);\n");
  EXPECT_EQ(check("error", {"up", "--no-wait"}, 3)["error"]["code"], "LOCK_ALREADY_HELD");
  project.open().exec("UPDATE _migronaut_locks SET locked_at = locked_at - 120000");
  EXPECT_EQ(check("unlock", {"unlock", "--yes"})["released"], true);
  EXPECT_EQ(check("lock", {"lock"})["holder"], nullptr);

  EXPECT_EQ(check("audit", {"audit"})["ok"], true);
  project.write_migration("0001-a.sql",
                          "-- migrate:up\nCREATE TABLE a (id INTEGER); -- edited\n-- migrate:down\n"
                          "DROP TABLE a;\n");
  EXPECT_EQ(check("audit", {"audit"}, 22)["ok"], false);
  EXPECT_EQ(check("repair", {"repair", "--yes"})["repaired"].size(), 1u);
  check_standalone();

  for (const auto& [command, example] : examples) {
    EXPECT_TRUE(checked.contains(command)) << command << " is documented but not checked";
  }
}

}  // namespace
}  // namespace migronaut::testing

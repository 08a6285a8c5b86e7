// What a database adopted from another tool shows, asserted alike for every peer.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "process/sqlite_project.hpp"

namespace migronaut::testing {

// `status --json` of `project`: nothing pending, and each of `count` migrations applied, its
// checksum the file's, recorded as imported from `origin` with a time.
inline void expect_adopted(const SqliteProject& project, std::size_t count,
                           const std::string& origin) {
  const ProcessResult status = project.run({"--json", "status"});
  ASSERT_EQ(status.exit_code, 0) << describe(status);
  const nlohmann::json rows = nlohmann::json::parse(status.out);
  EXPECT_EQ(rows["pending"], 0);
  ASSERT_EQ(rows["migrations"].size(), count);
  for (const auto& row : rows["migrations"]) {
    EXPECT_EQ(row["state"], "applied") << row.dump();
    EXPECT_EQ(row["checksumOk"], true) << row.dump();
    EXPECT_EQ(row["record"]["origin"], origin) << row.dump();
    EXPECT_FALSE(row["record"]["appliedAt"].get<std::string>().empty()) << row.dump();
  }
}

}  // namespace migronaut::testing

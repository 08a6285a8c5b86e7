// What the table-collision tests of every store run: a configured table name that an
// application's own table holds, set by variable, under each command that looks at that table.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace migronaut::testing {

// (variable naming the taken table, command): `up` creates both tables, `status` reads the
// changelog, `lock` the lock table.
inline const std::vector<std::pair<std::string, std::string>> kTableCollisionCases = {
    {"MIGRONAUT_COLLECTION", "up"},
    {"MIGRONAUT_COLLECTION", "status"},
    {"MIGRONAUT_LOCK_COLLECTION", "up"},
    {"MIGRONAUT_LOCK_COLLECTION", "lock"}};

}  // namespace migronaut::testing

// The schema a PostgreSQL test works in: its own, named after the running GoogleTest test.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "support/pg_cluster.hpp"

namespace migronaut::testing {

// `prefix` and the running test's name, as the server names the schema (PgCluster::schema_name).
inline std::string test_schema(std::string_view prefix) {
  return PgCluster::schema_name(std::string(prefix) +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
}

}  // namespace migronaut::testing

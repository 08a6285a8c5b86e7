// What a failed statement of a PostgreSQL migration outside a transaction leaves behind: each
// statement there commits on its own, so those before it stay done, and a failed CREATE INDEX
// CONCURRENTLY keeps its index, INVALID, which a second run's CREATE … IF NOT EXISTS would
// then take for done.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "sql/pg/pg_script.hpp"

namespace migronaut {

// Lines for the error's message saying so: how many statements ran before `failed`
// (`ran_before`) and stay applied, and the index to drop when `failed` is CREATE [UNIQUE] INDEX
// CONCURRENTLY. `context` gets "statementsApplied", and "invalidIndex" when the index is named.
std::string left_behind(const PgStatement& failed, std::size_t ran_before, nlohmann::json& context);

}  // namespace migronaut

// The parts of Store::execute() every backend runs the same way, so a store's own execute() is
// only its database's transaction and statements.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "store/store.hpp"

namespace migronaut {

// What a failure says of user code (a body, a hook) that threw something not a std::exception.
inline constexpr std::string_view kNotAnException =
    "it threw something that is not a std::exception";

// Calls the C++ body of `execution` (which must have a context). migronaut's own errors keep
// their type; anything else becomes MigrationExecutionFailedError naming what it said.
void run_body(const Execution& execution);

// A non-transactional execution: `run_work`, then — a statement of its own — the record, with
// the time the work took. Nothing rolls back: a failing body leaves no record at all.
void execute_untransacted(const Execution& execution, const std::function<void()>& run_work,
                          const std::function<void(const RecordWrite&)>& write_record);

// The record `execution` writes with its work, as the records a store writes: none or one.
inline std::span<const RecordWrite> records_of(const Execution& execution) {
  if (execution.record == nullptr) return {};
  return {execution.record, 1};
}

// Before each statement of an untransacted execution, `sent` of them sent: throws LockLostError
// when the run has lost its lock meanwhile (Execution::still_held), so that no more is sent.
void require_still_held(const std::function<bool()>& still_held, std::size_t sent);

// Runs `work` and returns how long it took, in ms (stores that time the work themselves).
std::int64_t timed_ms(const std::function<void()>& work);

// `name` as an SQL identifier: in double quotes, embedded quotes doubled.
std::string quote_identifier(std::string_view name);

}  // namespace migronaut

#include "store/execution.hpp"

#include <chrono>
#include <stdexcept>

#include "fmt/format.h"
#include "migronaut/errors.hpp"

namespace migronaut {

void run_body(const Execution& execution) {
  if (execution.context == nullptr) {
    throw std::logic_error("a C++ migration body needs an execution context");
  }
  try {
    std::get<MigrationBody> (*execution.work)(*execution.context);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw MigrationExecutionFailedError(e.what(), {{"error", e.what()}});
  } catch (...) {
    throw MigrationExecutionFailedError(std::string(kNotAnException), {{"error", kNotAnException}});
  }
}

std::int64_t timed_ms(const std::function<void()>& work) {
  const auto started = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               started)
      .count();
}

void require_still_held(const std::function<bool()>& still_held, std::size_t sent) {
  if (!still_held || still_held()) return;
  throw LockLostError(
      fmt::format("the lock was lost before statement {} of a migration outside a transaction: "
                  "{} ran, the rest were not sent",
                  sent + 1, sent),
      {{"reason", "lost between statements"}, {"statementsApplied", sent}});
}

void execute_untransacted(const Execution& execution, const std::function<void()>& run_work,
                          const std::function<void(const RecordWrite&)>& write_record) {
  const std::int64_t elapsed_ms = timed_ms(run_work);
  if (execution.record != nullptr) write_record(resolve_elapsed(*execution.record, elapsed_ms));
}

std::string quote_identifier(std::string_view name) {
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace migronaut

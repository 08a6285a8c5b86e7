#include "cli/run_output.hpp"

#include <map>

#include "fmt/format.h"

namespace migronaut::cli {

void report_results(Context& context, const std::vector<RunResult>& results) {
  Output& out = context.out();
  if (results.empty()) {
    out.success("Nothing to do");
  } else {
    std::map<std::string, int> counts;
    for (const RunResult& result : results) ++counts[result.status];
    std::string summary;
    for (const auto& [status, count] : counts) {
      summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", count, status);
    }
    out.success(summary);
  }
  if (out.json_mode()) {
    out.document({{"results", results}, {"stopRequested", context.stop().stop_requested()}});
  }
}

}  // namespace migronaut::cli

// `migronaut wait [--timeout ms]`: blocks until nothing is pending, taking no lock — for
// replicas that must not migrate but must not start before the migrating peer is done.
#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "core/lock_wait.hpp"
#include "fmt/format.h"
#include "util/clock.hpp"

namespace migronaut::cli {

Command add_wait(CLI::App& app) {
  auto* sub = app.add_subcommand("wait", "Block until no migration is pending (takes no lock)");
  auto timeout = std::make_shared<std::string>();
  sub->add_option("--timeout", *timeout, "Give up after this many ms (exit 2)");
  return {sub,
          [timeout](Context& context) {
            nlohmann::json extra = nlohmann::json::object();
            if (!timeout->empty()) extra["lockWaitTimeoutMs"] = flag_number(*timeout);
            const Config config = context.config(extra);
            const std::chrono::milliseconds budget(
                config.lock_wait_timeout_ms.value_or(std::numeric_limits<std::int32_t>::max()));
            const std::chrono::milliseconds base(config.lock_poll_interval_ms);
            Clock& clock = Clock::real();
            const auto started = clock.now();
            Migrator migrator(config, context.migrator_options());
            Output& out = context.out();
            std::vector<std::string> pending;
            for (int attempt = 1;; ++attempt) {
              pending.clear();
              for (const StatusRow& row : migrator.status()) {
                if (row.state != "applied" && row.state != "missing") pending.push_back(row.name);
              }
              const auto waited =
                  std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - started);
              if (pending.empty()) {
                out.clear_live();
                out.success("Nothing pending");
                if (out.json_mode()) {
                  out.document({{"pending", pending}, {"waitedMs", waited.count()}});
                }
                return 0;
              }
              const auto delay = lock_wait_backoff(base, attempt, budget, 0.5);
              if (waited + delay > budget) {
                throw PendingMigrationsError(
                    fmt::format("{} migration(s) still pending after {} ms", pending.size(),
                                waited.count()),
                    {{"pending", pending}, {"waitedMs", waited.count()}, {"timedOut", true}});
              }
              out.live(fmt::format("⏳ {} migration(s) pending — waited {}s", pending.size(),
                                   waited.count() / 1000));
              if (!clock.sleep_for(delay, context.stop())) {
                throw RunAbortedError("wait interrupted", {{"pending", pending}});
              }
            }
          },
          /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

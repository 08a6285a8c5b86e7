// `migronaut lock`: who holds the lock, read-only.
#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "core/lease.hpp"

namespace migronaut::cli {

Command add_lock(CLI::App& app) {
  auto* sub = app.add_subcommand("lock", "Show the lock holder");
  document(sub, "migronaut lock --json", "0 shown (held or free), 5 connection failed");
  return {sub, [](Context& context) {
            Migrator migrator(context.config(), context.migrator_options());
            const std::optional<LockInfo> holder = migrator.lock_info();
            Output& out = context.out();
            bool stale = false;
            if (!holder) {
              out.report("The lock is free");
            } else {
              const std::int64_t now = migrator.database_now_ms();
              const std::int64_t ttl_ms = context.config().lock_ttl_ms();
              out.report("Lock held by " + describe_holder(*holder, now));
              stale = lease_expired(*holder, now, ttl_ms);
              for (const std::string& warning : holder_warnings(*holder, now, ttl_ms)) {
                out.warn(warning);
              }
            }
            if (out.json_mode()) {
              out.document({{"held", holder.has_value()},
                            {"holder", holder ? nlohmann::json(*holder) : nlohmann::json()},
                            {"stale", stale}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

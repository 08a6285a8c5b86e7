// `migronaut lock`: who holds the lock, read-only.
#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"

namespace migronaut::cli {

Command add_lock(CLI::App& app) {
  auto* sub = app.add_subcommand("lock", "Show the lock holder");
  document(sub, "migronaut lock --json", "0 shown (held or free), 5 connection failed");
  return {sub, [](Context& context) {
            Migrator migrator(context.config(), context.migrator_options());
            const std::optional<LockInfo> holder = migrator.lock_info();
            Output& out = context.out();
            out.report(holder
                           ? "Lock held by " + describe_holder(*holder, migrator.database_now_ms())
                           : "The lock is free");
            if (out.json_mode()) {
              out.document({{"held", holder.has_value()},
                            {"holder", holder ? nlohmann::json(*holder) : nlohmann::json()}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

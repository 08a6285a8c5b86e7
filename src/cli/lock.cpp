// `migronaut lock`: who holds the lock, read-only.
#include "cli/cli.hpp"
#include "cli/format.hpp"

namespace migronaut::cli {

Command add_lock(CLI::App& app) {
  auto* sub = app.add_subcommand("lock", "Show the lock holder");
  return {sub, [](Context& context) {
            Migrator migrator(context.config(), context.migrator_options());
            const std::optional<LockInfo> holder = migrator.lock_info();
            Output& out = context.out();
            out.info(holder ? "Lock held by " + describe_holder(*holder) : "The lock is free");
            if (out.json_mode()) {
              out.document({{"held", holder.has_value()},
                            {"holder", holder ? nlohmann::json(*holder) : nlohmann::json()}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

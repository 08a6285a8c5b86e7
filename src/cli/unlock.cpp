// `migronaut unlock [--yes]`: force-releases the lock whoever holds it, after confirmation.
#include "cli/cli.hpp"
#include "cli/format.hpp"

namespace migronaut::cli {

Command add_unlock(CLI::App& app) {
  auto* sub = app.add_subcommand("unlock", "Force-release the lock");
  auto yes = std::make_shared<bool>(false);
  sub->add_flag("-y,--yes", *yes, "Do not ask for confirmation");
  return {sub, [yes](Context& context) {
            Migrator migrator(context.config(), context.migrator_options());
            Output& out = context.out();
            const std::optional<LockInfo> current = migrator.lock_info();
            if (current) out.info("Lock held by " + describe_holder(*current));
            if (!confirm(context, "Force-release the migration lock?", *yes)) {
              throw RunAbortedError("unlock cancelled");
            }
            const std::optional<LockInfo> removed = migrator.force_unlock();
            out.success(removed ? "Lock released" : "The lock was free");
            if (out.json_mode()) {
              out.document({{"released", removed.has_value()},
                            {"holder", removed ? nlohmann::json(*removed) : nlohmann::json()}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

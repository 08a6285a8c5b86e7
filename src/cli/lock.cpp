// `migronaut lock`: who holds the lock, read-only.
#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "core/lease.hpp"

namespace migronaut::cli {
namespace {

// What `lock --json` says of a holder beyond the row itself, judged in the database's clock.
struct LockVerdict {
  bool stale = false;      // a crashed holder's: the next run takes it
  bool untrusted = false;  // no live holder can have written it (lock_row_unusable)
};

LockVerdict show_holder(Output& out, const LockInfo& holder, std::int64_t now_ms,
                        std::int64_t ttl_ms) {
  out.report("Lock held by " + describe_holder(holder, now_ms));
  for (const std::string& warning : holder_warnings(holder, now_ms, ttl_ms)) out.warn(warning);
  return {.stale = lease_expired(holder, now_ms, ttl_ms),
          .untrusted = !lock_row_unusable(holder, now_ms, ttl_ms).empty()};
}

}  // namespace

Command add_lock(CLI::App& app) {
  auto* sub = app.add_subcommand("lock", "Show the lock holder");
  document(sub, "migronaut lock --json", "0 shown (held or free), 5 connection failed");
  return {sub, [](Context& context) {
            Migrator migrator(context.config(), context.migrator_options());
            const std::optional<LockInfo> holder = migrator.lock_info();
            Output& out = context.out();
            LockVerdict verdict;
            if (!holder) {
              out.report("The lock is free");
            } else {
              verdict = show_holder(out, *holder, migrator.database_now_ms(),
                                    context.config().lock_ttl_ms());
            }
            if (out.json_mode()) {
              out.document({{"held", holder.has_value()},
                            {"holder", holder ? nlohmann::json(*holder) : nlohmann::json()},
                            {"stale", verdict.stale},
                            {"untrusted", verdict.untrusted}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

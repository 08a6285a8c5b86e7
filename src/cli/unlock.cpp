// `migronaut unlock [--yes] [--force]`: releases a dead holder's lock after confirmation. A lock
// renewed within its TTL has a live holder: releasing it would let a second run in beside it, so
// that takes --force.
#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "core/lease.hpp"
#include "fmt/format.h"
#include "util/redact.hpp"

namespace migronaut::cli {

Command add_unlock(CLI::App& app) {
  auto* sub = app.add_subcommand("unlock", "Release a dead holder's lock");
  auto yes = std::make_shared<bool>(false);
  auto force = std::make_shared<bool>(false);
  sub->add_flag("-y,--yes", *yes, "Do not ask for confirmation");
  sub->add_flag("--force", *force, "Release it even though its holder renewed it within its TTL");
  document(
      sub, "migronaut unlock --yes",
      "0 released (or it was free), 3 its holder renewed it within its TTL (use --force), or "
      "it was renewed or taken since it was shown, "
      "5 connection failed, 6 no answer to the prompt (use --yes), 11 declined or cancelled by "
      "a signal");
  return {sub, [yes, force](Context& context) {
            Migrator migrator(context.config(), context.migrator_options());
            Output& out = context.out();
            const std::optional<LockInfo> current = migrator.lock_info();
            if (current) {
              const std::int64_t now = migrator.database_now_ms();
              const std::int64_t age = renewal_age_ms(*current, now);
              out.info("Lock held by " + describe_holder(*current, now));
              const std::int64_t ttl_ms = context.config().lock_ttl_ms();
              for (const std::string& warning : holder_warnings(*current, now, ttl_ms)) {
                out.warn(warning);
              }
              if (lock_row_unusable(*current, now, ttl_ms).empty() && age < current->ttl_ms &&
                  !*force) {
                throw LockAlreadyHeldError(
                    fmt::format("Refusing to unlock: {} renewed the lock {} s ago, within its "
                                "TTL of {} s. Wait for it (`migronaut up` waits, and takes a "
                                "dead holder's lock over once its TTL runs out), or pass --force "
                                "if you know it is gone",
                                single_line(sanitize_for_terminal(current->host)) + " pid " +
                                    std::to_string(current->pid),
                                age / 1000, current->ttl_ms / 1000),
                    {{"holder", *current}, {"renewedAgoMs", age}, {"option", "--force"}});
              }
            }
            // A free lock has nothing to confirm.
            if (current && !confirm(context, "Release the migration lock?", *yes)) {
              throw RunAbortedError("unlock cancelled");
            }
            // Only the record shown: a run that took the lock meanwhile, or a holder that renewed
            // it while the question was asked, is alive. --force releases a live holder's, and a
            // stamp that cannot be trusted (written by hand) is matched by its owner alone.
            const bool by_stamp = current && !*force &&
                                  lock_row_unusable(*current, migrator.database_now_ms(),
                                                    context.config().lock_ttl_ms())
                                      .empty();
            const std::optional<LockInfo> removed =
                current ? migrator.force_unlock(
                              current->run_id,
                              by_stamp ? std::optional(current->locked_at_ms) : std::nullopt)
                        : std::nullopt;
            const std::optional<LockInfo> now_held =
                removed || !current ? std::nullopt : migrator.lock_info();
            if (removed) {
              out.success("Lock released");
            } else if (now_held) {
              throw LockAlreadyHeldError(
                  fmt::format("Nothing released: {} since it was shown ({}); run `migronaut "
                              "lock` to see it",
                              now_held->run_id == current->run_id ? "its holder renewed the lock"
                                                                  : "another run took the lock",
                              describe_holder(*now_held, migrator.database_now_ms())),
                  {{"holder", *now_held}});
            } else if (current) {
              // On SQLite a holder's open transaction holds the release back until it commits.
              out.success("Nothing to release: its holder released the lock first");
            } else {
              out.success("The lock was free");
            }
            if (out.json_mode()) {
              out.document({{"released", removed.has_value()},
                            {"holder", removed ? nlohmann::json(*removed) : nlohmann::json()}});
            }
            return 0;
          }};
}

}  // namespace migronaut::cli

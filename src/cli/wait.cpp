// `migronaut wait [--timeout d]`: blocks until nothing is pending, taking no lock — for
// replicas that must not migrate but must not start before the migrating peer is done. It
// polls with jittered backoff, honours its timeout to the poll, and gives up at once when a
// pending migration is recorded failed and no run holds the lock to retry it, or when `up`
// would refuse to run (a half-reverted migration, a late arrival, an invalid script) and no run
// holds the lock to change that. Over another tool's unimported or dirty history it waits (an
// import, or the tool's own run, may be under way) and its timeout says why.
#include <optional>

#include "cli/cli.hpp"
#include "cli/duration.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "core/lease.hpp"
#include "core/lock_wait.hpp"
#include "fmt/format.h"
#include "store/store.hpp"
#include "util/clock.hpp"

namespace migronaut::cli {
namespace {

using std::chrono::milliseconds;

struct Pending {
  std::vector<std::string> names;
  std::vector<std::string> failed;
  std::vector<std::string> half_reverted;
  std::optional<UnimportedHistory> unimported;
  std::optional<Error> refusal;  // what `up` would refuse with
};

Pending pending_of(Migrator& migrator) {
  StatusReport report = migrator.status_report();
  Pending pending;
  pending.unimported = std::move(report.unimported);
  pending.refusal = std::move(report.up_refusal);
  for (const StatusRow& row : report.rows) {
    if (!needs_run(row.state)) continue;
    pending.names.push_back(row.name);
    if (row.state == MigrationState::kFailed) pending.failed.push_back(row.name);
    if (row.state == MigrationState::kHalfReverted) pending.half_reverted.push_back(row.name);
  }
  return pending;
}

// Over another tool's history (not imported yet, or dirty: the tool at work), an import or the
// tool's own run may be under way: that is waited for, as any run, and a failed migration with
// it (an import takes it over).
bool tool_at_work(const Pending& pending) {
  return pending.half_reverted.empty() &&
         (pending.unimported ||
          (pending.refusal && pending.refusal->code() == ErrorCode::kMigrationBlocked));
}

// What else `up` refuses no run applies (a half-reverted migration, which only a `down` mends; a
// late arrival with onOutOfOrder error; a script it refuses), nor does a failed migration go
// anywhere, unless a run holding the lock changes it (a `down` mending it, its mark not yet its
// own).
bool only_a_run_can_change(const Pending& pending) {
  return !tool_at_work(pending) && (pending.refusal || !pending.failed.empty());
}

// Whether a run holds the lock that may still change what is pending: one whose lease was
// renewed within its TTL. A stale lease's holder is gone (killed): nothing of its will retry or
// finish what it left.
bool a_live_run_holds_the_lock(Migrator& migrator, const Config& config) {
  const std::optional<LockInfo> holder = migrator.lock_info();
  return holder && !lease_expired(*holder, migrator.database_now_ms(), config.lock_ttl_ms());
}

constexpr milliseconds kSayAgainAfter{30'000};

}  // namespace

Command add_wait(CLI::App& app) {
  auto* sub = app.add_subcommand("wait", "Block until no migration is pending (takes no lock)");
  // Optional, not empty-when-absent: `--timeout ""` (an unset variable in a manifest) is refused,
  // never read as no timeout.
  auto timeout = std::make_shared<std::optional<std::string>>();
  sub->add_option("--timeout", *timeout, "Give up after this long (exit 2)")->type_name("DURATION");
  document(
      sub, "migronaut wait --timeout 10m",
      "0 nothing pending, 2 still pending when the timeout ran out, 5 the database stayed "
      "unreachable for the whole timeout, 7 a pending migration "
      "failed and no run is retrying it, 11 stopped by a signal, 24 the timeout ran out with "
      "another tool's history not imported (`up` refuses until `import`); at once, with no run "
      "holding the lock, what `up` would refuse with: 24 a migration half-reverted (until a "
      "`down` finishes it), 23 a late arrival (onOutOfOrder error), 20 an invalid script, 4 drift "
      "it refuses");
  return {
      sub,
      [timeout](Context& context) {
        nlohmann::json extra = nlohmann::json::object();
        if (*timeout) extra["lockWaitTimeoutMs"] = parse_duration_ms(**timeout, "--timeout");
        const Config config = context.config(extra);
        const milliseconds budget(
            config.lock_wait_timeout_ms.value_or(std::numeric_limits<std::int32_t>::max()));
        const milliseconds base(config.lock_poll_interval_ms);
        Clock& clock = Clock::real();
        const auto started = clock.now();
        MigratorOptions options = context.migrator_options();
        // Connecting counts against the budget too: a database that hangs is given up on by then.
        options.connect_by = started + budget;
        Migrator migrator(config, std::move(options));
        Output& out = context.out();
        bool second_look_due = false;
        std::string said;  // the last reason logged without a terminal, and when
        milliseconds said_at{0};
        for (int attempt = 1;;) {
          // A database not reachable yet is waited for too, inside the same budget.
          std::optional<ConnectionFailedError> unreachable;
          Pending pending;
          bool given_up = false;
          try {
            pending = pending_of(migrator);
            // The lock is read only when there is something to give up on (at the timeout, the
            // refusal is given below whoever holds it).
            given_up =
                only_a_run_can_change(pending) && !a_live_run_holds_the_lock(migrator, config);
          } catch (const ConnectionFailedError& error) {
            // A refused password, or a file that is no database: waiting mends neither, and a
            // wait's worth of failed logins may lock the role out.
            if (is_lasting(error)) throw;
            unreachable = error;
          }
          const auto waited = std::chrono::duration_cast<milliseconds>(clock.now() - started);
          if (unreachable && waited >= budget) throw *unreachable;
          const nlohmann::json detail = {{"pending", pending.names}, {"waitedMs", waited.count()}};
          if (!unreachable && pending.names.empty()) {
            out.clear_live();
            out.success("Nothing pending");
            if (out.json_mode()) out.document(detail);
            return 0;
          }
          // A run may have finished, and let the lock go, between the two reads: give up only
          // when a second look, straight away, says the same.
          if (given_up && !second_look_due) {
            second_look_due = true;
            continue;
          }
          second_look_due = false;
          if (given_up && pending.refusal) {
            out.clear_live();
            throw *pending.refusal;
          }
          if (given_up) {
            out.clear_live();
            nlohmann::json context_json = detail;
            context_json["failed"] = pending.failed;
            throw MigrationExecutionFailedError(
                fmt::format("{} failed and no run is retrying it: waiting cannot succeed",
                            fmt::join(pending.failed, ", ")),
                context_json);
          }
          if (waited >= budget) {
            // No run applies anything until someone imports (a Job's `import && up` may be
            // under way, so it is waited for like any run): the timeout says why.
            if (!unreachable && pending.refusal) {
              out.clear_live();
              throw *pending.refusal;
            }
            nlohmann::json context_json = detail;
            context_json["timedOut"] = true;
            throw PendingMigrationsError(fmt::format("{} migration(s) still pending after {} ms",
                                                     pending.names.size(), waited.count()),
                                         context_json);
          }
          // The last sleep takes only what is left, so the final poll lands on the deadline.
          const milliseconds delay = std::min(
              lock_wait_backoff(base, attempt, budget, lock_wait_random01()), budget - waited);
          const std::string reason =
              unreachable ? fmt::format("⏳ Waiting for the database ({})", unreachable->what())
                          : fmt::format("⏳ {} migration(s) pending{}", pending.names.size(),
                                        pending.unimported      ? ", another tool's history not "
                                                                  "imported yet"
                                        : tool_at_work(pending) ? ", another tool's history "
                                                                  "at work (dirty)"
                                                                : "");
          const std::string line = fmt::format("{} — waited {}s", reason, waited.count() / 1000);
          out.live(line);
          // Without a terminal (an init container's log) the live line is not drawn: a line
          // when the reason changes, and every half minute, says the wait is alive. (The
          // database's own words for being unreachable may change at every poll.)
          const std::string kind = unreachable ? "unreachable" : reason;
          if (!out.terminal() && (kind != said || waited - said_at >= kSayAgainAfter)) {
            out.info(line);
            said = kind;
            said_at = waited;
          }
          if (!clock.sleep_for(delay, context.stop())) {
            throw RunAbortedError("wait interrupted", {{"pending", pending.names}});
          }
          ++attempt;
        }
      },
      /*graceful_stop=*/true};
}

}  // namespace migronaut::cli

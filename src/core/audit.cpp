#include "core/audit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "core/lease.hpp"
#include "migronaut/errors.hpp"
#include "util/redact.hpp"

namespace migronaut {
namespace {

AuditCheck pass(std::string name, std::string detail) {
  return {std::move(name), "pass", std::move(detail)};
}
AuditCheck warn(std::string name, std::string detail) {
  return {std::move(name), "warn", std::move(detail)};
}
AuditCheck fail(std::string name, std::string detail) {
  return {std::move(name), "fail", std::move(detail)};
}

AuditCheck transactions(const StoreProbe& probe, const Config& config) {
  if (probe.transactions) return pass("transactions", "supported");
  if (config.use_transaction.value_or(false)) {
    return fail("transactions", "useTransaction is set, but " + probe.transactions_detail);
  }
  return warn("transactions", probe.transactions_detail);
}

AuditCheck indexes(const StoreProbe& probe) {
  if (!probe.changelog_exists) return warn("indexes", "no changelog yet: nothing was applied");
  if (!probe.missing_indexes.empty()) {
    return warn("indexes", fmt::format("missing on the changelog: {} (the next run creates them)",
                                       fmt::join(probe.missing_indexes, ", ")));
  }
  return pass("indexes", "present");
}

AuditCheck lock(Store& store, const Config& config) {
  try {
    const std::optional<LockInfo> holder = store.read_lock();
    if (!holder) return pass("lock", "free");
    const std::int64_t now_ms = store.now_ms();
    const std::string who = fmt::format("held by {} on {} (pid {}) for {} ms", holder->run_id,
                                        holder->host, holder->pid, now_ms - holder->locked_at_ms);
    // What `up` refuses (LOCK_RECORD_INVALID) fails here too.
    if (const std::string why = lock_row_unusable(*holder, now_ms, config.lock_ttl_ms());
        !why.empty()) {
      return fail("lock", who + ": unusable, " + why + " (`migronaut unlock` clears it)");
    }
    if (lease_expired(*holder, now_ms, config.lock_ttl_ms())) {
      return warn("lock", who + ": stale (a crashed holder?); the next run takes it");
    }
    return pass("lock", who);
  } catch (const Error& error) {
    return fail("lock", std::string("unusable: ") + redact(error.what()));
  }
}

using Selector = std::function<bool(const PlanEntry&)>;

std::vector<std::string> names_where(const Plan& plan, const Selector& selected) {
  std::vector<std::string> names;
  for (const PlanEntry& entry : plan.entries) {
    if (selected(entry)) names.emplace_back(entry.name);
  }
  return names;
}

// A check that passes when no entry is selected and otherwise gives `verdict`, naming them.
AuditCheck plan_check(const Plan& plan, const char* name, const Selector& selected,
                      AuditCheck (*verdict)(std::string, std::string), const char* problem) {
  const std::vector<std::string> names = names_where(plan, selected);
  if (names.empty()) return pass(name, "none");
  return verdict(name, fmt::format("{} {}: {}", names.size(), problem, fmt::join(names, ", ")));
}

bool in_state(const PlanEntry& entry, MigrationState state) { return entry.state == state; }

// Fails while `up` refuses over another tool's history, so a CI gate stops before the deploy;
// warns when the history table the configuration names is not there to guard a first run.
AuditCheck unimported_history(const UpOutlook& outlook) {
  if (outlook.unimported)
    return fail("import", unimported_history_error(*outlook.unimported).what());
  if (outlook.unreadable_history) return fail("import", *outlook.unreadable_history);
  if (outlook.missing_history) return warn("import", *outlook.missing_history);
  return pass("import", "no other tool's history left to import");
}

// Warns, as up does, of a file meant as a migration that up skips: `lint` is the gate that fails.
AuditCheck ignored_files(const UpOutlook& outlook) {
  if (outlook.ignored_files.empty()) return pass("ignored", "none");
  return warn("ignored", outlook.ignored_files);
}

// Fails where `up` would refuse to run, whatever the reason (an up section with no statement, a
// script it refuses, a batch counter run out...): the gate's last word is the deploy's.
AuditCheck up_verdict(const std::optional<Error>& refusal) {
  if (!refusal) return pass("up", "would run what is pending, if anything");
  return fail("up", std::string("`up` would refuse: ") + refusal->what());
}

}  // namespace

std::vector<AuditCheck> audit_database(Store& store, const Config& config, const Plan& plan,
                                       const UpOutlook& outlook) {
  std::vector<AuditCheck> checks;
  const StoreProbe probe = store.probe();
  checks.push_back(transactions(probe, config));
  checks.push_back(indexes(probe));
  checks.push_back(lock(store, config));
  checks.push_back(plan_check(
      plan, "checksums", [](const PlanEntry& e) { return e.drifted; }, fail,
      "changed since applied (drift; `repair` accepts a cosmetic change)"));
  checks.push_back(plan_check(
      plan, "missing", [](const PlanEntry& e) { return is_missing_file(e); }, fail,
      "applied, but the file is gone"));
  checks.push_back(plan_check(
      plan, "names", [](const PlanEntry& e) { return e.invalid_name; }, fail,
      "changelog records whose name is not a bare file name"));
  checks.push_back(plan_check(
      plan, "failed", [](const PlanEntry& e) { return in_state(e, MigrationState::kFailed); }, fail,
      "recorded failed"));
  checks.push_back(plan_check(
      plan, "interrupted",
      [](const PlanEntry& e) { return in_state(e, MigrationState::kInterrupted); }, fail,
      "interrupted mid-run (applying): check the database, then run up again"));
  checks.push_back(plan_check(
      plan, "applying", [](const PlanEntry& e) { return in_state(e, MigrationState::kApplying); },
      warn, "being applied now by the run that holds the lock"));
  checks.push_back(plan_check(
      plan, "half-reverted",
      [](const PlanEntry& e) { return in_state(e, MigrationState::kHalfReverted); }, fail,
      "interrupted mid-revert (reverting): check the database, then run down <name> again"));
  checks.push_back(plan_check(
      plan, "reverting", [](const PlanEntry& e) { return in_state(e, MigrationState::kReverting); },
      warn, "being reverted now by the run that holds the lock"));
  checks.push_back(plan_check(
      plan, "pending",
      [](const PlanEntry& e) {
        return in_state(e, MigrationState::kPending) || in_state(e, MigrationState::kReverted);
      },
      warn, "pending"));
  checks.push_back(plan_check(
      plan, "ordering", [](const PlanEntry& e) { return e.out_of_order; },
      config.on_out_of_order == OnOutOfOrder::kError ? fail : warn,
      "pending, sorting before the newest applied migration (merged late?)"));
  checks.push_back(plan_check(
      plan, "renames", [](const PlanEntry& e) { return !e.renamed_from.empty(); }, warn,
      "renamed: the next run records the new names"));
  checks.push_back(ignored_files(outlook));
  checks.push_back(unimported_history(outlook));
  checks.push_back(up_verdict(outlook.refusal));
  return checks;
}

AuditReport audit_report(std::vector<AuditCheck> checks) {
  AuditReport report;
  for (const AuditCheck& check : checks) {
    if (check.status == "fail") ++report.failed;
    if (check.status == "warn") ++report.warnings;
  }
  report.ok = report.failed == 0;
  report.checks = std::move(checks);
  return report;
}

}  // namespace migronaut

// The plan: the migrations on hand matched against the changelog, and the selections `up`,
// `down` and `redo` make from it. Pure functions of their inputs: no store, no clock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/config.hpp"
#include "migronaut/migrator.hpp"
#include "source/migration_set.hpp"

namespace migronaut {

struct PlanEntry {
  // The migration's name, or the record's when its migration is gone: the plan is read only while
  // both are there (status_row, which takes a record's fields, spends the plan).
  std::string_view name;
  const Migration* migration = nullptr;     // null for a record whose migration is gone
  const ChangelogRecord* record = nullptr;  // in Plan::records; null for a migration never run
  MigrationState state = MigrationState::kPending;
  bool drifted = false;       // applied, but the migration's checksum changed since
  bool out_of_order = false;  // pending, sorting before the newest applied migration
  bool invalid_name = false;  // a record name that is not a bare file name
  // The applied record's name when this migration is that one renamed (same version, same
  // checksum, the old file gone) and the changelog has not retired it yet. `record` is still
  // the former's when the changelog does not know the new name as applied.
  std::string renamed_from;
  // Every such former name (several after a chain of renames), for the next locked run to
  // retire; they point into Plan::records.
  std::vector<std::string_view> to_retire;

  bool pending() const { return needs_run(state); }
  // A `reverting` mark: a down outside a transaction began and did not end, so part of it may
  // have run. Not applied, yet only a down may run it again.
  bool half_reverted() const {
    return state == MigrationState::kHalfReverted || state == MigrationState::kReverting;
  }
};

struct Plan {
  Plan() = default;
  // Move-only: the entries point into `records`, whose storage a move keeps and a copy would not.
  Plan(Plan&&) = default;
  Plan& operator=(Plan&&) = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  std::vector<ChangelogRecord> records;  // the changelog as read
  std::vector<PlanEntry> entries;        // in execution order (source/migration_set.hpp RunOrder)
  std::int64_t highest_batch = 0;        // rolled-back numbers stay used
  // highest_batch + 1; throws ChangelogInvalidError when the changelog already holds the
  // largest batch number there is, rather than wrapping around.
  std::int64_t next_batch() const;
};

// `migrations` must outlive the plan. A repeatable migration is pending whenever its checksum
// differs from the one applied. An applied record whose file is gone but whose version and
// checksum a migration on hand carries is that migration's former name: the migration counts as
// applied (renamed_from) and the former record drops out.
Plan make_plan(const std::vector<Migration>& migrations, std::vector<ChangelogRecord> records);

// Whether some migration shows interrupted: an `applying` or `reverting` mark of a crashed run,
// or of the run that holds the lock now, which only the lock tells apart.
bool has_interrupted(const Plan& plan);
// The interrupted entries that `holder_run_id`, the run holding a live lock, marked: it is
// still applying or reverting them (a transaction:false migration runs outside a transaction,
// so its mark shows while it runs).
void mark_in_progress(Plan& plan, std::string_view holder_run_id);

// The status row of `entry`, a plan's entry for `migrations`. The row takes its migration's and
// its record's fields rather than copying them (a status of 10,000 migrations would copy every
// checksum and record): the plan is spent, and nothing may select from it or read it after.
StatusRow status_row(const PlanEntry& entry, std::vector<Migration>& migrations, Plan& plan);

struct UpSelection {
  std::vector<const PlanEntry*> targets;  // in execution order
  std::vector<const PlanEntry*> drifted;  // applied with a changed checksum: warned and skipped
  std::vector<const PlanEntry*> out_of_order;
};
// The entry a command-line target names: a migration's name, or its version ("20260101120000",
// "3", "1.2"). Throws MigrationFileNotFoundError naming `option` when nothing matches.
const PlanEntry& find_target(const Plan& plan, const std::string& target, const char* option);
// find_target() of a migration with a file: a record whose file is gone is refused, naming it.
const PlanEntry& require_migration(const Plan& plan, const std::string& target, const char* option);

// Throws ChecksumMismatchError naming the drifted ones among `entries` when `config.strict`,
// and, strict or not, for a file at the version of an applied migration whose file is gone but
// with other content: that migration renamed and edited, or a new one reusing its version —
// only its author can say (`repair` takes it as renamed).
void refuse_drift(const std::vector<const PlanEntry*>& entries, const Config& config);
// Refuses targets whose up section holds no statement (MigrationInvalidFormatError): a migration
// created but not written yet, which must not be run nor recorded as applied.
void refuse_empty(const std::vector<const PlanEntry*>& targets);

// `steps` caps the count. Throws MigrationFileNotFoundError (unknown file or `to`),
// ChecksumMismatchError (drift with `strict`), MigrationOutOfOrderError (late arrivals with
// onOutOfOrder: error; a single-file up is exempt), ConfigInvalidError (file and `to` together).
UpSelection select_up(const Plan& plan, const UpOptions& options, const Config& config);

// Throws what would refuse redo's up half of `target` once its down half has run, which a refusal
// then would leave reverted: drift (ChecksumMismatchError, as select_up()) and an up section
// without a statement. A half-reverted target is not refused: the down half finishes it.
void refuse_redo_up(const Plan& plan, const PlanEntry& target, const Config& config);

// Newest first. Checks every target before anything runs: NotAppliedError (a file not applied,
// a --batch with nothing applied in it), MigrationIrreversibleError (no down section, or a
// baseline record; one error names every such target), MigrationFileNotFoundError (the migration
// is gone), MigrationInvalidNameError (a tampered record name), ConfigInvalidError (conflicting
// options). `all` takes every applied and half-reverted migration but the repeatables without a
// down section, as `steps` and `to` leave them.
std::vector<const PlanEntry*> select_down(const Plan& plan, const DownOptions& options);
// For `down <file>` and `redo <file>`: a warning naming the newer applied migrations (applied
// after `target`, or sorting after it) that stay applied while `target` is reverted (one may
// rely on it), the first few of them; none when there is none (repeatables without a down
// section stay through any down, and are not named).
std::optional<std::string> newer_left_applied(const Plan& plan, const PlanEntry& target);
// An applied migration whose file is gone (not a tampered record name, which is its own finding).
bool is_missing_file(const PlanEntry& entry);
// For `up`: a warning naming the applied migrations whose file is not in `dir` (a checkout that
// lost them, a wrong folder), the first few of them; none when every applied one has its file.
std::optional<std::string> missing_files_warning(const Plan& plan, std::string_view dir);
// For `down --all`: a note naming the repeatable migrations without a down section, which stay
// applied; none when there is none.
std::optional<std::string> repeatables_left_applied(const Plan& plan);

// The runs that had failed each of `targets` when a run first looked (by name; a run id, none
// for a target no run had failed, empty for a failure recorded without one), for
// refuse_new_failures() under its lock. Targets `seen` holds already keep their first look: a
// waiter looks again at each attempt.
using SeenFailures = std::map<std::string, std::optional<std::string>, std::less<>>;
void note_failures(const std::vector<const PlanEntry*>& targets, SeenFailures& seen);
// Throws MigrationExecutionFailedError, naming the run and its error, for a target that another
// run failed since `seen` was taken (while this one waited for the lock): retried by every waiter
// of a fleet, a broken migration would run once more per instance, and a transaction:false one's
// side effects with it. A failure already on record when the run looked is retried, as asked.
void refuse_new_failures(const std::vector<const PlanEntry*>& targets, const SeenFailures& seen);

}  // namespace migronaut

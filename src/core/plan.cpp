#include "core/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>
#include <set>
#include <string_view>

#include "core/changelog.hpp"
#include "migronaut/errors.hpp"
#include "source/names.hpp"
#include "source/naming.hpp"
#include "source/version.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

MigrationState state_of(const ChangelogRecord& record) {
  switch (record.status) {
    case RecordStatus::kApplied:
      return MigrationState::kApplied;
    case RecordStatus::kReverted:
      return MigrationState::kReverted;
    case RecordStatus::kFailed:
      return MigrationState::kFailed;
    case RecordStatus::kApplying:
      return MigrationState::kInterrupted;
    case RecordStatus::kReverting:
      return MigrationState::kHalfReverted;
  }
  return MigrationState::kPending;
}

const PlanEntry* find_entry(const Plan& plan, const std::string& name) {
  auto it = std::find_if(plan.entries.begin(), plan.entries.end(),
                         [&](const PlanEntry& entry) { return entry.name == name; });
  return it != plan.entries.end() ? &*it : nullptr;
}

bool is_version(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

// Where `entry` sits in the execution order.
RunOrder order_of(const PlanEntry& entry) {
  return entry.migration != nullptr ? entry.migration->order() : record_order(entry.name);
}

// order_of(entry).repeatable, without copying a migration's version and name to tell it.
bool runs_repeatedly(const PlanEntry& entry) {
  return entry.migration != nullptr ? entry.migration->repeatable
                                    : record_order(entry.name).repeatable;
}

// "a.sql, b.sql", for a message.
std::string joined_names(const std::vector<const PlanEntry*>& entries) {
  std::string joined;
  for (const PlanEntry* entry : entries) {
    if (!joined.empty()) joined += ", ";
    joined += entry->name;
  }
  return joined;
}

// The first few of `entries`' names, then how many more (first_names()).
std::string first_names_of(const std::vector<const PlanEntry*>& entries) {
  std::vector<std::string_view> names;
  for (const PlanEntry* entry : entries) names.push_back(entry->name);
  return first_names(names);
}

nlohmann::json names_of(const std::vector<const PlanEntry*>& entries) {
  nlohmann::json names = nlohmann::json::array();
  for (const PlanEntry* entry : entries) names.push_back(entry->name);
  return names;
}

// Newest applied first: by appliedAt, then — for two applied within one clock tick — the later
// in run order (V1.10 after V1.2), so a revert undoes them in the reverse of how they ran.
bool newer(const PlanEntry* a, const PlanEntry* b) {
  const auto at = [](const PlanEntry* e) { return e->record->applied_at_ms.value_or(0); };
  if (at(a) != at(b)) return at(a) > at(b);
  return runs_before(order_of(*b), order_of(*a));
}

}  // namespace

const PlanEntry& require_migration(const Plan& plan, const std::string& target,
                                   const char* option) {
  const PlanEntry& entry = find_target(plan, target, option);
  if (entry.migration == nullptr) {
    throw MigrationFileNotFoundError("No migration named '" + target + "'",
                                     {{"name", target}, {"option", option}});
  }
  return entry;
}

namespace {

// A migration is its version, as in Flyway, dbmate and golang-migrate: a file at an applied
// record's version is that migration renamed, edited or not (an edit shows as drift). Had an
// edit made it a new migration, `up` would run it a second time.
bool same_migration(const PlanEntry& former, const PlanEntry& entry) {
  return entry.migration != nullptr && !entry.migration->repeatable &&
         records_version(former.name, entry.migration->version);
}

// Pairs each applied record whose file is gone with the migration it was renamed to, if any,
// the former names taken in name order; each is to retire. A migration takes up the first
// former's record when its own name has none or a retired one (a file renamed back, at the end
// of a chain of renames too). Returns the formers' positions, which leave the plan.
std::set<std::size_t> match_renames(std::vector<PlanEntry>& entries) {
  std::vector<std::size_t> formers;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].state == MigrationState::kMissing) formers.push_back(i);
  }
  std::sort(formers.begin(), formers.end(),
            [&](std::size_t a, std::size_t b) { return entries[a].name < entries[b].name; });
  std::set<std::size_t> renamed;
  for (std::size_t position : formers) {
    const PlanEntry& former = entries[position];
    for (PlanEntry& entry : entries) {
      if (!same_migration(former, entry)) continue;
      const bool takes_up = entry.record == nullptr || is_retired(*entry.record);
      if (!takes_up && entry.state != MigrationState::kApplied) continue;
      if (takes_up) {
        entry.state = MigrationState::kApplied;
        entry.record = former.record;
        entry.drifted = entry.migration->checksum != former.record->checksum;
      }
      if (entry.renamed_from.empty()) entry.renamed_from = former.name;
      entry.to_retire.push_back(former.name);
      renamed.insert(position);
      break;
    }
  }
  return renamed;
}

// The positions of `items` in name order. The stores return records in name order and files
// are listed in it, so this is nearly always one pass that finds them sorted.
template <typename T>
std::vector<std::size_t> name_order(const std::vector<T>& items) {
  std::vector<std::size_t> positions(items.size());
  std::iota(positions.begin(), positions.end(), std::size_t{0});
  const auto by_name = [&](std::size_t a, std::size_t b) { return items[a].name < items[b].name; };
  // Stable: of two records under one name (a MongoDB changelog without its unique index), the
  // one read last is the one that counts, as it always was.
  if (!std::is_sorted(positions.begin(), positions.end(), by_name)) {
    std::stable_sort(positions.begin(), positions.end(), by_name);
  }
  return positions;
}

// Every migration and every record, one entry per name, each record matched to its migration:
// the migrations' entries first, in their order, then those of records without a migration.
// Both sides are walked in name order side by side, which costs no hashing and no index.
std::vector<PlanEntry> match_records(const std::vector<Migration>& migrations,
                                     const std::vector<ChangelogRecord>& records,
                                     std::int64_t& highest_batch) {
  std::vector<PlanEntry> entries;
  entries.reserve(migrations.size() + records.size());
  for (const Migration& migration : migrations) {
    PlanEntry& entry = entries.emplace_back();
    entry.name = migration.name;
    entry.migration = &migration;
  }
  const std::vector<std::size_t> migrations_by_name = name_order(migrations);
  auto next = migrations_by_name.begin();
  const auto entry_named = [&](const std::string& name) -> PlanEntry& {
    while (next != migrations_by_name.end() && migrations[*next].name < name) ++next;
    if (next != migrations_by_name.end() && migrations[*next].name == name) return entries[*next];
    // Taken in name order, a record repeating a name comes right after the entry it made.
    if (entries.size() > migrations.size() && entries.back().name == name) return entries.back();
    PlanEntry& entry = entries.emplace_back();
    entry.name = name;
    return entry;
  };
  for (std::size_t position : name_order(records)) {
    const ChangelogRecord& record = records[position];
    highest_batch = std::max(highest_batch, record.batch);
    PlanEntry& entry = entry_named(record.name);
    entry.state = state_of(record);
    entry.invalid_name = !is_valid_record_name(record.name);
    if (entry.migration == nullptr && entry.state == MigrationState::kApplied) {
      entry.state = MigrationState::kMissing;
    }
    const bool changed = entry.migration != nullptr && entry.state == MigrationState::kApplied &&
                         record.checksum != entry.migration->checksum;
    // A repeatable migration that changed is due again; any other change is drift.
    if (changed && entry.migration->repeatable) entry.state = MigrationState::kPending;
    entry.drifted = changed && !entry.migration->repeatable;
    entry.record = &record;
  }
  return entries;
}

}  // namespace

std::int64_t Plan::next_batch() const {
  if (highest_batch == std::numeric_limits<std::int64_t>::max()) {
    throw ChangelogInvalidError(
        fmt::format("The changelog already holds batch {}, the largest there is; a new batch "
                    "would wrap around. Renumber the batches in the changelog table",
                    highest_batch),
        {{"batch", highest_batch}});
  }
  return highest_batch + 1;
}

Plan make_plan(const std::vector<Migration>& migrations, std::vector<ChangelogRecord> records) {
  Plan plan;
  plan.records = std::move(records);
  std::vector<PlanEntry> entries = match_records(migrations, plan.records, plan.highest_batch);
  const std::set<std::size_t> renamed = match_renames(entries);
  std::vector<std::size_t> kept;
  std::vector<RunOrder> orders;
  kept.reserve(entries.size());
  orders.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const PlanEntry& entry = entries[i];
    // A record of a migration that is gone and not applied plays no part in any plan, but for
    // a half-done down: what it left stays to be seen.
    if (entry.migration == nullptr && entry.state != MigrationState::kMissing &&
        !entry.half_reverted()) {
      continue;
    }
    if (renamed.contains(i)) continue;
    kept.push_back(i);
    orders.push_back(order_of(entry));
  }
  std::vector<std::size_t> order;  // the kept entries' positions, in execution order
  order.reserve(kept.size());
  for (std::size_t position : execution_order(orders)) order.push_back(kept[position]);
  plan.entries = take_in_order(std::move(entries), order);
  // Out of order: pending, yet before the newest applied versioned migration. A record whose
  // name is no migration's (tampered) sorts anywhere and says nothing of the order.
  std::size_t newest_applied = 0;
  for (std::size_t i = 0; i < plan.entries.size(); ++i) {
    const PlanEntry& entry = plan.entries[i];
    if (!entry.pending() && !runs_repeatedly(entry) && !entry.invalid_name) newest_applied = i + 1;
  }
  for (std::size_t i = 0; i < newest_applied; ++i) {
    const PlanEntry& entry = plan.entries[i];
    plan.entries[i].out_of_order = entry.pending() && !entry.half_reverted();
  }
  return plan;
}

namespace {

// `item`, which points into `owner`, as the owner's element it is.
template <typename T>
T* owned(const T* item, std::vector<T>& owner) {
  if (item == nullptr) return nullptr;
  assert(item >= owner.data() && item < owner.data() + owner.size());
  return &owner[static_cast<std::size_t>(item - owner.data())];
}

}  // namespace

StatusRow status_row(const PlanEntry& entry, std::vector<Migration>& migrations, Plan& plan) {
  Migration* migration = owned(entry.migration, migrations);
  ChangelogRecord* record = owned(entry.record, plan.records);
  StatusRow row;
  row.name = entry.name;  // before the name it views is taken
  row.state = entry.state;
  if (entry.record && entry.record->status == RecordStatus::kApplied && entry.migration) {
    row.checksum_ok = !entry.drifted;
  }
  row.out_of_order = entry.out_of_order;
  row.invalid_name = entry.invalid_name;
  if (migration != nullptr) {
    row.description = std::move(migration->description);
    row.reversible = migration->down.has_value();
    row.up_empty = migration->up_empty;
    row.checksum = std::move(migration->checksum);
    row.version = std::move(migration->version);
    row.repeatable = migration->repeatable;
  } else if (record != nullptr) {
    row.description = record->description;
  }
  row.renamed_from = entry.renamed_from;
  if (record != nullptr) row.record = std::move(*record);
  return row;
}

const PlanEntry& find_target(const Plan& plan, const std::string& target, const char* option) {
  if (const PlanEntry* entry = find_entry(plan, target)) return *entry;
  if (is_version(target)) {
    for (const PlanEntry& entry : plan.entries) {
      const RunOrder order = order_of(entry);
      if (!order.repeatable && compare_versions(order.version, target) == 0) return entry;
    }
  }
  throw MigrationFileNotFoundError("No migration named '" + target + "' nor with that version",
                                   {{"name", target}, {"option", option}});
}

void refuse_empty(const std::vector<const PlanEntry*>& targets) {
  for (const PlanEntry* entry : targets) {
    if (!entry->migration->up_empty) continue;
    throw MigrationInvalidFormatError(
        fmt::format("{} has no statement in its up section (comments at most): fill it in "
                    "before running up",
                    entry->name),
        {{"file", entry->name}, {"reason", "the up section holds no statement"}});
  }
}

namespace {

// Only a dead run's mark: a live run's (kReverting) is work in progress, waited for like any run,
// and gone by the time the waiter holds the lock. A target that is such a migration renamed (at
// the version of a half-reverted record whose file is gone) is that migration too.
void refuse_half_reverted(const Plan& plan, const std::vector<const PlanEntry*>& targets) {
  std::vector<std::string> half;
  for (const PlanEntry* entry : targets) {
    if (entry->state == MigrationState::kHalfReverted) half.emplace_back(entry->name);
  }
  for (const PlanEntry& former : plan.entries) {
    if (former.migration != nullptr || former.state != MigrationState::kHalfReverted) continue;
    if (std::any_of(targets.begin(), targets.end(),
                    [&](const PlanEntry* entry) { return same_migration(former, *entry); })) {
      half.emplace_back(former.name);
    }
  }
  if (!half.empty()) throw half_reverted_error(half);
}

}  // namespace

void refuse_drift(const std::vector<const PlanEntry*>& entries, const Config& config) {
  const auto taken_over = [](const PlanEntry* entry) { return !entry->renamed_from.empty(); };
  std::vector<const PlanEntry*> refused;
  std::copy_if(entries.begin(), entries.end(), std::back_inserter(refused),
               [&](const PlanEntry* entry) {
                 return entry->drifted && (config.strict || taken_over(entry));
               });
  if (refused.empty()) return;
  const auto reused = std::find_if(refused.begin(), refused.end(), taken_over);
  if (reused != refused.end()) {
    const PlanEntry& entry = **reused;
    throw ChecksumMismatchError(
        fmt::format("{} has the version of the applied {}, whose file is gone, but other content: "
                    "if it is that migration renamed and edited, `migronaut repair {}` accepts it; "
                    "if it is a new migration, give it a version of its own",
                    entry.name, entry.renamed_from, entry.name),
        {{"names", names_of(refused)}, {"renamedFrom", entry.renamed_from}});
  }
  throw ChecksumMismatchError(
      "Applied migrations changed since they were applied: " + joined_names(refused),
      {{"names", names_of(refused)}});
}

namespace {

std::vector<const PlanEntry*> drifted_of(const Plan& plan) {
  std::vector<const PlanEntry*> drifted;
  for (const PlanEntry& entry : plan.entries) {
    if (entry.drifted) drifted.push_back(&entry);
  }
  return drifted;
}

}  // namespace

UpSelection select_up(const Plan& plan, const UpOptions& options, const Config& config) {
  if (options.file && (options.to || options.steps)) {
    throw ConfigInvalidError("up takes a file, or --to and --steps, not both");
  }
  if (options.steps && *options.steps <= 0) {
    throw ConfigInvalidError("--steps must be a positive integer", {{"steps", *options.steps}});
  }
  UpSelection selection;
  selection.drifted = drifted_of(plan);
  refuse_drift(selection.drifted, config);

  if (options.file) {
    const PlanEntry& entry = require_migration(plan, *options.file, "file");
    if (entry.pending()) selection.targets.push_back(&entry);
    refuse_half_reverted(plan, selection.targets);
    refuse_empty(selection.targets);
    return selection;  // a single-file up is exempt from the ordering policy
  }
  const PlanEntry* last = options.to ? &require_migration(plan, *options.to, "to") : nullptr;
  for (const PlanEntry& entry : plan.entries) {
    if (options.steps && selection.targets.size() >= static_cast<std::size_t>(*options.steps)) {
      break;
    }
    if (entry.migration != nullptr && entry.pending()) {
      selection.targets.push_back(&entry);
      if (entry.out_of_order) selection.out_of_order.push_back(&entry);
    }
    if (&entry == last) break;
  }
  refuse_half_reverted(plan, selection.targets);
  if (!selection.out_of_order.empty() && config.on_out_of_order == OnOutOfOrder::kError) {
    throw MigrationOutOfOrderError(
        "Pending migrations sort before the newest applied one (merged late?): " +
            joined_names(selection.out_of_order),
        {{"names", names_of(selection.out_of_order)}});
  }
  refuse_empty(selection.targets);
  return selection;
}

void refuse_redo_up(const Plan& plan, const PlanEntry& target, const Config& config) {
  refuse_drift(drifted_of(plan), config);
  refuse_empty({&target});
}

namespace {

// A repeatable migration without a down section: a down that names no file leaves it applied
// (it is applied again whenever its file changes), as Flyway's undo leaves its R__ files. Not a
// half-reverted one, whose down section was removed since: it is not applied, and only its down
// may finish it, so the down is refused (irreversible) rather than leave it out without a word.
bool repeatable_without_down(const PlanEntry* entry) {
  return entry->migration != nullptr && entry->migration->repeatable && !entry->migration->down &&
         !entry->half_reverted();
}

// The last batch is the highest one recorded. A record without a batch (NULL or not positive:
// a row written by hand) may be the newest, and `down` would revert an older batch in its place.
void refuse_unbatched(const std::vector<const PlanEntry*>& applied) {
  std::vector<std::string_view> unbatched;
  for (const PlanEntry* entry : applied) {
    if (entry->record->batch <= 0) unbatched.push_back(entry->name);
  }
  if (unbatched.empty()) return;
  throw ChangelogInvalidError(
      fmt::format("The changelog records no batch for {} (NULL or not positive: written by "
                  "hand?), so `down` cannot tell which batch is the last: give the record a "
                  "batch, or name what to revert (down <name>, --steps, --to, --batch)",
                  fmt::join(unbatched, ", ")),
      {{"names", unbatched}});
}

// The last batch with something a down can revert: a repeatable without a down section stays
// applied, and each change to its file applies it again in the newest batch, where it would
// otherwise stop every bare `down`. A changelog of such repeatables alone has their last batch.
std::int64_t last_batch(const std::vector<const PlanEntry*>& applied) {
  std::int64_t revertible = 0;
  std::int64_t any = 0;
  for (const PlanEntry* entry : applied) {
    any = std::max(any, entry->record->batch);
    if (!repeatable_without_down(entry)) revertible = std::max(revertible, entry->record->batch);
  }
  return revertible > 0 ? revertible : any;
}

// What would revert the migration `name`, in its tool's words: golang-migrate's .down.sql file,
// Flyway's U undo file, else a down section.
std::string missing_down(std::string_view name) {
  const std::optional<FileName> file = parse_file_name(name, ".sql");
  if (file && file->naming == Naming::kFlyway && file->role == FileRole::kWhole) {
    return fmt::format("no undo file U{} with a statement in it", name.substr(1));
  }
  if (file && file->naming == Naming::kGolangMigrate) {
    const std::size_t up = name.rfind('.', name.size() - 5);  // the '.' of ".up.sql"
    return fmt::format("no {}.down.sql with a statement in it", name.substr(0, up));
  }
  return "no down section with a statement in it";
}

// Why `entry` can never be reverted, or "" when its down section can revert it.
std::string irreversible_reason(const PlanEntry& entry) {
  if (entry.record->origin == "baseline") {
    return fmt::format("'{}' was baselined, not applied: it cannot be reverted", entry.name);
  }
  if (entry.record->origin == "migrate-mongo") {
    return fmt::format("'{}' was imported from migrate-mongo: it cannot be reverted", entry.name);
  }
  if (entry.migration == nullptr || entry.migration->down) return "";
  if (entry.half_reverted()) {
    return fmt::format(
        "'{}' is half-reverted (its down stopped midway) and its file has no down section any "
        "more: put the down section back to finish the revert",
        entry.name);
  }
  return fmt::format("'{}' has {}", entry.name, missing_down(entry.name));
}

// Refuses targets no down can revert. Every irreversible one is named in one error, so a batch
// of several is not found out one refusal at a time; a record named out of the folder or a file
// that is gone is refused at once.
void check_revertible(const std::vector<const PlanEntry*>& targets) {
  std::vector<std::string> reasons;
  std::vector<std::string_view> names;
  for (const PlanEntry* entry : targets) {
    const nlohmann::json context = {{"name", entry->name}};
    if (entry->invalid_name) {
      throw MigrationInvalidNameError(
          fmt::format("The changelog record {} is not named by a bare file name: no file of the "
                      "migrations folder can revert it",
                      entry->name),
          context);
    }
    if (std::string reason = irreversible_reason(*entry); !reason.empty()) {
      reasons.push_back(std::move(reason));
      names.push_back(entry->name);
    } else if (entry->migration == nullptr) {
      throw MigrationFileNotFoundError(fmt::format("The migration '{}' is gone", entry->name),
                                       context);
    }
  }
  if (names.size() == 1) throw MigrationIrreversibleError(reasons.front(), {{"name", names[0]}});
  if (!names.empty()) {
    throw MigrationIrreversibleError(
        fmt::format("{} migrations cannot be reverted: {}", names.size(), fmt::join(reasons, "; ")),
        {{"names", names}});
  }
}

// Refuses conflicting selectors and counts out of range, before anything is read.
void check_down_options(const DownOptions& options) {
  const int selectors = options.file.has_value() + options.steps.has_value() +
                        options.batch.has_value() + options.to.has_value() + options.all;
  if (selectors > 1) {
    throw ConfigInvalidError("down takes one of a file, --steps, --batch, --to or --all");
  }
  if (options.steps && *options.steps <= 0) {
    throw ConfigInvalidError("--steps must be a positive integer", {{"steps", *options.steps}});
  }
  if (options.batch && *options.batch <= 0) {
    throw ConfigInvalidError("--batch must be a positive integer", {{"batch", *options.batch}});
  }
}

// Applied, or half-reverted: a down stopped midway is still the down's to finish.
bool down_may_take(const PlanEntry& entry) { return !entry.pending() || entry.half_reverted(); }

// What a down may take, newest first.
std::vector<const PlanEntry*> down_candidates(const Plan& plan) {
  std::vector<const PlanEntry*> applied;
  for (const PlanEntry& entry : plan.entries) {
    if (down_may_take(entry)) applied.push_back(&entry);
  }
  std::sort(applied.begin(), applied.end(), newer);
  return applied;
}

// The targets in `batch`, or in the last batch with something to revert when none is asked for.
// Its repeatables without a down section stay applied.
std::vector<const PlanEntry*> batch_targets(const std::vector<const PlanEntry*>& applied,
                                            std::optional<std::int64_t> asked) {
  std::int64_t batch = asked.value_or(0);
  if (!asked) {
    refuse_unbatched(applied);
    batch = last_batch(applied);
  }
  std::vector<const PlanEntry*> targets;
  std::vector<std::string_view> kept;
  for (const PlanEntry* entry : applied) {
    if (entry->record->batch != batch) continue;
    if (repeatable_without_down(entry)) {
      kept.push_back(entry->name);
    } else {
      targets.push_back(entry);
    }
  }
  // A batch asked for by number that holds nothing applied is no success of nothing to do.
  if (asked && targets.empty() && kept.empty()) {
    throw NotAppliedError(fmt::format("No applied migration is in batch {}", batch),
                          {{"batch", batch}});
  }
  if (targets.empty() && !kept.empty()) {
    throw MigrationIrreversibleError(
        fmt::format("Batch {} holds only repeatable migrations without a down section ({}): "
                    "nothing in it can be reverted",
                    batch, fmt::join(kept, ", ")),
        {{"batch", batch}});
  }
  return targets;
}

}  // namespace

std::vector<const PlanEntry*> select_down(const Plan& plan, const DownOptions& options) {
  check_down_options(options);
  std::vector<const PlanEntry*> applied = down_candidates(plan);
  std::vector<const PlanEntry*> targets;
  if (options.steps || options.to || options.all) std::erase_if(applied, repeatable_without_down);
  if (options.file) {
    const PlanEntry* entry = &find_target(plan, *options.file, "file");
    if (!down_may_take(*entry)) {
      throw NotAppliedError("'" + *options.file + "' is not applied", {{"name", *options.file}});
    }
    targets.push_back(entry);
  } else if (options.steps) {
    const auto count = std::min<std::size_t>(applied.size(), *options.steps);
    targets.assign(applied.begin(), applied.begin() + count);
  } else if (options.to) {
    const RunOrder keep = order_of(find_target(plan, *options.to, "to"));
    for (const PlanEntry* entry : applied) {
      if (runs_before(keep, order_of(*entry))) targets.push_back(entry);
    }
  } else if (options.all) {
    targets = std::move(applied);
  } else {
    targets = batch_targets(applied, options.batch);
  }

  check_revertible(targets);
  return targets;
}

std::optional<std::string> newer_left_applied(const Plan& plan, const PlanEntry& target) {
  // Newer by either measure: applied after it, or sorting after it (a migration redone, or
  // applied late, is the most recently applied, yet the later versions were built on it).
  std::vector<const PlanEntry*> kept = down_candidates(plan);
  std::erase_if(kept, [&](const PlanEntry* entry) {
    return entry == &target || repeatable_without_down(entry) ||
           !(newer(entry, &target) || runs_before(order_of(target), order_of(*entry)));
  });
  if (kept.empty()) return std::nullopt;
  std::reverse(kept.begin(), kept.end());  // the one applied right after the target first
  return fmt::format(
      "Reverting {} while {} newer applied migration{} applied: {}; a newer migration that "
      "relies on it may break",
      target.name, kept.size(), kept.size() == 1 ? " stays" : "s stay", first_names_of(kept));
}

bool is_missing_file(const PlanEntry& entry) {
  return entry.state == MigrationState::kMissing && !entry.invalid_name;
}

std::optional<std::string> missing_files_warning(const Plan& plan, std::string_view dir) {
  std::vector<const PlanEntry*> gone;
  for (const PlanEntry& entry : plan.entries) {
    if (is_missing_file(entry)) gone.push_back(&entry);
  }
  if (gone.empty()) return std::nullopt;
  const bool one = gone.size() == 1;
  return fmt::format(
      "Applied, but no file in {}: {} (restore {}, or check the migrations folder; `audit` fails "
      "on {})",
      dir, first_names_of(gone), one ? "it" : "them", one ? "it" : "them");
}

std::optional<std::string> repeatables_left_applied(const Plan& plan) {
  std::vector<const PlanEntry*> kept = down_candidates(plan);
  std::erase_if(kept, [](const PlanEntry* entry) { return !repeatable_without_down(entry); });
  if (kept.empty()) return std::nullopt;
  return fmt::format("{} stay{} applied: repeatable, with no down section to revert {}",
                     first_names_of(kept), kept.size() == 1 ? "s" : "",
                     kept.size() == 1 ? "it" : "them");
}

bool has_interrupted(const Plan& plan) {
  return std::any_of(plan.entries.begin(), plan.entries.end(), [](const PlanEntry& entry) {
    return entry.state == MigrationState::kInterrupted ||
           entry.state == MigrationState::kHalfReverted;
  });
}

void mark_in_progress(Plan& plan, std::string_view holder_run_id) {
  for (PlanEntry& entry : plan.entries) {
    if (entry.record == nullptr || entry.record->run_id != holder_run_id) continue;
    if (entry.state == MigrationState::kInterrupted) entry.state = MigrationState::kApplying;
    if (entry.state == MigrationState::kHalfReverted) {
      entry.state = MigrationState::kReverting;
    }
  }
}

void note_failures(const std::vector<const PlanEntry*>& targets, SeenFailures& seen) {
  for (const PlanEntry* entry : targets) {
    const bool failed = entry->state == MigrationState::kFailed;
    seen.try_emplace(std::string(entry->name),
                     failed ? std::optional(entry->record->run_id) : std::nullopt);
  }
}

void refuse_new_failures(const std::vector<const PlanEntry*>& targets, const SeenFailures& seen) {
  for (const PlanEntry* entry : targets) {
    if (entry->state != MigrationState::kFailed) continue;
    const ChangelogRecord& record = *entry->record;
    const auto looked = seen.find(entry->name);
    if (looked != seen.end() && looked->second == record.run_id) continue;
    throw MigrationExecutionFailedError(
        fmt::format("{} failed in {} while this run waited for the lock: {}\nFix it, then run "
                    "up again",
                    entry->name,
                    record.run_id.empty() ? "another run" : "run " + record.run_id.substr(0, 8),
                    record.error),
        {{"migration", std::string(entry->name)},
         {"runId", record.run_id},
         {"error", record.error}});
  }
}

}  // namespace migronaut

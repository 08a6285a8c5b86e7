#include "core/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "migronaut/errors.hpp"
#include "source/names.hpp"

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
  }
  return MigrationState::kPending;
}

std::string_view state_name(MigrationState state) {
  switch (state) {
    case MigrationState::kPending:
      return "pending";
    case MigrationState::kApplied:
      return "applied";
    case MigrationState::kFailed:
      return "failed";
    case MigrationState::kReverted:
      return "reverted";
    case MigrationState::kInterrupted:
      return "interrupted";
    case MigrationState::kMissing:
      return "missing";
  }
  return "pending";
}

bool is_valid_record_name(const std::string& name) {
  try {
    validate_record_name(name);
    return true;
  } catch (const MigrationInvalidNameError&) {
    return false;
  }
}

const PlanEntry* find_entry(const Plan& plan, const std::string& name) {
  auto it = std::lower_bound(
      plan.entries.begin(), plan.entries.end(), name,
      [](const PlanEntry& entry, const std::string& key) { return entry.name < key; });
  return it != plan.entries.end() && it->name == name ? &*it : nullptr;
}

// A target named on the command line must be a migration we have.
const PlanEntry& require_migration(const Plan& plan, const std::string& name, const char* what) {
  const PlanEntry* entry = find_entry(plan, name);
  if (entry == nullptr || entry->migration == nullptr) {
    throw MigrationFileNotFoundError("No migration named '" + name + "'",
                                     {{"name", name}, {"option", what}});
  }
  return *entry;
}

nlohmann::json names_of(const std::vector<const PlanEntry*>& entries) {
  nlohmann::json names = nlohmann::json::array();
  for (const PlanEntry* entry : entries) names.push_back(entry->name);
  return names;
}

// Newest applied first: by appliedAt, then by name (the original's revert order).
bool newer(const PlanEntry* a, const PlanEntry* b) {
  const auto at = [](const PlanEntry* e) { return e->record->applied_at_ms.value_or(0); };
  if (at(a) != at(b)) return at(a) > at(b);
  return a->name > b->name;
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
  std::map<std::string, PlanEntry> by_name;
  for (const Migration& migration : migrations) {
    PlanEntry& entry = by_name[migration.name];
    entry.name = migration.name;
    entry.migration = &migration;
  }
  for (ChangelogRecord& record : records) {
    plan.highest_batch = std::max(plan.highest_batch, record.batch);
    PlanEntry& entry = by_name[record.name];
    entry.name = record.name;
    entry.state = state_of(record);
    entry.invalid_name = !is_valid_record_name(record.name);
    if (entry.migration == nullptr && entry.state == MigrationState::kApplied) {
      entry.state = MigrationState::kMissing;
    }
    entry.drifted = entry.migration != nullptr && entry.state == MigrationState::kApplied &&
                    record.checksum != entry.migration->checksum;
    entry.record = std::move(record);
  }

  std::string newest_applied;
  for (auto& [name, entry] : by_name) {
    if (entry.state == MigrationState::kApplied || entry.state == MigrationState::kMissing) {
      newest_applied = std::max(newest_applied, name);
    }
  }
  for (auto& [name, entry] : by_name) {
    // A record of a migration that is gone and not applied plays no part in any plan.
    if (entry.migration == nullptr && entry.state != MigrationState::kMissing) continue;
    entry.out_of_order = entry.pending() && name < newest_applied;
    plan.entries.push_back(std::move(entry));
  }
  return plan;
}

StatusRow status_row(const PlanEntry& entry) {
  StatusRow row;
  row.name = entry.name;
  row.state = state_name(entry.state);
  if (entry.record && entry.record->status == RecordStatus::kApplied && entry.migration) {
    row.checksum_ok = !entry.drifted;
  }
  row.out_of_order = entry.out_of_order;
  row.invalid_name = entry.invalid_name;
  if (entry.migration != nullptr) {
    row.description = entry.migration->description;
    row.reversible = entry.migration->down.has_value();
    row.checksum = entry.migration->checksum;
  } else if (entry.record) {
    row.description = entry.record->description;
  }
  row.record = entry.record;
  return row;
}

UpSelection select_up(const Plan& plan, const UpOptions& options, const Config& config) {
  if (options.file && options.to) {
    throw ConfigInvalidError("up takes a file or --to, not both");
  }
  UpSelection selection;
  for (const PlanEntry& entry : plan.entries) {
    if (entry.drifted) selection.drifted.push_back(&entry);
  }
  if (config.strict && !selection.drifted.empty()) {
    throw ChecksumMismatchError("Applied migrations changed since they were applied",
                                {{"names", names_of(selection.drifted)}});
  }

  if (options.file) {
    const PlanEntry& entry = require_migration(plan, *options.file, "file");
    if (entry.pending()) selection.targets.push_back(&entry);
    return selection;  // a single-file up is exempt from the ordering policy
  }
  if (options.to) require_migration(plan, *options.to, "to");
  for (const PlanEntry& entry : plan.entries) {
    if (options.to && entry.name > *options.to) break;
    if (entry.migration == nullptr || !entry.pending()) continue;
    selection.targets.push_back(&entry);
    if (entry.out_of_order) selection.out_of_order.push_back(&entry);
  }
  if (!selection.out_of_order.empty() && config.on_out_of_order == OnOutOfOrder::kError) {
    throw MigrationOutOfOrderError(
        "Pending migrations sort before the newest applied one (merged late?)",
        {{"names", names_of(selection.out_of_order)}});
  }
  return selection;
}

std::vector<const PlanEntry*> select_down(const Plan& plan, const DownOptions& options) {
  const int selectors = options.file.has_value() + options.steps.has_value() +
                        options.batch.has_value() + options.to.has_value();
  if (selectors > 1) {
    throw ConfigInvalidError("down takes one of a file, --steps, --batch or --to");
  }
  if (options.steps && *options.steps <= 0) {
    throw ConfigInvalidError("--steps must be a positive integer", {{"steps", *options.steps}});
  }
  if (options.batch && *options.batch <= 0) {
    throw ConfigInvalidError("--batch must be a positive integer", {{"batch", *options.batch}});
  }

  std::vector<const PlanEntry*> applied;
  for (const PlanEntry& entry : plan.entries) {
    if (entry.state == MigrationState::kApplied || entry.state == MigrationState::kMissing) {
      applied.push_back(&entry);
    }
  }
  std::sort(applied.begin(), applied.end(), newer);

  std::vector<const PlanEntry*> targets;
  if (options.file) {
    const PlanEntry* entry = find_entry(plan, *options.file);
    if (entry == nullptr) {
      throw MigrationFileNotFoundError("No migration named '" + *options.file + "'",
                                       {{"name", *options.file}});
    }
    if (entry->state != MigrationState::kApplied && entry->state != MigrationState::kMissing) {
      throw NotAppliedError("'" + *options.file + "' is not applied", {{"name", *options.file}});
    }
    targets.push_back(entry);
  } else if (options.steps) {
    const auto count = std::min<std::size_t>(applied.size(), *options.steps);
    targets.assign(applied.begin(), applied.begin() + count);
  } else if (options.to) {
    if (find_entry(plan, *options.to) == nullptr) {
      throw MigrationFileNotFoundError("No migration named '" + *options.to + "'",
                                       {{"name", *options.to}, {"option", "to"}});
    }
    for (const PlanEntry* entry : applied) {
      if (entry->name > *options.to) targets.push_back(entry);
    }
  } else {
    std::int64_t batch = options.batch.value_or(0);
    if (!options.batch) {
      for (const PlanEntry* entry : applied) batch = std::max(batch, entry->record->batch);
    }
    for (const PlanEntry* entry : applied) {
      if (entry->record->batch == batch) targets.push_back(entry);
    }
  }

  for (const PlanEntry* entry : targets) {
    const nlohmann::json context = {{"name", entry->name}};
    if (entry->invalid_name) {
      throw MigrationInvalidNameError("Changelog record name is not a bare file name", context);
    }
    if (entry->record->origin == "baseline") {
      throw MigrationIrreversibleError(
          "'" + entry->name + "' was baselined, not applied: it cannot be reverted", context);
    }
    if (entry->migration == nullptr) {
      throw MigrationFileNotFoundError("The migration '" + entry->name + "' is gone", context);
    }
    if (!entry->migration->down) {
      throw MigrationIrreversibleError("'" + entry->name + "' has no down section", context);
    }
  }
  return targets;
}

}  // namespace migronaut

#include "core/import_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "migronaut/errors.hpp"
#include "source/names.hpp"
#include "source/version.hpp"

namespace migronaut {
namespace {

// One migration the tool applied, before it is matched to a file.
struct Applied {
  std::string version;  // for tools that keep versions
  std::string name;     // for tools that keep names (Flyway keeps both)
  std::optional<std::int64_t> at_ms;
  std::string hash;
  std::string description;
  std::string baseline;  // the Flyway baseline version this migration is at or below
};

// Whether an applied entry is at `version` (an entry without one, a repeatable, never is).
bool at_version(const Applied& applied, std::string_view version) {
  return !applied.version.empty() && compare_versions(applied.version, version) == 0;
}

const Migration* by_version(const std::vector<Migration>& migrations, std::string_view version) {
  if (version.empty()) return nullptr;
  auto it = std::find_if(migrations.begin(), migrations.end(), [&](const Migration& m) {
    return !m.repeatable && compare_versions(m.version, version) == 0;
  });
  return it != migrations.end() ? &*it : nullptr;
}

const Migration* by_name(const std::vector<Migration>& migrations, const std::string& name) {
  auto it = std::find_if(migrations.begin(), migrations.end(),
                         [&](const Migration& m) { return m.name == name; });
  if (it != migrations.end()) return &*it;
  // Another tool's file, ported: knex's 20260101_users.js is 20260101_users.sql on disk.
  const RunOrder order = record_order(name);
  return order.repeatable ? nullptr : by_version(migrations, order.version);
}

// The versioned migrations on disk up to and including `version`, in order.
std::vector<Applied> up_to(const std::vector<Migration>& migrations, const std::string& version) {
  std::vector<Applied> applied;
  for (const Migration& migration : migrations) {
    if (!migration.repeatable && compare_versions(migration.version, version) <= 0) {
      applied.push_back({migration.version, "", std::nullopt, "", "", ""});
    }
  }
  return applied;
}

// golang-migrate: one row, its current version; everything up to it is applied.
std::vector<Applied> golang_migrate(const std::vector<ForeignRecord>& history,
                                    const std::vector<Migration>& migrations) {
  std::vector<Applied> applied;
  for (const ForeignRecord& row : history) {
    if (!row.success) {
      throw MigrationBlockedError(
          fmt::format("golang-migrate marks version {} dirty: it failed midway. Repair the "
                      "database, run `migrate force <version>`, then import",
                      row.version),
          {{"tool", "golang-migrate"}, {"version", row.version}, {"dirty", true}});
    }
    const std::vector<Applied> below = up_to(migrations, row.version);
    applied.insert(applied.end(), below.begin(), below.end());
    if (by_version(migrations, row.version) == nullptr)
      applied.push_back({row.version, "", std::nullopt, "", "", ""});
  }
  return applied;
}

// Flyway's baseline at version V says the schema already holds everything up to and including
// V: each such migration without a row of its own counts as applied then, before the rows.
void add_baselined(const ForeignRecord& baseline, const std::vector<Migration>& migrations,
                   std::vector<Applied>& applied, ImportResult& result) {
  std::vector<Applied> below = up_to(migrations, baseline.version);
  std::erase_if(below, [&](const Applied& b) {
    return std::any_of(applied.begin(), applied.end(),
                       [&](const Applied& a) { return at_version(a, b.version); });
  });
  if (below.empty()) {
    result.not_imported.emplace_back(
        baseline.version, "a Flyway baseline: no migration file is at or below this version");
  }
  for (Applied& migration : below) {
    migration.at_ms = baseline.applied_at_ms;
    migration.baseline = baseline.version;
  }
  applied.insert(applied.begin(), below.begin(), below.end());
}

// One successful Flyway row: an undo takes its version back out; a repeatable's later run
// replaces its earlier one.
void add_flyway_row(const ForeignRecord& row, std::vector<Applied>& applied) {
  if (row.type.starts_with("UNDO")) {
    std::erase_if(applied, [&](const Applied& a) { return at_version(a, row.version); });
    return;
  }
  std::erase_if(applied,
                [&](const Applied& a) { return row.version.empty() && a.name == row.name; });
  applied.push_back({row.version, row.name, row.applied_at_ms, "", row.description, ""});
}

// Flyway: rows by installed rank, then what its baseline (if any) covers.
std::vector<Applied> flyway(const std::vector<ForeignRecord>& history,
                            const std::vector<Migration>& migrations, ImportResult& result) {
  std::vector<Applied> applied;
  const ForeignRecord* baseline = nullptr;
  for (const ForeignRecord& row : history) {
    if (row.type == "SCHEMA") continue;
    if (!row.success) {
      result.not_imported.emplace_back(row.name.empty() ? row.version : row.name,
                                       "failed in Flyway");
    } else if (row.type == "BASELINE") {
      baseline = &row;
    } else {
      add_flyway_row(row, applied);
    }
  }
  if (baseline != nullptr) add_baselined(*baseline, migrations, applied, result);
  return applied;
}

std::vector<Applied> applied_in(ForeignTool tool, const std::vector<ForeignRecord>& history,
                                const std::vector<Migration>& migrations, ImportResult& result) {
  if (tool == ForeignTool::kGolangMigrate) return golang_migrate(history, migrations);
  if (tool == ForeignTool::kFlyway) return flyway(history, migrations, result);
  std::vector<Applied> applied;
  for (const ForeignRecord& row : history) {
    applied.push_back({row.version, row.name, row.applied_at_ms, row.checksum, "", ""});
  }
  // dbmate keeps versions as text, in no order.
  std::stable_sort(applied.begin(), applied.end(), [](const Applied& a, const Applied& b) {
    return compare_versions(a.version, b.version) < 0;
  });
  return applied;
}

// `applied` matched to its file, or to the tool's own name; nullopt (noted) when neither works.
std::optional<ImportedMigration> match(const Applied& applied,
                                       const std::vector<Migration>& migrations, bool trust_hash,
                                       ImportResult& result) {
  const Migration* file = applied.name.empty() ? nullptr : by_name(migrations, applied.name);
  if (file == nullptr) file = by_version(migrations, applied.version);
  ImportedMigration imported;
  imported.applied_at_ms = applied.at_ms;
  imported.description = applied.description;
  imported.baseline = applied.baseline;
  if (file != nullptr) {
    imported.name = file->name;
    if (imported.description.empty()) imported.description = file->description;
    const bool reuse = !applied.hash.empty() && (trust_hash || applied.hash == file->checksum);
    imported.checksum = reuse ? applied.hash : file->checksum;
    imported.checksum_source = reuse ? "reused" : "disk";
    return imported;
  }
  const std::string label = applied.name.empty() ? applied.version : applied.name;
  if (applied.name.empty()) {
    result.not_imported.emplace_back(label, "no migration file has this version");
    return std::nullopt;
  }
  if (!is_valid_record_name(applied.name)) {
    result.not_imported.emplace_back(label, "not a valid migration name, and no file matches it");
    return std::nullopt;
  }
  imported.name = applied.name;
  imported.checksum = applied.hash;
  imported.checksum_source = applied.hash.empty() ? "missing" : "reused";
  return imported;
}

}  // namespace

ImportResult plan_import(ForeignTool tool, const std::vector<ForeignRecord>& history,
                         const std::vector<Migration>& migrations,
                         const std::vector<ChangelogRecord>& existing, bool trust_hash) {
  ImportResult result;
  result.from = foreign_tool_name(tool);
  std::set<std::string> done;
  for (const ChangelogRecord& record : existing) {
    if (record.status == RecordStatus::kApplied) done.insert(record.name);
  }
  std::set<std::string> taken;
  for (const Applied& applied : applied_in(tool, history, migrations, result)) {
    std::optional<ImportedMigration> imported = match(applied, migrations, trust_hash, result);
    if (!imported || !taken.insert(imported->name).second) continue;
    if (done.contains(imported->name)) {
      result.skipped.push_back(imported->name);
    } else {
      result.imported.push_back(std::move(*imported));
    }
  }
  return result;
}

}  // namespace migronaut

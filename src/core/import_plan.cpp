#include "core/import_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "migronaut/errors.hpp"
#include "source/names.hpp"
#include "source/version.hpp"
#include "util/checksum.hpp"

namespace migronaut {
namespace {

using FileChecksums = std::map<std::string, std::string>;

constexpr std::string_view kNoFile = "no migration file has this version";

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
    // Everything up to the version counts as applied: a version golang-migrate never writes
    // (negative, not a number) would take in every file.
    if (row.version.empty() || !std::all_of(row.version.begin(), row.version.end(),
                                            [](unsigned char c) { return std::isdigit(c) != 0; })) {
      throw MigrationInvalidFormatError(
          fmt::format("golang-migrate's history holds version '{}', which golang-migrate never "
                      "writes (a version is a non-negative integer): fix the row, then import",
                      row.version),
          {{"tool", "golang-migrate"}, {"version", row.version}});
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

// How Flyway's checksum of a file (its CRC-32, as text) is recorded: marked as Flyway's, as
// it is never one of migronaut's.
std::string as_flyway_checksum(std::string_view crc) {
  return crc.empty() ? "" : "flyway:" + std::string(crc);
}

// What Flyway's history took back: each migration an undo or a delete (`flyway repair` marking a
// migration whose file is gone) removed, and why, until a later row applies it again.
using TakenBack = std::vector<std::pair<Applied, std::string_view>>;

// One successful Flyway row: an undo or a delete takes its version (a delete: or repeatable) back
// out; a repeatable's later run replaces its earlier one.
void add_flyway_row(const ForeignRecord& row, std::vector<Applied>& applied,
                    TakenBack& taken_back) {
  const auto same_migration = [&](const Applied& a) {
    return row.version.empty() ? a.version.empty() && a.name == row.name
                               : at_version(a, row.version);
  };
  std::erase_if(taken_back, [&](const auto& taken) { return same_migration(taken.first); });
  const bool undo = row.type.starts_with("UNDO");
  if (undo || row.type == "DELETE") {
    const auto it = std::find_if(applied.begin(), applied.end(), same_migration);
    taken_back.emplace_back(
        it != applied.end() ? *it : Applied{row.version, row.name, std::nullopt, "", "", ""},
        undo ? "undone by `flyway undo`" : "marked deleted by `flyway repair`");
    std::erase_if(applied, same_migration);
    return;
  }
  std::erase_if(applied,
                [&](const Applied& a) { return row.version.empty() && a.name == row.name; });
  applied.push_back({row.version, row.name, row.applied_at_ms, as_flyway_checksum(row.checksum),
                     row.description, ""});
}

// A failed row outlives a rollback only where a migration ran outside a transaction (PostgreSQL
// rolls a failed transactional one back, row and all): it may be half applied. As golang-migrate's
// dirty version, and as Flyway's own `migrate` does until `flyway repair`, it is refused.
[[noreturn]] void refuse_failed_flyway_row(const ForeignRecord& row) {
  const std::string label = row.name.empty() ? row.version : row.name;
  throw MigrationBlockedError(
      fmt::format("Flyway recorded {} as failed: it may be half applied. Check the database, "
                  "then delete its row (`flyway repair` does) and import again",
                  label),
      {{"tool", "flyway"}, {"name", label}, {"version", row.version}, {"failed", true}});
}

// Flyway: rows by installed rank, then what its baseline (if any) covers.
std::vector<Applied> flyway(const std::vector<ForeignRecord>& history,
                            const std::vector<Migration>& migrations, ImportResult& result) {
  std::vector<Applied> applied;
  TakenBack taken_back;
  const ForeignRecord* baseline = nullptr;
  for (const ForeignRecord& row : history) {
    if (row.type == "SCHEMA") continue;
    if (!row.success) refuse_failed_flyway_row(row);
    if (row.type == "BASELINE") {
      baseline = &row;
    } else {
      add_flyway_row(row, applied, taken_back);
    }
  }
  for (const auto& [migration, why] : taken_back) {
    result.not_imported.emplace_back(migration.name.empty() ? migration.version : migration.name,
                                     why);
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

// Each file's checksum as `tool` computes its own, by name: Flyway's; none for the other tools,
// whose hash (migrate-mongo's) is migronaut's own kind or who keep none.
FileChecksums tool_checksums(ForeignTool tool, const FileTexts& texts) {
  FileChecksums checksums;
  if (tool != ForeignTool::kFlyway) return checksums;
  for (const auto& [name, text] : texts) {
    checksums.emplace(name, as_flyway_checksum(std::to_string(flyway_checksum(text))));
  }
  return checksums;
}

// The checksum `imported` records for `file`: the file's own when the tool's hash agrees with
// the file or there is none. A tool that hashes files its own way (Flyway) ran another text when
// its hash differs: the record keeps that hash, so migronaut sees the edit as drift (and runs a
// repeatable again, as Flyway would). migrate-mongo's hash that differs is kept only with
// `trust_hash`.
void take_checksum(const Applied& applied, const Migration& file,
                   const FileChecksums& tool_checksums, bool trust_hash,
                   ImportedMigration& imported) {
  const auto theirs = tool_checksums.find(file.name);
  const bool tool_hashes_files = theirs != tool_checksums.end();
  if (applied.hash.empty() ||
      applied.hash == (tool_hashes_files ? theirs->second : file.checksum)) {
    imported.checksum = file.checksum;
    imported.checksum_source = applied.hash.empty() ? "disk" : "verified";
  } else if (tool_hashes_files) {
    imported.checksum = applied.hash;
    imported.checksum_source = "changed";
  } else {
    imported.checksum = trust_hash ? applied.hash : file.checksum;
    imported.checksum_source = trust_hash ? "reused" : "disk";
  }
}

// `applied` matched to its file, or to the tool's own name; nullopt (noted) when neither works.
std::optional<ImportedMigration> match(const Applied& applied,
                                       const std::vector<Migration>& migrations,
                                       const FileChecksums& tool_checksums, bool trust_hash,
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
    take_checksum(applied, *file, tool_checksums, trust_hash, imported);
    return imported;
  }
  const std::string label = applied.name.empty() ? applied.version : applied.name;
  if (applied.name.empty()) {
    result.not_imported.emplace_back(label, kNoFile);
    return std::nullopt;
  }
  if (!is_valid_record_name(applied.name)) {
    result.not_imported.emplace_back(
        label,
        "not a valid migration name, and no file matches it: if a file here is this one renamed, "
        "give the row the file's name and import again, or `up` runs that file a second time");
    return std::nullopt;
  }
  imported.name = applied.name;
  imported.checksum = applied.hash;
  imported.checksum_source = applied.hash.empty() ? "missing" : "reused";
  return imported;
}

// A record by which migronaut holds the migration not applied (failed, reverted, cut short), for
// a migration that never came from `tool`'s import (its origin stays the tool's through
// migronaut's downs and re-runs): the tool's history showing it applied is then news, the tool
// ran it after migronaut left it (a host still running the tool), to import rather than to run
// again. A tool's row for a migration imported from it predates the import.
bool left_unapplied_by_migronaut(const ChangelogRecord& record, ForeignTool tool) {
  return record.status != RecordStatus::kApplied && record.origin != foreign_tool_name(tool);
}

// The highest version imported from golang-migrate, which only goes up: a file at or below it
// that it shows applied now was added since, out of order, and it never ran that file. Empty
// for another tool, or none recorded. With `any_origin`, the highest migronaut records at all:
// never imported, golang-migrate's version only implies its files, and one at or below what
// migronaut took over may as well be a late arrival.
std::string imported_up_to(ForeignTool tool, const std::vector<ChangelogRecord>& existing,
                           bool any_origin = false) {
  std::string up_to;
  if (tool != ForeignTool::kGolangMigrate) return up_to;
  for (const ChangelogRecord& record : existing) {
    if (!any_origin && record.origin != foreign_tool_name(tool)) continue;
    const std::string version = record_order(record.name).version;
    if (up_to.empty() || compare_versions(version, up_to) > 0) up_to = version;
  }
  return up_to;
}

// Whether the tool may have run `migration` since its records were imported (`up_to` as
// imported_up_to() says): not what a Flyway baseline covers, nor a golang-migrate version at or
// below the one imported, which its history shows applied without its having run them.
bool may_have_run_since(const ImportedMigration& migration, const std::string& up_to) {
  return migration.baseline.empty() &&
         (up_to.empty() || compare_versions(record_order(migration.name).version, up_to) > 0);
}

// Whether migronaut's changelog already records `name`: by that name (but for one migronaut
// left unapplied, where the tool `ran_since` then), or applied by its version under another
// name (the file renamed since an earlier import), which must not be imported twice. Another
// name's failed or reverted record says nothing of this one.
bool recorded(ForeignTool tool, const std::string& name,
              const std::vector<ChangelogRecord>& existing, bool ran_since) {
  const RunOrder order = record_order(name);
  return std::any_of(existing.begin(), existing.end(), [&](const ChangelogRecord& record) {
    if (record.name == name) return !(ran_since && left_unapplied_by_migronaut(record, tool));
    return !order.repeatable && record.status == RecordStatus::kApplied &&
           records_version(record.name, order.version);
  });
}

// A history none of whose versions has a file is read against the wrong folder (dbmate keeps
// its files in db/migrations): importing nothing there would pass for success.
void refuse_if_no_file_matched(const ImportResult& result) {
  if (!result.imported.empty() || !result.skipped.empty()) return;
  const auto unmatched = std::count_if(result.not_imported.begin(), result.not_imported.end(),
                                       [](const auto& entry) { return entry.second == kNoFile; });
  if (unmatched == 0) return;
  throw MigrationFileNotFoundError(
      fmt::format("None of the {} version(s) in {}'s history has a migration file here: is the "
                  "migrations folder (--dir) the one {} used?",
                  unmatched, result.from, result.from),
      {{"tool", result.from}, {"unmatched", unmatched}});
}

}  // namespace

ImportResult plan_import(ForeignTool tool, const std::vector<ForeignRecord>& history,
                         const std::vector<Migration>& migrations,
                         const std::vector<ChangelogRecord>& existing, bool trust_hash,
                         const FileTexts& texts) {
  ImportResult result;
  const FileChecksums checksums = tool_checksums(tool, texts);
  result.from = foreign_tool_name(tool);
  // Whatever migronaut recorded stands (a migration imported and reverted since stays reverted),
  // but what it holds unapplied of its own, which the tool ran since (left_unapplied_by_migronaut).
  const std::string up_to = imported_up_to(tool, existing);
  std::set<std::string> taken;
  for (const Applied& applied : applied_in(tool, history, migrations, result)) {
    std::optional<ImportedMigration> imported =
        match(applied, migrations, checksums, trust_hash, result);
    if (!imported || !taken.insert(imported->name).second) continue;
    if (recorded(tool, imported->name, existing, may_have_run_since(*imported, up_to))) {
      result.skipped.push_back(imported->name);
    } else {
      result.imported.push_back(std::move(*imported));
    }
  }
  refuse_if_no_file_matched(result);
  return result;
}

bool imported_from(ForeignTool tool, const std::vector<ChangelogRecord>& existing) {
  return std::any_of(existing.begin(), existing.end(), [&](const ChangelogRecord& record) {
    return record.origin == foreign_tool_name(tool);
  });
}

std::vector<std::string> applied_since_import(ForeignTool tool,
                                              const std::vector<ForeignRecord>& history,
                                              const std::vector<Migration>& migrations,
                                              const std::vector<ChangelogRecord>& existing) {
  const bool imported = imported_from(tool, existing);
  const std::string up_to = imported_up_to(tool, existing, /*any_origin=*/!imported);
  // Never imported, the tool's rows may all predate migronaut's records (a baseline, then
  // migronaut's own down): only a migration migronaut never recorded is surely the tool's alone.
  const auto known = [&](const ChangelogRecord& record, const ImportedMigration& migration) {
    return (record.name == migration.name ||
            records_version(record.name, record_order(migration.name).version)) &&
           (!imported || !left_unapplied_by_migronaut(record, tool));
  };
  const auto unrun = [&](const ImportedMigration& migration) {
    const bool file = std::any_of(migrations.begin(), migrations.end(),
                                  [&](const Migration& m) { return m.name == migration.name; });
    const bool recorded =
        std::any_of(existing.begin(), existing.end(),
                    [&](const ChangelogRecord& r) { return known(r, migration); });
    return file && !recorded && may_have_run_since(migration, up_to);
  };
  std::vector<std::string> names;
  for (ImportedMigration& migration :
       plan_import(tool, history, migrations, existing, false).imported) {
    if (unrun(migration)) names.push_back(std::move(migration.name));
  }
  return names;
}

}  // namespace migronaut

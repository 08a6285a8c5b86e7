// What `import --from <tool>` writes: another tool's history matched against the migrations on
// disk. A pure function of its inputs: no store, no clock.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/migrator.hpp"
#include "source/migration_set.hpp"
#include "store/store.hpp"

namespace migronaut {

// Files' texts by file name.
using FileTexts = std::map<std::string, std::string>;

// The migrations `history` says are applied, in the order the tool applied them, each named
// after its file on disk (matched by name, else by version) with the file's checksum — or,
// where no file matches, under the tool's own name when that is a valid one. A migration that
// `existing` records, in any status, is skipped: what migronaut recorded itself stands.
// golang-migrate keeps only its current version: every migration up to it is applied. Flyway's
// failed rows, undone versions and deleted ones (`flyway repair`) are not imported; its baseline
// at version V imports every versioned file at or below V without a successful row of its own,
// at the baseline's time, marked with V (`baseline`). Flyway's checksum of each file in `texts`
// is compared with its row's: a file edited since keeps the row's checksum, which migronaut
// reports as drift. migrate-mongo's fileHash is reused when it matches the file (always with
// `trust_hash`). Throws MigrationBlockedError for a dirty golang-migrate version.
ImportResult plan_import(ForeignTool tool, const std::vector<ForeignRecord>& history,
                         const std::vector<Migration>& migrations,
                         const std::vector<ChangelogRecord>& existing, bool trust_hash,
                         const FileTexts& texts = {});

// Whether any record of `existing` was imported from `tool` (its name as their origin).
bool imported_from(ForeignTool tool, const std::vector<ChangelogRecord>& existing);

// On a database with a changelog (`existing`), the files of the folder `tool`'s `history` shows
// applied that migronaut's changelog does not record and `up` would run again, in the order the
// tool applied them.
// - Imported from the tool (records with its name as their origin): what it applied since. Not
//   what the tool cannot have run since: a Flyway baseline's cover, a golang-migrate version at
//   or below the highest imported (it only goes up), a version migronaut records applied, or one
//   imported from the tool whatever migronaut did with it since (its own down, the file renamed
//   after). A migration migronaut applied and reverted, or failed, without the tool, that the
//   tool's history shows applied, it ran since.
// - Never imported from it (a `baseline`, or an `up` of files the tool never had, came first):
//   what the tool applied that migronaut never recorded, in any state; of what its history only
//   implies, not a Flyway baseline's cover, nor a golang-migrate version at or below the highest
//   migronaut records (a late arrival as likely as the tool's).
// Throws as plan_import() does.
std::vector<std::string> applied_since_import(ForeignTool tool,
                                              const std::vector<ForeignRecord>& history,
                                              const std::vector<Migration>& migrations,
                                              const std::vector<ChangelogRecord>& existing);

}  // namespace migronaut

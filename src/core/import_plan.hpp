// What `import --from <tool>` writes: another tool's history matched against the migrations on
// disk. A pure function of its inputs: no store, no clock.
#pragma once

#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/migrator.hpp"
#include "source/migration_set.hpp"
#include "store/store.hpp"

namespace migronaut {

// The migrations `history` says are applied, in the order the tool applied them, each named
// after its file on disk (matched by name, else by version) with the file's checksum — or,
// where no file matches, under the tool's own name when that is a valid one. Records already
// applied in `existing` are skipped. golang-migrate keeps only its current version: every
// migration up to it is applied. Flyway's failed rows and undone versions are not imported;
// its baseline at version V imports every versioned file at or below V without a successful
// row of its own, at the baseline's time, marked with V (`baseline`). migrate-mongo's fileHash
// is reused when it matches the file (always with `trust_hash`). Throws MigrationBlockedError
// for a dirty golang-migrate version.
ImportResult plan_import(ForeignTool tool, const std::vector<ForeignRecord>& history,
                         const std::vector<Migration>& migrations,
                         const std::vector<ChangelogRecord>& existing, bool trust_hash);

}  // namespace migronaut

// Reading the changelog and the lock back, decided once for every store: a store hands over a
// reader for one row (a result row, a document) and gets the ChangelogRecord or LockInfo, so
// what NULL, a missing field or an unknown status means cannot drift apart between backends.
// (Writes are decided once too: src/core/changelog.cpp builds a RecordWrite.)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migronaut/changelog.hpp"
#include "migronaut/lock.hpp"
#include "store/store.hpp"

namespace migronaut {

// One field of a row; absent when NULL or missing. Time fields read as ms since the epoch.
template <typename Key>
struct RowReader {
  std::function<std::optional<std::int64_t>(Key)> integer;
  std::function<std::optional<std::string>(Key)> text;
};

// The record named `name`. An unknown status is an error naming the record: guessing could
// read a migration as applied, or run it again.
ChangelogRecord read_record(std::string name, const RowReader<Field>& row);

// Puts `records` in name order (bytewise, as COLLATE "C" orders), as read_changelog() returns
// them; cheap when they already are, as rows read in the order written mostly are.
void sort_by_name(std::vector<ChangelogRecord>& records);

// The lock record's fields, as SQL columns and MongoDB fields spell them.
enum class LockField {
  kLockedAt,
  kTtl,
  kOwner,
  kPid,
  kHost,
  kExecutedBy,
  kMigration,
  kStep,
  kTotal
};
inline constexpr LockField kAllLockFields[] = {
    LockField::kLockedAt,  LockField::kTtl,  LockField::kOwner,
    LockField::kPid,       LockField::kHost, LockField::kExecutedBy,
    LockField::kMigration, LockField::kStep, LockField::kTotal};
std::string_view lock_field_name(LockField field);   // "lockedAt"
std::string_view lock_column_name(LockField field);  // "locked_at"

LockInfo read_lock_row(const RowReader<LockField>& row);

// The columns of migronaut's two SQL tables. A table under one of their names that lacks one is
// another's: the stores refuse it before creating anything (SchemaInvalidError naming it), where
// a read of it would fail on the column it missed.
std::vector<std::string_view> lock_table_columns();       // id, locked_at, …, nonce
std::vector<std::string_view> changelog_table_columns();  // name, batch, status, …

}  // namespace migronaut

// The documents the MongoDB store sends, built apart from the driver so their exact shape is
// unit-tested. Layout matches the JavaScript migronaut's, so both share one lock and one
// changelog. Documents are Extended JSON (nlohmann::ordered_json keeps key order); to_bson()
// turns them into BSON.
#pragma once

#include <bson/bson.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "migronaut/changelog.hpp"
#include "migronaut/lock.hpp"
#include "store/store.hpp"

namespace migronaut::mongo {

using Json = nlohmann::ordered_json;

// {_id: "migronaut_lock"}: acquire, read and force release.
Json lock_id_filter();
// {_id, owner, nonce}: renew, release and the transactional fence.
Json holder_filter(const LockToken& token);

// The acquire update: one $replaceWith of a $cond that installs the claim when no holder exists
// or the holder is stale — lockedAt older than $$NOW minus the larger of its ttlMs and ours —
// and keeps $$ROOT otherwise. Every string is wrapped in $literal so a leading `$` is never read
// as a field path.
Json acquire_pipeline(const LockClaim& claim);
// The renewal: lockedAt = $$NOW plus the progress fields.
Json renew_pipeline(const LockProgress& progress);
// The transactional fence: lockedAt = $$NOW, plus the progress fields when given (so the
// migration's announcement rides on it), written first inside the migration's transaction.
// A write, not a read: a transaction reads from the snapshot it started with, so only a write
// conflicts with a reclaim that happened meanwhile, and once written the record cannot be
// reclaimed until the transaction ends.
Json fence_pipeline(const LockProgress* progress);

struct UpdateDocuments {
  Json filter;
  Json update;  // an update pipeline
};
// One changelog upsert, filtered on `name` (and status ≠ applied when skip_if_applied). A
// pipeline, so ServerNow is $$NOW in $set and in set-if-absent alike (a classic $currentDate
// cannot be conditional): set-if-absent fields become {$ifNull: ["$field", value]}.
UpdateDocuments record_update(const RecordWrite& write);

// createIndexes for the changelog, with the original's index names.
Json changelog_indexes_command(std::string_view collection);

LockInfo lock_info_from_bson(const bson_t& document);

// What an acquire that did not insert comes to. It was sent as a findAndModify answering with
// the record it found (`previous`, new: false); `current` is the record read back afterwards.
// Ours when `current` carries the claim's owner and nonce — a nonce no racing claim shares —
// and then `previous` was a stale holder's, reclaimed; otherwise refused by `current`.
AcquireResult acquire_outcome(const LockClaim& claim, const bson_t* previous,
                              const bson_t* current);
// The changelog record (src/store/rows.hpp: an unknown status is an error naming the record).
ChangelogRecord record_from_bson(const bson_t& document);

}  // namespace migronaut::mongo

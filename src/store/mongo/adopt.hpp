// The MongoDB store's read-only side for import and audit: migrate-mongo's changelog and the
// probe of migronaut's own collections. Nothing here writes.
#pragma once

#include <mongoc/mongoc.h>

#include <optional>
#include <string>
#include <vector>

#include "store/store.hpp"

namespace migronaut {

// Reports a failed driver call the store's way (connection errors as ConnectionFailedError).
class MongoFailure {
 public:
  virtual ~MongoFailure() = default;
  [[noreturn]] virtual void fail(const bson_error_t& error, std::string_view operation,
                                 const bson_t* reply) const = 0;
};

// `collection`: migrate-mongo's changelog, under its default name or its
// changelogCollectionName.
std::optional<std::vector<ForeignRecord>> read_mongo_history(mongoc_database_t* database,
                                                             ForeignTool tool,
                                                             const std::string& collection,
                                                             const MongoFailure& fail);

StoreProbe probe_mongo(mongoc_client_t* client, mongoc_database_t* database,
                       const std::string& changelog, const std::string& locks,
                       const MongoFailure& fail);

}  // namespace migronaut

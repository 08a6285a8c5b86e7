#include "store/mongo/adopt.hpp"

#include <set>

#include "store/history_sql.hpp"
#include "store/mongo/bson.hpp"
#include "store/mongo/commands.hpp"

namespace migronaut {
namespace {

using mongo::Json;
using mongo::to_bson;

bool has_collection(mongoc_database_t* database, const std::string& name,
                    const MongoFailure& failure) {
  bson_error_t error;
  const bool found = mongoc_database_has_collection(database, name.c_str(), &error);
  if (!found && error.code != 0) failure.fail(error, "listCollections", nullptr);
  return found;
}

// Every document `cursor` yields, passed to `each`; driver errors reported through `fail`.
template <typename Each>
void drain(mongoc_cursor_t* cursor, const Each& each, const MongoFailure& failure,
           std::string_view operation) {
  const bson_t* document = nullptr;
  while (mongoc_cursor_next(cursor, &document)) each(*document);
  bson_error_t error;
  const bson_t* reply = nullptr;
  if (mongoc_cursor_error_document(cursor, &error, &reply)) failure.fail(error, operation, reply);
}

}  // namespace

std::optional<std::vector<ForeignRecord>> read_mongo_history(mongoc_database_t* database,
                                                             ForeignTool tool,
                                                             const std::string& name,
                                                             const MongoFailure& failure) {
  if (tool != ForeignTool::kMigrateMongo) throw_tool_unsupported(tool, "mongo");
  if (!has_collection(database, name, failure)) return std::nullopt;
  mongo::CollectionPtr collection(mongoc_database_get_collection(database, name.c_str()));
  const Json options = {{"sort", {{"appliedAt", 1}, {"_id", 1}}},
                        {"projection", {{"fileName", 1}, {"appliedAt", 1}, {"fileHash", 1}}}};
  mongo::CursorPtr cursor(mongoc_collection_find_with_opts(
      collection.get(), to_bson(Json::object()).get(), to_bson(options).get(), nullptr));
  std::vector<ForeignRecord> records;
  drain(
      cursor.get(),
      [&](const bson_t& document) {
        ForeignRecord& record = records.emplace_back();
        record.name = mongo::string_field(document, "fileName").value_or("");
        record.applied_at_ms = mongo::date_field(document, "appliedAt");
        record.checksum = mongo::string_field(document, "fileHash").value_or("");
      },
      failure, "changelog read");
  return records;
}

StoreProbe probe_mongo(mongoc_client_t* client, mongoc_database_t* database,
                       const std::string& changelog, const std::string& locks,
                       const MongoFailure& failure) {
  StoreProbe probe;
  probe.changelog_exists = has_collection(database, changelog, failure);
  probe.lock_table_exists = has_collection(database, locks, failure);
  if (probe.changelog_exists) {
    std::set<std::string> present;
    mongo::CollectionPtr collection(mongoc_database_get_collection(database, changelog.c_str()));
    mongo::CursorPtr cursor(mongoc_collection_find_indexes_with_opts(collection.get(), nullptr));
    drain(
        cursor.get(),
        [&](const bson_t& index) {
          present.insert(mongo::string_field(index, "name").value_or(""));
        },
        failure, "listIndexes");
    for (const auto& index : mongo::changelog_indexes_command(changelog)["indexes"]) {
      const std::string name = index["name"].get<std::string>();
      if (!present.contains(name)) probe.missing_indexes.push_back(name);
    }
  }
  bson_error_t error;
  mongoc_server_description_t* server = mongoc_client_select_server(client, true, nullptr, &error);
  if (server == nullptr) failure.fail(error, "server selection", nullptr);
  const std::string type = mongoc_server_description_type(server);
  mongoc_server_description_destroy(server);
  probe.transactions = type == "RSPrimary" || type == "Mongos" || type == "LoadBalancer";
  if (!probe.transactions) probe.transactions_detail = "a " + type + " server runs no transactions";
  return probe;
}

}  // namespace migronaut

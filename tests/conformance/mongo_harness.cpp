// The store conformance suite against a live MongoDB server at MIGRONAUT_TEST_MONGO_URI (this
// machine has none; the wire-level tests in tests/mongo cover the store against mockupdb).
// Unset, every case is still registered and shows as skipped, with the reason.
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "conformance/store_harness.hpp"
#include "store/mongo/bson.hpp"

namespace migronaut::testing {
namespace {

constexpr const char* kDatabase = "migronaut_conformance";

class MongoHarness : public StoreHarness {
 public:
  explicit MongoHarness(std::string uri) : uri_(std::move(uri)) { mongoc_init(); }

  void reset() override {
    auto client = connect();
    mongo::DatabasePtr database(mongoc_client_get_database(client.get(), kDatabase));
    bson_error_t error;
    if (!mongoc_database_drop_with_opts(database.get(), nullptr, &error)) {
      throw std::runtime_error(std::string("dropDatabase failed: ") + error.message);
    }
  }

  std::unique_ptr<Store> open() override {
    Config config;
    config.uri = uri_;
    config.db_name = kDatabase;
    return open_store(config);
  }

  Script create_objects_script(const std::vector<std::string>& names) override {
    nlohmann::json commands = nlohmann::json::array();
    for (const std::string& name : names) commands.push_back({{"create", name}});
    return {commands.dump()};
  }

  Script failing_script() override { return {R"([{"migronautNoSuchCommand": 1}])"}; }

  std::optional<Script> foreign_history_script(ForeignTool tool) override {
    if (tool != ForeignTool::kMigrateMongo) return std::nullopt;
    return Script{R"([{"insert": "changelog", "documents": [
        {"fileName": "20260101120000_a.js", "appliedAt": {"$date": "2026-01-01T12:00:00Z"}},
        {"fileName": "20260102120000_b.js", "appliedAt": {"$date": "2026-01-02T12:00:00Z"}}]}])"};
  }

  bool object_exists(const std::string& name) override {
    auto client = connect();
    mongo::DatabasePtr database(mongoc_client_get_database(client.get(), kDatabase));
    auto filter = mongo::to_bson(nlohmann::ordered_json{{"filter", {{"name", name}}}});
    bson_error_t error;
    char** names =
        mongoc_database_get_collection_names_with_opts(database.get(), filter.get(), &error);
    if (names == nullptr) {
      throw std::runtime_error(std::string("listCollections failed: ") + error.message);
    }
    const bool found = names[0] != nullptr;
    bson_strfreev(names);
    return found;
  }

  // Transactions need a replica set or a mongos.
  bool supports_transactions() override {
    auto client = connect();
    mongo::Reply reply;
    bson_error_t error;
    if (!mongoc_client_command_simple(client.get(), "admin",
                                      mongo::to_bson(nlohmann::ordered_json{{"hello", 1}}).get(),
                                      nullptr, reply.out(), &error)) {
      throw std::runtime_error(std::string("hello failed: ") + error.message);
    }
    return mongo::string_field(*reply, "setName").has_value() ||
           mongo::string_field(*reply, "msg") == "isdbgrid";
  }

 private:
  mongo::ClientPtr connect() const {
    bson_error_t error;
    mongo::UriPtr uri(mongoc_uri_new_with_error(uri_.c_str(), &error));
    if (!uri) throw std::runtime_error("MIGRONAUT_TEST_MONGO_URI is not a valid MongoDB URI");
    mongo::ClientPtr client(mongoc_client_new_from_uri_with_error(uri.get(), &error));
    if (!client) throw std::runtime_error(std::string("mongoc client: ") + error.message);
    return client;
  }

  std::string uri_;
};

const bool registered = [] {
  const char* set = std::getenv("MIGRONAUT_TEST_MONGO_URI");
  const std::string uri = set != nullptr ? set : "";
  return register_harness(
      {"mongo", [uri] { return std::make_unique<MongoHarness>(uri); },
       uri.empty() ? "no MongoDB server: set MIGRONAUT_TEST_MONGO_URI to run these cases" : ""});
}();

}  // namespace
}  // namespace migronaut::testing

// The MongoDB store, on the official C driver. Lock and changelog documents match the
// JavaScript migronaut's (see commands.hpp); lock and changelog writes use majority write
// concern and reads go to the primary.
#include "store/mongo/mongo_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "migronaut/errors.hpp"
#include "store/execution.hpp"
#include "store/mongo/adopt.hpp"
#include "store/mongo/bson.hpp"
#include "store/mongo/commands.hpp"
#include "util/redact.hpp"

namespace migronaut {
namespace {

using mongo::BsonPtr;
using mongo::Json;
using mongo::Reply;
using mongo::to_bson;

constexpr std::int32_t kDefaultServerSelectionTimeoutMs = 5000;

bool is_connection_error(const bson_error_t& error) {
  return error.domain == MONGOC_ERROR_STREAM || error.domain == MONGOC_ERROR_SERVER_SELECTION ||
         (error.domain == MONGOC_ERROR_CLIENT && error.code == MONGOC_ERROR_CLIENT_AUTHENTICATE);
}

// The errorLabels of a server reply (TransientTransactionError decides a transaction retry).
Json error_labels(const bson_t* reply) {
  if (reply == nullptr) return Json::array();
  auto document = mongo::to_json(*reply);
  return document.contains("errorLabels") ? document["errorLabels"] : Json::array();
}

bool has_label(const nlohmann::json& context, std::string_view label) {
  if (!context.contains("errorLabels")) return false;
  for (const auto& each : context["errorLabels"]) {
    if (each == label) return true;
  }
  return false;
}

// A command that returned ok: 1 may still carry write errors (insert, update, delete steps).
std::optional<std::pair<std::int64_t, std::string>> write_failure(const bson_t& reply) {
  auto document = mongo::to_json(reply);
  const Json* failure = nullptr;
  if (document.contains("writeErrors") && !document["writeErrors"].empty()) {
    failure = &document["writeErrors"][0];
  } else if (document.contains("writeConcernError")) {
    failure = &document["writeConcernError"];
  }
  if (failure == nullptr) return std::nullopt;
  const Json& code = (*failure)["code"];
  const std::int64_t number =
      code.is_object() ? std::stoll(code.begin()->get<std::string>()) : code.get<std::int64_t>();
  return std::make_pair(number, failure->value("errmsg", std::string("write error")));
}

std::string command_name(const Json& step) {
  return step.is_object() && !step.empty() ? step.begin().key() : std::string();
}

class MongoStore final : public Store, private MongoFailure {
 public:
  MongoStore(mongo::ClientPtr client, std::string database, const Config& config,
             std::string redacted_uri, std::optional<std::chrono::milliseconds> write_timeout)
      : client_(std::move(client)),
        write_timeout_(write_timeout),
        database_name_(std::move(database)),
        redacted_uri_(std::move(redacted_uri)),
        database_(mongoc_client_get_database(client_.get(), database_name_.c_str())),
        locks_(mongoc_client_get_collection(client_.get(), database_name_.c_str(),
                                            config.lock_table.c_str())),
        changelog_(mongoc_client_get_collection(client_.get(), database_name_.c_str(),
                                                config.migrations_table.c_str())),
        changelog_name_(config.migrations_table),
        lock_name_(config.lock_table),
        primary_(mongoc_read_prefs_new(MONGOC_READ_PRIMARY)) {}

  std::string_view kind() const override { return "mongo"; }

  void ensure_schema() override {
    if (schema_ready_) return;
    Json command = mongo::changelog_indexes_command(changelog_name_);
    command["writeConcern"] = {{"w", "majority"}};
    Reply reply;
    bson_error_t error;
    if (!mongoc_database_write_command_with_opts(database_.get(), to_bson(command).get(), nullptr,
                                                 reply.out(), &error)) {
      fail(error, "createIndexes on the changelog", reply.get());
    }
    schema_ready_ = true;
  }

  AcquireResult try_acquire(const LockClaim& claim) override {
    // A findAndModify rather than an update: its reply carries the record as it was before
    // (`new: false`), which, when the claim replaced it, names the dead holder reclaimed.
    auto options = find_and_modify_options(MONGOC_FIND_AND_MODIFY_UPSERT);
    const BsonPtr pipeline = to_bson(mongo::acquire_pipeline(claim));
    mongoc_find_and_modify_opts_set_update(options.get(), pipeline.get());
    Reply reply;
    bson_error_t error;
    if (!mongoc_collection_find_and_modify_with_opts(locks_.get(),
                                                     to_bson(mongo::lock_id_filter()).get(),
                                                     options.get(), reply.out(), &error)) {
      // Two first inserts raced on the unique _id: the other one won.
      if (error.code == 11000)
        return {.acquired = false, .holder = read_lock(), .reclaimed = std::nullopt};
      fail(error, "lock acquire", reply.get());
    }
    // Only an insert can upsert, and only into a free slot: ownership is proven.
    if (upserted(*reply))
      return {.acquired = true, .holder = std::nullopt, .reclaimed = std::nullopt};
    // Untouched (a live holder) or replaced (stale): only the read-back tells them apart.
    const BsonPtr previous = found_document(*reply);
    const BsonPtr current = find_lock(mongo::lock_id_filter(), nullptr);
    return mongo::acquire_outcome(claim, previous.get(), current.get());
  }

  bool renew(const LockToken& token, const LockProgress& progress) override {
    return update_lock(token, mongo::renew_pipeline(progress), nullptr, "lock renew");
  }

  void release(const LockToken& token) override {
    Reply reply;
    bson_error_t error;
    if (!mongoc_collection_delete_one(locks_.get(), to_bson(mongo::holder_filter(token)).get(),
                                      write_options(nullptr).get(), reply.out(), &error)) {
      fail(error, "lock release", reply.get());
    }
  }

  std::optional<LockInfo> read_lock() override {
    auto document = find_lock(mongo::lock_id_filter(), nullptr);
    if (!document) return std::nullopt;
    return mongo::lock_info_from_bson(*document);
  }

  std::optional<LockInfo> force_release(const ReleaseMatch& match) override {
    auto options = find_and_modify_options(MONGOC_FIND_AND_MODIFY_REMOVE);
    Reply reply;
    bson_error_t error;
    Json filter = mongo::lock_id_filter();
    if (!match.owner.empty()) filter["owner"] = std::string(match.owner);
    if (match.locked_at_ms) filter["lockedAt"] = mongo::date_json(*match.locked_at_ms);
    if (!mongoc_collection_find_and_modify_with_opts(locks_.get(), to_bson(filter).get(),
                                                     options.get(), reply.out(), &error)) {
      fail(error, "lock force release", reply.get());
    }
    const BsonPtr holder = found_document(*reply);
    if (!holder) return std::nullopt;
    return mongo::lock_info_from_bson(*holder);
  }

  std::vector<ChangelogRecord> read_changelog() override {
    const Json options = {{"sort", {{"name", 1}}}};
    mongo::CursorPtr cursor(mongoc_collection_find_with_opts(
        changelog_.get(), to_bson(Json::object()).get(), to_bson(options).get(), primary_.get()));
    std::vector<ChangelogRecord> records;
    const bson_t* document = nullptr;
    while (mongoc_cursor_next(cursor.get(), &document)) {
      records.push_back(mongo::record_from_bson(*document));
    }
    bson_error_t error;
    const bson_t* reply = nullptr;
    if (mongoc_cursor_error_document(cursor.get(), &error, &reply)) {
      fail(error, "changelog read", reply);
    }
    // Records exist only where a migronaut created the changelog, indexes first.
    if (!records.empty()) schema_ready_ = true;
    return records;
  }

  // Outside a transaction MongoDB cannot make the fence atomic with the write: the lock is
  // checked (with a write on it, so a reclaim in between shows) just before.
  void write_records(std::span<const RecordWrite> writes,
                     const LockToken* fence = nullptr) override {
    if (fence != nullptr &&
        !update_lock(*fence, mongo::fence_pipeline(nullptr), nullptr, "lock fence")) {
      throw LockLostError("the lock no longer names this run; the record was not written",
                          {{"reason", "fence"}});
    }
    for (const RecordWrite& write : writes) write_record_with(write, nullptr);
  }

  std::optional<std::vector<ForeignRecord>> read_foreign_history(
      ForeignTool tool, const std::string& table) override {
    return read_mongo_history(database_.get(), tool, table, *this);
  }

  StoreProbe probe() override {
    return probe_mongo(client_.get(), database_.get(), changelog_name_, lock_name_, *this);
  }

  // A script is a JSON array of commands; anything else runs (and fails) as one.
  std::vector<std::string> statements_of(const Script& script) const override {
    const Json steps = Json::parse(script.text, nullptr, false);
    if (!steps.is_array()) return {script.text};
    std::vector<std::string> commands;
    for (const Json& step : steps) commands.push_back(step.dump());
    return commands;
  }

  void execute(const Execution& execution) override {
    if (execution.work == nullptr) throw std::invalid_argument("execute: no work given");
    interrupted_ = false;
    time_limit_ = execution.time_limit
                      ? std::optional(std::chrono::steady_clock::now() + *execution.time_limit)
                      : std::nullopt;
    if (execution.context != nullptr) {
      execution.context->handle.mongo_client = client_.get();
      execution.context->handle.mongo_database = database_name_;
    }
    if (!execution.transactional) {
      return execute_untransacted(
          execution, [&] { run_work(execution, nullptr); },
          [&](const RecordWrite& record) { write_record(record, execution.fence); });
    }
    require_transactions();
    execute_in_transaction(execution);
  }

  // Stops the script before its next step; the step running carries maxTimeMS, so the server
  // ends it by the migration's deadline.
  void interrupt() override { interrupted_ = true; }

  bool fence_records_progress() const override { return true; }

  // The server's clock from a hello reply's localTime: one round trip, no collection touched.
  std::int64_t now_ms() override {
    Reply reply;
    bson_error_t error;
    if (!mongoc_client_command_simple(client_.get(), "admin", to_bson(Json{{"hello", 1}}).get(),
                                      primary_.get(), reply.out(), &error)) {
      fail(error, "hello", reply.get());
    }
    auto now = mongo::date_field(*reply, "localTime");
    if (!now) throw Error(ErrorCode::kUnclassified, "the server's hello reply has no localTime");
    return *now;
  }

 private:
  // What the transaction callback hands back to execute_in_transaction.
  struct TransactionRun {
    MongoStore* store;
    const Execution* execution;
    int attempts = 0;
    std::exception_ptr failure;
  };

  [[noreturn]] void fail(const bson_error_t& error, std::string_view operation,
                         const bson_t* reply) const override {
    nlohmann::json context = {{"operation", operation},
                              {"code", error.code},
                              {"message", error.message},
                              {"errorLabels", error_labels(reply)}};
    if (is_connection_error(error)) {
      context["uri"] = redacted_uri_;
      throw ConnectionFailedError(fmt::format("MongoDB at {} is unreachable ({}): {}",
                                              redacted_uri_, operation, redact(error.message)),
                                  std::move(context));
    }
    throw Error(ErrorCode::kUnclassified,
                fmt::format("MongoDB {} failed: {}", operation, error.message), std::move(context));
  }

  // Majority write concern outside a transaction; inside one the session carries it (a write
  // concern on a single operation of a transaction is an error).
  BsonPtr write_options(mongoc_client_session_t* session) const {
    BsonPtr options(bson_new());
    if (session != nullptr) {
      append_session(session, options.get());
    } else {
      Json concern_json = {{"w", "majority"}};
      if (write_timeout_) concern_json["wtimeout"] = write_timeout_->count();
      auto concern = to_bson(concern_json);
      BSON_APPEND_DOCUMENT(options.get(), "writeConcern", concern.get());
    }
    return options;
  }

  void append_session(mongoc_client_session_t* session, bson_t* options) const {
    bson_error_t error;
    if (!mongoc_client_session_append(session, options, &error)) fail(error, "session", nullptr);
  }

  using FindAndModifyOptions =
      mongo::Owned<mongoc_find_and_modify_opts_t, mongoc_find_and_modify_opts_destroy>;

  // Options of a findAndModify on the lock, with the lock's write concern.
  FindAndModifyOptions find_and_modify_options(mongoc_find_and_modify_flags_t flags) const {
    FindAndModifyOptions options(mongoc_find_and_modify_opts_new());
    mongoc_find_and_modify_opts_set_flags(options.get(), flags);
    mongoc_find_and_modify_opts_append(options.get(), write_options(nullptr).get());
    return options;
  }

  // The document a findAndModify reply carries (`value`); empty when it found none.
  static BsonPtr found_document(const bson_t& reply) {
    bson_iter_t value;
    if (!bson_iter_init_find(&value, &reply, "value") || !BSON_ITER_HOLDS_DOCUMENT(&value)) {
      return BsonPtr();
    }
    uint32_t length = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&value, &length, &data);
    return BsonPtr(bson_new_from_data(data, length));
  }

  // Whether a findAndModify inserted its document.
  static bool upserted(const bson_t& reply) {
    bson_iter_t iter;
    bson_iter_t found;
    return bson_iter_init(&iter, &reply) &&
           bson_iter_find_descendant(&iter, "lastErrorObject.upserted", &found);
  }

  BsonPtr find_lock(const Json& filter, mongoc_client_session_t* session) const {
    BsonPtr options(bson_new());
    BSON_APPEND_INT64(options.get(), "limit", 1);
    if (session != nullptr) append_session(session, options.get());
    mongo::CursorPtr cursor(mongoc_collection_find_with_opts(locks_.get(), to_bson(filter).get(),
                                                             options.get(), primary_.get()));
    const bson_t* document = nullptr;
    if (mongoc_cursor_next(cursor.get(), &document)) return BsonPtr(bson_copy(document));
    bson_error_t error;
    const bson_t* reply = nullptr;
    if (mongoc_cursor_error_document(cursor.get(), &error, &reply)) {
      fail(error, "lock read", reply);
    }
    return BsonPtr();
  }

  // An update of the lock record scoped to owner + nonce; true when it matched.
  bool update_lock(const LockToken& token, const Json& pipeline, mongoc_client_session_t* session,
                   std::string_view operation) {
    Reply reply;
    bson_error_t error;
    if (!mongoc_collection_update_one(locks_.get(), to_bson(mongo::holder_filter(token)).get(),
                                      to_bson(pipeline).get(), write_options(session).get(),
                                      reply.out(), &error)) {
      fail(error, operation, reply.get());
    }
    return mongo::int_field(*reply, "matchedCount").value_or(0) == 1;
  }

  void write_record_with(const RecordWrite& write, mongoc_client_session_t* session) {
    const auto documents = mongo::record_update(write);
    auto options = write_options(session);
    BSON_APPEND_BOOL(options.get(), "upsert", true);
    Reply reply;
    bson_error_t error;
    if (!mongoc_collection_update_one(changelog_.get(), to_bson(documents.filter).get(),
                                      to_bson(documents.update).get(), options.get(), reply.out(),
                                      &error)) {
      // The record exists and is applied: the filter skipped it, the upsert then collided
      // with it on the unique name index. Left untouched, as asked.
      if (write.skip_if_applied && error.code == 11000) return;
      fail(error, "changelog write", reply.get());
    }
  }

  void require_transactions() {
    bson_error_t error;
    mongoc_server_description_t* server =
        mongoc_client_select_server(client_.get(), true, nullptr, &error);
    if (server == nullptr) fail(error, "server selection", nullptr);
    const std::string type = mongoc_server_description_type(server);
    mongoc_server_description_destroy(server);
    if (type != "RSPrimary" && type != "Mongos" && type != "LoadBalancer") {
      throw TransactionsUnsupportedError(
          "MongoDB transactions need a replica set or a sharded cluster; this server is " + type +
              ". Set useTransaction to false, or run a replica set (a single-node one will do).",
          {{"serverType", type}});
    }
  }

  void execute_in_transaction(const Execution& execution) {
    bson_error_t error;
    mongo::SessionPtr session(mongoc_client_start_session(client_.get(), nullptr, &error));
    if (!session) fail(error, "session start", nullptr);
    mongo::Owned<mongoc_transaction_opt_t, mongoc_transaction_opts_destroy> options(
        mongoc_transaction_opts_new());
    mongo::Owned<mongoc_write_concern_t, mongoc_write_concern_destroy> majority(
        mongoc_write_concern_new());
    mongoc_write_concern_set_w(majority.get(), MONGOC_WRITE_CONCERN_W_MAJORITY);
    mongoc_transaction_opts_set_write_concern(options.get(), majority.get());
    mongoc_transaction_opts_set_read_prefs(options.get(), primary_.get());

    TransactionRun run{this, &execution, 0, nullptr};
    Reply reply;
    const bool committed = mongoc_client_session_with_transaction(
        session.get(), &MongoStore::transaction_body, options.get(), &run, reply.out(), &error);
    if (execution.context != nullptr) execution.context->handle.mongo_session = nullptr;
    if (run.failure) std::rethrow_exception(run.failure);
    if (committed) return;
    if (is_connection_error(error)) fail(error, "transaction commit", reply.get());
    // Nothing was applied: the migration failed, and the engine records it so.
    throw MigrationExecutionFailedError(
        fmt::format("the migration's transaction did not commit: {}", error.message),
        {{"code", error.code},
         {"message", error.message},
         {"errorLabels", error_labels(reply.get())}});
  }

  // The driver's with_transaction callback: may run more than once (transient errors).
  static bool transaction_body(mongoc_client_session_t* session, void* context, bson_t** reply,
                               bson_error_t* error) {
    auto& run = *static_cast<TransactionRun*>(context);
    const Execution& execution = *run.execution;
    run.failure = nullptr;
    ++run.attempts;
    try {
      if (execution.fence != nullptr &&
          !run.store->update_lock(*execution.fence, mongo::fence_pipeline(execution.progress),
                                  session, "lock fence")) {
        throw LockLostError("the lock no longer names this run; the migration was rolled back",
                            {{"reason", "fence"}});
      }
      if (execution.context != nullptr) {
        execution.context->run.attempt = run.attempts;
        execution.context->handle.mongo_session = session;
      }
      const std::int64_t elapsed_ms = timed_ms([&] { run.store->run_work(execution, session); });
      if (execution.record != nullptr) {
        run.store->write_record_with(resolve_elapsed(*execution.record, elapsed_ms), session);
      }
      return true;
    } catch (const Error& failure) {
      run.failure = std::current_exception();
      // Hand a transient server error back to the driver, which then retries the body.
      if (has_label(failure.context(), "TransientTransactionError")) {
        *reply = to_bson(Json{{"errorLabels", {"TransientTransactionError"}}}).release();
        bson_set_error(error, MONGOC_ERROR_SERVER, failure.context().value("code", 0), "%s",
                       failure.what());
      }
    } catch (...) {
      run.failure = std::current_exception();
    }
    return false;
  }

  void run_work(const Execution& execution, mongoc_client_session_t* session) {
    if (const auto* script = std::get_if<Script>(execution.work)) {
      run_script(*script, session, session == nullptr ? execution.still_held : nullptr);
      return;
    }
    run_body(execution);
  }

  // Each step is a database command, run in order; the first failure stops the script. Outside
  // a session's transaction, `still_held` is asked before each step (require_still_held).
  void run_script(const Script& script, mongoc_client_session_t* session,
                  const std::function<bool()>& still_held) {
    const Json steps = Json::parse(script.text, nullptr, false);
    if (!steps.is_array()) {
      throw MigrationExecutionFailedError("the script is not a JSON array of commands",
                                          {{"message", "not a JSON array"}});
    }
    for (std::size_t index = 0; index < steps.size(); ++index) {
      const Json& step = steps[index];
      if (interrupted_) {
        throw MigrationExecutionFailedError(
            fmt::format("step {} ({}) not started: the migration was interrupted", index,
                        command_name(step)),
            {{"step", index}, {"command", command_name(step)}, {"message", "interrupted"}});
      }
      require_still_held(still_held, index);
      BsonPtr options(bson_new());
      if (session != nullptr) append_session(session, options.get());
      if (time_limit_) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(
            *time_limit_ - std::chrono::steady_clock::now());
        BSON_APPEND_INT64(options.get(), "maxTimeMS", std::max<std::int64_t>(1, left.count()));
      }
      Reply reply;
      bson_error_t error;
      bool ok = mongoc_database_command_with_opts(database_.get(), to_bson(step).get(), nullptr,
                                                  options.get(), reply.out(), &error);
      if (ok) {
        auto write_error = write_failure(*reply);
        if (!write_error) continue;
        bson_set_error(&error, MONGOC_ERROR_SERVER, static_cast<uint32_t>(write_error->first), "%s",
                       write_error->second.c_str());
      }
      if (is_connection_error(error)) fail(error, "migration step", reply.get());
      const std::string name = command_name(step);
      throw MigrationExecutionFailedError(
          fmt::format("step {} ({}) failed: {}", index, name, error.message),
          {{"step", index},
           {"command", name},
           {"code", error.code},
           {"message", error.message},
           {"errorLabels", error_labels(reply.get())}});
    }
  }

  mongo::ClientPtr client_;
  // The lock client's bound on waiting for a majority: a renewal that cannot reach one in time
  // fails instead of waiting (the socket timeout bounds the rest).
  std::optional<std::chrono::milliseconds> write_timeout_;
  std::atomic<bool> interrupted_ = false;  // set by interrupt(), checked before each step
  std::string database_name_;
  std::string redacted_uri_;
  mongo::DatabasePtr database_;
  mongo::CollectionPtr locks_;
  mongo::CollectionPtr changelog_;
  std::string changelog_name_;
  std::string lock_name_;
  mongo::ReadPrefsPtr primary_;
  std::optional<std::chrono::steady_clock::time_point> time_limit_;  // the running execution's
  bool schema_ready_ = false;
};

}  // namespace

// Reads create nothing on MongoDB (databases and collections appear on first write), so
// options.access changes nothing here.
std::unique_ptr<Store> open_mongo_store(const Config& config, const ConnectionOptions& options) {
  static std::once_flag initialized;
  std::call_once(initialized, mongoc_init);

  const std::string redacted = redact_uri(config.uri);
  bson_error_t error;
  mongo::UriPtr uri(mongoc_uri_new_with_error(config.uri.c_str(), &error));
  // The driver's parse messages may quote the URI; only the redacted form is ever shown.
  if (!uri) throw ConfigInvalidError("invalid MongoDB URI " + redacted, {{"key", "uri"}});
  // The password as the driver reads it is masked in every message from now on.
  if (const char* password = mongoc_uri_get_password(uri.get())) remember_secret(password);

  std::string database = config.db_name;
  if (database.empty() && mongoc_uri_get_database(uri.get()) != nullptr) {
    database = mongoc_uri_get_database(uri.get());
  }
  if (database.empty()) {
    throw ConfigInvalidError(
        "MongoDB needs a database name: set dbName (--db) or put it in the URI path",
        {{"key", "dbName"}});
  }
  if (mongoc_uri_get_option_as_int32(uri.get(), MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 0) <= 0) {
    mongoc_uri_set_option_as_int32(uri.get(), MONGOC_URI_SERVERSELECTIONTIMEOUTMS,
                                   kDefaultServerSelectionTimeoutMs);
  }
  std::optional<std::chrono::milliseconds> write_timeout;
  if (options.statement_bound) {
    // The lock client: every round trip gives up by the bound, a majority wait by half of it.
    const auto bound = static_cast<std::int32_t>(options.statement_bound->count());
    mongoc_uri_set_option_as_int32(uri.get(), MONGOC_URI_SOCKETTIMEOUTMS, bound);
    mongoc_uri_set_option_as_int32(uri.get(), MONGOC_URI_SERVERSELECTIONTIMEOUTMS, bound);
    write_timeout = std::max(std::chrono::milliseconds(1), *options.statement_bound / 2);
  }
  if (mongoc_uri_get_appname(uri.get()) == nullptr) {
    mongoc_uri_set_appname(uri.get(), "migronaut");
  }

  mongo::ClientPtr client(mongoc_client_new_from_uri_with_error(uri.get(), &error));
  if (!client) {
    throw ConfigInvalidError(
        fmt::format("cannot use MongoDB URI {}: {}", redacted, redact(error.message)),
        {{"key", "uri"}});
  }
  mongoc_client_set_error_api(client.get(), MONGOC_ERROR_API_VERSION_2);

  Reply reply;
  if (!mongoc_client_command_simple(client.get(), "admin", to_bson(Json{{"ping", 1}}).get(),
                                    nullptr, reply.out(), &error)) {
    throw ConnectionFailedError(
        fmt::format("cannot connect to MongoDB at {}: {}", redacted, redact(error.message)),
        {{"uri", redacted}, {"code", error.code}});
  }
  return std::make_unique<MongoStore>(std::move(client), std::move(database), config, redacted,
                                      write_timeout);
}

}  // namespace migronaut

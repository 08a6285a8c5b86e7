#include "store/mongo/commands.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

#include "store/mongo/bson.hpp"

namespace migronaut::mongo {
namespace {

Json literal(std::string_view text) { return {{"$literal", text}}; }

// A changelog value as a pipeline expression: strings as $literal, times as BSON dates,
// ServerNow as $$NOW.
Json field_value(Field field, const FieldValue& value) {
  return std::visit(
      [&](const auto& held) -> Json {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, ServerNow>) {
          return "$$NOW";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return literal(held);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return is_time_field(field) ? date_json(held) : Json(held);
        } else {
          // WorkElapsed is resolved by execute() before the record is written.
          throw std::logic_error("changelog write with an unresolved WorkElapsed value");
        }
      },
      value);
}

}  // namespace

Json lock_id_filter() { return {{"_id", kLockId}}; }

Json holder_filter(const LockToken& token) {
  return {{"_id", kLockId}, {"owner", token.owner}, {"nonce", token.nonce}};
}

Json acquire_pipeline(const LockClaim& claim) {
  const Json stale = {
      {"$lt",
       {{{"$ifNull", {"$lockedAt", date_json(0)}}},
        {{"$subtract", {"$$NOW", {{"$max", {{{"$ifNull", {"$ttlMs", 0}}}, claim.ttl_ms}}}}}}}}};
  // Field order as the JavaScript original writes it.
  const Json holder = {{"_id", literal(kLockId)},
                       {"lockedAt", "$$NOW"},
                       {"pid", claim.pid},
                       {"host", literal(claim.host)},
                       {"executedBy", literal(claim.executed_by)},
                       {"owner", literal(claim.owner)},
                       {"nonce", literal(claim.nonce)},
                       {"ttlMs", claim.ttl_ms}};
  return Json::array({{{"$replaceWith", {{"$cond", {stale, holder, "$$ROOT"}}}}}});
}

Json renew_pipeline(const LockProgress& progress) {
  return Json::array({{{"$set",
                        {{"lockedAt", "$$NOW"},
                         {"migration", literal(progress.migration)},
                         {"step", progress.step},
                         {"total", progress.total}}}}});
}

Json fence_pipeline() { return Json::array({{{"$set", {{"lockedAt", "$$NOW"}}}}}); }

UpdateDocuments record_update(const RecordWrite& write) {
  Json filter = {{"name", write.name}};
  if (write.skip_if_applied) filter["status"] = {{"$ne", "applied"}};

  Json set = {{"name", literal(write.name)}};
  for (const auto& [field, value] : write.set) {
    set[std::string(field_name(field))] = field_value(field, value);
  }
  for (const auto& [field, value] : write.set_on_insert) {
    const std::string name(field_name(field));
    set[name] = {{"$ifNull", {"$" + name, field_value(field, value)}}};
  }
  Json pipeline = Json::array({{{"$set", set}}});
  if (!write.unset.empty()) {
    Json fields = Json::array();
    for (Field field : write.unset) fields.push_back(field_name(field));
    pipeline.push_back({{"$unset", fields}});
  }
  return {std::move(filter), std::move(pipeline)};
}

Json changelog_indexes_command(std::string_view collection) {
  auto index = [](Json key, std::string_view name) { return Json{{"key", key}, {"name", name}}; };
  Json name_unique = index({{"name", 1}}, "name_unique");
  name_unique["unique"] = true;
  return {{"createIndexes", collection},
          {"indexes",
           {name_unique, index({{"status", 1}, {"batch", -1}}, "status_batch"),
            index({{"batch", 1}}, "batch"), index({{"status", 1}, {"name", 1}}, "status_name"),
            index({{"status", 1}, {"appliedAt", -1}, {"name", -1}}, "status_appliedAt_name")}}};
}

LockInfo lock_info_from_bson(const bson_t& document) {
  LockInfo info;
  info.locked_at_ms = date_field(document, "lockedAt").value_or(0);
  info.ttl_ms = int_field(document, "ttlMs").value_or(0);
  info.run_id = string_field(document, "owner").value_or("");
  info.pid = int_field(document, "pid").value_or(0);
  info.host = string_field(document, "host").value_or("");
  info.executed_by = string_field(document, "executedBy").value_or("");
  info.migration = string_field(document, "migration").value_or("");
  info.step = int_field(document, "step").value_or(0);
  info.total = int_field(document, "total").value_or(0);
  return info;
}

ChangelogRecord record_from_bson(const bson_t& document) {
  ChangelogRecord record;
  auto text = [&](const char* key) { return string_field(document, key).value_or(""); };
  record.name = text("name");
  record.batch = int_field(document, "batch").value_or(0);
  record.status = read_record_status(record.name, string_field(document, "status"));
  record.applied_at_ms = date_field(document, "appliedAt");
  record.first_applied_at_ms = date_field(document, "firstAppliedAt");
  record.reverted_at_ms = date_field(document, "revertedAt");
  record.failed_at_ms = date_field(document, "failedAt");
  record.error = text("error");
  record.failed_checksum = text("failedChecksum");
  record.duration_ms = int_field(document, "duration").value_or(0);
  record.checksum = text("checksum");
  record.environment = text("environment");
  record.executed_by = text("executedBy");
  record.run_id = text("runId");
  record.description = text("description");
  record.origin = text("origin");
  record.requested_by = text("requestedBy");
  record.reason = text("reason");
  return record;
}

}  // namespace migronaut::mongo

#include "store/mongo/commands.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "store/mongo/bson.hpp"
#include "store/rows.hpp"

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

Json renew_pipeline(const LockProgress& progress) { return fence_pipeline(&progress); }

Json fence_pipeline(const LockProgress* progress) {
  Json set = {{"lockedAt", "$$NOW"}};
  if (progress) {
    set["migration"] = literal(progress->migration);
    set["step"] = progress->step;
    set["total"] = progress->total;
  }
  return Json::array({{{"$set", set}}});
}

UpdateDocuments record_update(const RecordWrite& write) {
  Json filter = {{"name", write.name}};
  if (write.skip_if_applied) filter["status"] = {{"$ne", "applied"}};

  Json set = {{"name", literal(write.name)}};
  for (const auto& [field, value] : write.set) {
    set[std::string(field_name(field))] = field_value(field, value);
  }
  for (const auto& [field, value] : write.set_if_absent) {
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

namespace {

// A reader of `document`'s fields: times are BSON dates, other numbers any BSON number.
template <typename Key>
RowReader<Key> fields_of(const bson_t& document, std::string_view (*name)(Key),
                         bool (*is_date)(Key)) {
  return {[&document, name, is_date](Key key) {
            const std::string field(name(key));
            return is_date(key) ? date_field(document, field.c_str())
                                : int_field(document, field.c_str());
          },
          [&document, name](Key key) {
            return string_field(document, std::string(name(key)).c_str());
          }};
}

bool is_lock_date(LockField field) { return field == LockField::kLockedAt; }

}  // namespace

LockInfo lock_info_from_bson(const bson_t& document) {
  return read_lock_row(fields_of(document, lock_field_name, is_lock_date));
}

AcquireResult acquire_outcome(const LockClaim& claim, const bson_t* previous,
                              const bson_t* current) {
  const auto info = [](const bson_t* document) {
    return document != nullptr ? std::optional(lock_info_from_bson(*document)) : std::nullopt;
  };
  if (current != nullptr && string_field(*current, "owner") == claim.owner &&
      string_field(*current, "nonce") == claim.nonce) {
    return {.acquired = true, .holder = std::nullopt, .reclaimed = info(previous)};
  }
  return {.acquired = false, .holder = info(current), .reclaimed = std::nullopt};
}

ChangelogRecord record_from_bson(const bson_t& document) {
  return read_record(string_field(document, "name").value_or(""),
                     fields_of(document, field_name, is_time_field));
}

}  // namespace migronaut::mongo

#include "store/mongo/bson.hpp"

#include <stdexcept>

namespace migronaut::mongo {

BsonPtr bson_from_json(std::string_view extended_json) {
  bson_error_t error;
  bson_t* document = bson_new_from_json(reinterpret_cast<const uint8_t*>(extended_json.data()),
                                        static_cast<ssize_t>(extended_json.size()), &error);
  if (document == nullptr) throw std::invalid_argument(error.message);
  return BsonPtr(document);
}

BsonPtr to_bson(const nlohmann::ordered_json& document) {
  return bson_from_json(
      document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

nlohmann::ordered_json to_json(const bson_t& document) {
  size_t length = 0;
  char* text = bson_as_canonical_extended_json(&document, &length);
  auto parsed = nlohmann::ordered_json::parse(std::string_view(text, length));
  bson_free(text);
  return parsed;
}

namespace {

std::optional<bson_iter_t> find(const bson_t& document, const char* key) {
  bson_iter_t iter;
  if (!bson_iter_init_find(&iter, &document, key)) return std::nullopt;
  return iter;
}

}  // namespace

std::optional<std::int64_t> int_field(const bson_t& document, const char* key) {
  auto iter = find(document, key);
  if (!iter || !BSON_ITER_HOLDS_NUMBER(&*iter)) return std::nullopt;
  return bson_iter_as_int64(&*iter);
}

std::optional<std::string> string_field(const bson_t& document, const char* key) {
  auto iter = find(document, key);
  if (!iter || !BSON_ITER_HOLDS_UTF8(&*iter)) return std::nullopt;
  uint32_t length = 0;
  const char* text = bson_iter_utf8(&*iter, &length);
  return std::string(text, length);
}

std::optional<std::int64_t> date_field(const bson_t& document, const char* key) {
  auto iter = find(document, key);
  if (!iter) return std::nullopt;
  if (BSON_ITER_HOLDS_DATE_TIME(&*iter)) return bson_iter_date_time(&*iter);
  if (BSON_ITER_HOLDS_NUMBER(&*iter)) return bson_iter_as_int64(&*iter);
  return std::nullopt;
}

nlohmann::ordered_json date_json(std::int64_t ms_since_epoch) {
  return {{"$date", {{"$numberLong", std::to_string(ms_since_epoch)}}}};
}

}  // namespace migronaut::mongo

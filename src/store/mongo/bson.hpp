// Owning handles for libbson and libmongoc objects, and conversions between BSON and the JSON
// the command builders produce.
#pragma once

#include <bson/bson.h>
#include <mongoc/mongoc.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace migronaut::mongo {

template <typename T, void (*Destroy)(T*)>
struct Destroyer {
  void operator()(T* handle) const { Destroy(handle); }
};
template <typename T, void (*Destroy)(T*)>
using Owned = std::unique_ptr<T, Destroyer<T, Destroy>>;

// An owned heap bson_t. Not a std::unique_ptr: bson_t is over-aligned, and GCC drops (and
// warns about) that attribute on a template argument.
class BsonPtr {
 public:
  BsonPtr() = default;
  explicit BsonPtr(bson_t* document) : document_(document) {}
  BsonPtr(BsonPtr&& other) noexcept : document_(other.release()) {}
  BsonPtr& operator=(BsonPtr&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  BsonPtr(const BsonPtr&) = delete;
  BsonPtr& operator=(const BsonPtr&) = delete;
  ~BsonPtr() { reset(nullptr); }

  bson_t* get() const { return document_; }
  const bson_t& operator*() const { return *document_; }
  explicit operator bool() const { return document_ != nullptr; }
  bson_t* release() {
    bson_t* document = document_;
    document_ = nullptr;
    return document;
  }

 private:
  void reset(bson_t* document) {
    if (document_ != nullptr) bson_destroy(document_);
    document_ = document;
  }
  bson_t* document_ = nullptr;
};
using ClientPtr = Owned<mongoc_client_t, mongoc_client_destroy>;
using CollectionPtr = Owned<mongoc_collection_t, mongoc_collection_destroy>;
using DatabasePtr = Owned<mongoc_database_t, mongoc_database_destroy>;
using CursorPtr = Owned<mongoc_cursor_t, mongoc_cursor_destroy>;
using SessionPtr = Owned<mongoc_client_session_t, mongoc_client_session_destroy>;
using UriPtr = Owned<mongoc_uri_t, mongoc_uri_destroy>;
using ReadPrefsPtr = Owned<mongoc_read_prefs_t, mongoc_read_prefs_destroy>;

// A reply document on the stack, always destroyed.
class Reply {
 public:
  Reply() { bson_init(&doc_); }
  ~Reply() { bson_destroy(&doc_); }
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;
  bson_t* get() { return &doc_; }
  const bson_t& operator*() const { return doc_; }
  // For an out-parameter the driver initializes itself, on success and failure alike.
  bson_t* out() {
    bson_destroy(&doc_);
    return &doc_;
  }

 private:
  bson_t doc_;
};

// A document written as MongoDB Extended JSON (canonical or relaxed) → BSON. Key order is kept,
// so the command name stays first. Throws std::invalid_argument when libbson rejects it.
BsonPtr to_bson(const nlohmann::ordered_json& document);
BsonPtr bson_from_json(std::string_view extended_json);
// BSON → canonical Extended JSON (tests and error contexts).
nlohmann::ordered_json to_json(const bson_t& document);

// Field readers that accept whatever numeric type a writer used (the JavaScript driver writes
// int32 or double, this store int32 or int64).
std::optional<std::int64_t> int_field(const bson_t& document, const char* key);
std::optional<std::string> string_field(const bson_t& document, const char* key);
// A BSON date as ms since the epoch (a plain number is accepted as ms too).
std::optional<std::int64_t> date_field(const bson_t& document, const char* key);

// Canonical Extended JSON for a BSON date.
nlohmann::ordered_json date_json(std::int64_t ms_since_epoch);

}  // namespace migronaut::mongo

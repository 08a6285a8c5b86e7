#include "source/json_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 5> kKeys = {"description", "useTransaction", "timeoutMs",
                                                   "up", "down"};
constexpr std::int64_t kMaxTimeoutMs = std::numeric_limits<std::int32_t>::max();

[[noreturn]] void fail(std::string_view name, const std::string& reason) {
  throw MigrationInvalidFormatError(fmt::format("Invalid migration {}: {}", name, reason),
                                    {{"file", name}, {"reason", reason}});
}

json parse_document(std::string_view name, std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& error) {
    fail(name, fmt::format("not valid JSON ({})", error.what()));
  }
}

void check_keys(std::string_view name, const json& document) {
  if (!document.is_object()) fail(name, "the file must hold a JSON object");
  for (const auto& [key, value] : document.items()) {
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      fail(name, fmt::format("unknown key \"{}\" (allowed: description, useTransaction, "
                             "timeoutMs, up, down)",
                             key));
    }
  }
}

// The steps of one direction as a Script, or nullopt when there are none.
std::optional<Work> steps(std::string_view name, const json& document, std::string_view key) {
  const auto found = document.find(key);
  if (found == document.end()) return std::nullopt;
  if (!found->is_array()) fail(name, fmt::format("\"{}\" must be an array of commands", key));
  for (std::size_t i = 0; i < found->size(); ++i) {
    const json& step = (*found)[i];
    if (!step.is_object() || step.empty()) {
      fail(name, fmt::format("\"{}\"[{}] must be a command object", key, i));
    }
  }
  if (found->empty()) return std::nullopt;
  return Script{found->dump()};
}

std::optional<std::chrono::milliseconds> timeout(std::string_view name, const json& document) {
  const auto found = document.find("timeoutMs");
  if (found == document.end()) return std::nullopt;
  if (!found->is_number_integer() || *found < 1 || *found > kMaxTimeoutMs) {
    fail(name,
         fmt::format("\"timeoutMs\" must be a positive integer no greater than {}", kMaxTimeoutMs));
  }
  return std::chrono::milliseconds(found->get<std::int64_t>());
}

}  // namespace

Migration parse_json_migration(std::string_view name, std::string_view text) {
  const json document = parse_document(name, text);
  check_keys(name, document);
  Migration migration;
  migration.name = name;
  if (const auto description = document.find("description"); description != document.end()) {
    if (!description->is_string()) fail(name, "\"description\" must be a string");
    migration.description = description->get<std::string>();
  }
  if (const auto use = document.find("useTransaction"); use != document.end()) {
    if (!use->is_boolean()) fail(name, "\"useTransaction\" must be true or false");
    migration.options.transactional = use->get<bool>();
  }
  migration.timeout = timeout(name, document);
  if (!document.contains("up")) fail(name, "\"up\" must be an array of commands");
  std::optional<Work> up = steps(name, document, "up");
  migration.up_empty = !up.has_value();
  migration.up = up.value_or(Script{"[]"});
  migration.down = steps(name, document, "down");
  return migration;
}

}  // namespace migronaut

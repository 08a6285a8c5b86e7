// Configuration layers. One table, kKeys, says for every key its JSON name, its
// environment variable, its type and where it lands in Config; parsing, validation and the
// merge of defaults < file < environment < flags are all driven by it.
#include "migronaut/config.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <vector>

#include "core/env_file.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "store/registry.hpp"
#include "store/store.hpp"
#include "util/file.hpp"
#include "util/redact.hpp"
#include "util/sqlite_uri.hpp"
#include "util/text.hpp"

extern char** environ;

namespace migronaut {
namespace {

using nlohmann::json;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::string_view kConfigFileName = "migronaut.config.json";
constexpr std::string_view kDefaultEnvFile = ".env";

enum class Type {
  kString,
  kUri,         // a connection string with a supported scheme
  kPath,        // a non-empty string; relative paths resolve against the working directory
                // (in a config file: against the file's folder)
  kFolder,      // a kPath that is not the filesystem root
  kIdentifier,  // a table or collection name
  kBool,
  kPositiveInt,
  kEnum,
  kEnvFile,  // a path, or `false` for no .env at all
  kTool,     // another migration tool, as `import --from` names it
  kTable,    // a kIdentifier, or `schema.table`
};

struct KeySpec {
  std::string_view name;  // as in migronaut.config.json and the flags layer
  std::string_view variable;
  Type type;
  std::span<const std::string_view> allowed = {};  // kEnum
  std::int64_t max = kInt32Max;                    // kPositiveInt
  std::int64_t min = 1;                            // kPositiveInt: 0 where 0 means "off"
  void (*apply)(Config&, const json&) = nullptr;   // absent: the key shapes loading only
  json (*read)(const Config&) = nullptr;           // the value back, to validate a Config
};

// Who the records name as having run the migrations (Config::executed_by); not a key of the file.
constexpr std::string_view kUserVariable = "MIGRONAUT_USER";

// Allowed values in the order of their enum's enumerators, so a value's index is its enumerator.
constexpr std::array<std::string_view, 2> kOnLockLost = {"abort", "warn"};
constexpr std::array<std::string_view, 3> kOnOutOfOrder = {"warn", "error", "allow"};
constexpr std::array<std::string_view, 2> kFlywayPlaceholders = {"refuse", "literal"};
constexpr std::array<std::string_view, 2> kOnLockHeld = {"throw", "wait"};

template <typename E, std::size_t N>
E enum_at(const std::array<std::string_view, N>& names, const json& value) {
  const auto found = std::find(names.begin(), names.end(), value.get<std::string>());
  return static_cast<E>(found - names.begin());
}

// The enumerator's name, or its number when it is none of them (a cast in code), which
// validation then rejects.
template <typename E, std::size_t N>
json enum_name(const std::array<std::string_view, N>& names, E value) {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? json(names[index]) : json(index);
}

template <typename T>
json optional_value(const std::optional<T>& value) {
  return value ? json(*value) : json();
}

const std::array<KeySpec, 23> kKeys = {{
    {.name = "uri",
     .variable = "MIGRONAUT_URI",
     .type = Type::kUri,
     .apply = [](Config& c, const json& v) { c.uri = v; },
     .read = [](const Config& c) -> json { return c.uri; }},
    {.name = "dbName",
     .variable = "MIGRONAUT_DB",
     .type = Type::kString,
     .apply = [](Config& c, const json& v) { c.db_name = v; },
     .read = [](const Config& c) -> json { return c.db_name; }},
    {.name = "migrationsDir",
     .variable = "MIGRONAUT_MIGRATIONS_DIR",
     .type = Type::kFolder,
     .apply = [](Config& c, const json& v) { c.migrations_dir = v.get<std::string>(); },
     .read = [](const Config& c) -> json { return c.migrations_dir.string(); }},
    {.name = "migrationsCollection",
     .variable = "MIGRONAUT_COLLECTION",
     .type = Type::kIdentifier,
     .apply = [](Config& c, const json& v) { c.migrations_table = v; },
     .read = [](const Config& c) -> json { return c.migrations_table; }},
    {.name = "lockCollection",
     .variable = "MIGRONAUT_LOCK_COLLECTION",
     .type = Type::kIdentifier,
     .apply = [](Config& c, const json& v) { c.lock_table = v; },
     .read = [](const Config& c) -> json { return c.lock_table; }},
    // Capped so that lock_ttl_ms() stays a valid 32-bit interval.
    {.name = "lockTTLSeconds",
     .variable = "MIGRONAUT_LOCK_TTL",
     .type = Type::kPositiveInt,
     .max = kInt32Max / 1000,
     .apply = [](Config& c, const json& v) { c.lock_ttl_seconds = v; },
     .read = [](const Config& c) -> json { return c.lock_ttl_seconds; }},
    {.name = "strict",
     .variable = "MIGRONAUT_STRICT",
     .type = Type::kBool,
     .apply = [](Config& c, const json& v) { c.strict = v; },
     .read = [](const Config& c) -> json { return c.strict; }},
    {.name = "useTransaction",
     .variable = "MIGRONAUT_USE_TRANSACTION",
     .type = Type::kBool,
     .apply = [](Config& c, const json& v) { c.use_transaction = v.get<bool>(); },
     .read = [](const Config& c) -> json { return optional_value(c.use_transaction); }},
    {.name = "sequential",
     .variable = "MIGRONAUT_SEQUENTIAL",
     .type = Type::kBool,
     .apply = [](Config& c, const json& v) { c.sequential = v; },
     .read = [](const Config& c) -> json { return c.sequential; }},
    {.name = "templatePath",
     .variable = "MIGRONAUT_TEMPLATE_PATH",
     .type = Type::kPath,
     .apply = [](Config& c, const json& v) { c.template_path = v.get<std::string>(); },
     .read = [](const Config& c) -> json {
       return c.template_path.empty() ? json() : json(c.template_path.string());
     }},
    {.name = "timeoutMs",
     .variable = "MIGRONAUT_TIMEOUT_MS",
     .type = Type::kPositiveInt,
     .apply = [](Config& c, const json& v) { c.timeout_ms = v.get<std::int64_t>(); },
     .read = [](const Config& c) -> json { return optional_value(c.timeout_ms); }},
    {.name = "envFile", .variable = "MIGRONAUT_ENV_FILE", .type = Type::kEnvFile},
    {.name = "environment",
     .variable = "MIGRONAUT_ENVIRONMENT",
     .type = Type::kString,
     .apply = [](Config& c, const json& v) { c.environment = v; },
     .read = [](const Config& c) -> json { return c.environment; }},
    {.name = "onLockLost",
     .variable = "MIGRONAUT_ON_LOCK_LOST",
     .type = Type::kEnum,
     .allowed = kOnLockLost,
     .apply = [](Config& c,
                 const json& v) { c.on_lock_lost = enum_at<OnLockLost>(kOnLockLost, v); },
     .read = [](const Config& c) -> json { return enum_name(kOnLockLost, c.on_lock_lost); }},
    {.name = "onOutOfOrder",
     .variable = "MIGRONAUT_ON_OUT_OF_ORDER",
     .type = Type::kEnum,
     .allowed = kOnOutOfOrder,
     .apply = [](Config& c,
                 const json& v) { c.on_out_of_order = enum_at<OnOutOfOrder>(kOnOutOfOrder, v); },
     .read = [](const Config& c) -> json { return enum_name(kOnOutOfOrder, c.on_out_of_order); }},
    {.name = "onLockHeld",
     .variable = "MIGRONAUT_ON_LOCK_HELD",
     .type = Type::kEnum,
     .allowed = kOnLockHeld,
     .apply = [](Config& c,
                 const json& v) { c.on_lock_held = enum_at<OnLockHeld>(kOnLockHeld, v); },
     .read = [](const Config& c) -> json { return enum_name(kOnLockHeld, c.on_lock_held); }},
    {.name = "lockWaitTimeoutMs",
     .variable = "MIGRONAUT_LOCK_WAIT_TIMEOUT_MS",
     .type = Type::kPositiveInt,
     .apply = [](Config& c, const json& v) { c.lock_wait_timeout_ms = v.get<std::int64_t>(); },
     .read = [](const Config& c) -> json { return optional_value(c.lock_wait_timeout_ms); }},
    {.name = "lockPollIntervalMs",
     .variable = "MIGRONAUT_LOCK_POLL_INTERVAL_MS",
     .type = Type::kPositiveInt,
     .apply = [](Config& c, const json& v) { c.lock_poll_interval_ms = v; },
     .read = [](const Config& c) -> json { return c.lock_poll_interval_ms; }},
    // How long a migration's statement may queue for a table lock before it gives up (the
    // transaction rolls back and is tried again); 0 waits forever, as PostgreSQL does.
    {.name = "lockTimeoutMs",
     .variable = "MIGRONAUT_LOCK_TIMEOUT_MS",
     .type = Type::kPositiveInt,
     .min = 0,
     .apply = [](Config& c, const json& v) { c.lock_timeout_ms = v; },
     .read = [](const Config& c) -> json { return c.lock_timeout_ms; }},
    {.name = "lockRetries",
     .variable = "MIGRONAUT_LOCK_RETRIES",
     .type = Type::kPositiveInt,
     .max = 1000,
     .min = 0,
     .apply = [](Config& c, const json& v) { c.lock_retries = v; },
     .read = [](const Config& c) -> json { return c.lock_retries; }},
    {.name = "importFrom",
     .variable = "MIGRONAUT_IMPORT_FROM",
     .type = Type::kTool,
     .apply = [](Config& c, const json& v) { c.import_from = v; },
     .read = [](const Config& c) -> json {
       return c.import_from.empty() ? json() : json(c.import_from);
     }},
    {.name = "importTable",
     .variable = "MIGRONAUT_IMPORT_TABLE",
     .type = Type::kTable,
     .apply = [](Config& c, const json& v) { c.import_table = v; },
     .read = [](const Config& c) -> json {
       return c.import_table.empty() ? json() : json(c.import_table);
     }},
    {.name = "flywayPlaceholders",
     .variable = "MIGRONAUT_FLYWAY_PLACEHOLDERS",
     .type = Type::kEnum,
     .allowed = kFlywayPlaceholders,
     .apply =
         [](Config& c, const json& v) {
           c.flyway_placeholders = enum_at<FlywayPlaceholders>(kFlywayPlaceholders, v);
         },
     .read = [](const Config& c) -> json {
       return enum_name(kFlywayPlaceholders, c.flyway_placeholders);
     }},
}};

json defaults() {
  return {{"migrationsDir", "migrations"},
          {"migrationsCollection", "_migronaut_migrations"},
          {"lockCollection", "_migronaut_locks"},
          {"lockTTLSeconds", 60},
          {"strict", false},
          {"sequential", false},
          {"environment", "production"},
          {"onLockLost", "abort"},
          {"onOutOfOrder", "warn"},
          {"onLockHeld", "wait"},
          {"flywayPlaceholders", "refuse"},
          {"lockPollIntervalMs", 500},
          {"lockTimeoutMs", 5000},
          {"lockRetries", 10}};
}

// Where a value came from, for the error that rejects it: a key of a layer, or an environment
// variable and its text. Views, put into words only by reject(): every start checks every key.
struct Origin {
  std::string_view key;    // "uri", or the variable "MIGRONAUT_LOCK_TTL"
  std::string_view layer;  // "/app/migronaut.config.json"; empty for a variable
  std::string_view text;   // the variable's text
};

[[noreturn]] void reject(const Origin& origin, const std::string& problem) {
  const bool variable = origin.layer.empty();
  json context = variable
                     ? json{{"variable", origin.key}, {"value", redact(std::string(origin.text))}}
                     : json{{"key", origin.key}, {"source", origin.layer}};
  context["reason"] = redact(problem);
  const std::string where =
      variable ? std::string(origin.key) : fmt::format("\"{}\" in {}", origin.key, origin.layer);
  throw ConfigInvalidError(redact("Invalid configuration: " + where + " " + problem),
                           std::move(context));
}

std::string allowed_list(std::span<const std::string_view> allowed) {
  std::string list;
  for (std::string_view value : allowed) list += (list.empty() ? "" : ", ") + std::string(value);
  return list;
}

// A JSON number that is a whole number in 1..max, as an integer.
std::optional<std::int64_t> positive_integer(const json& value, std::int64_t min,
                                             std::int64_t max) {
  std::int64_t number = 0;
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      return std::nullopt;
    }
    number = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    const double real = value.get<double>();
    if (!std::isfinite(real) || std::trunc(real) != real || real < double(min) ||
        real > double(max)) {
      return std::nullopt;
    }
    number = static_cast<std::int64_t>(real);
  } else {
    return std::nullopt;
  }
  if (number < min || number > max) return std::nullopt;
  return number;
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7F;
  });
}

// A string value's text. A control character is refused: a NUL would cut a path short
// unseen, and a newline is a copy-paste accident.
const std::string& text_of(const json& value, const Origin& origin, const std::string& rule) {
  if (!value.is_string()) reject(origin, rule);
  const std::string& text = value.get_ref<const std::string&>();
  if (has_control_character(text)) {
    reject(origin, "contains a control character (newline, tab, NUL, …); remove it");
  }
  return text;
}

// "/", "//", "/..": a migrations folder there would read every file on the machine's top level.
bool is_filesystem_root(const std::filesystem::path& path) {
  const std::filesystem::path normal = path.lexically_normal();
  return normal.has_root_directory() && !normal.has_relative_path();
}

std::string uri_rule() { return "must be a URI starting with " + known_schemes(); }

// Checks a value from a JSON layer (file, flags, code) against its key's type and returns it
// in canonical form.
json checked(const KeySpec& key, const json& value, const Origin& origin) {
  switch (key.type) {
    case Type::kString:
      text_of(value, origin, "must be a string");
      return value;
    case Type::kUri:
      if (!has_known_scheme(text_of(value, origin, uri_rule()))) reject(origin, uri_rule());
      if (const auto problem = userinfo_encoding_problem(value.get<std::string>())) {
        reject(origin, *problem);
      }
      return value;
    case Type::kPath:
    case Type::kFolder: {
      const std::string& path = text_of(value, origin, "must be a non-empty path");
      if (path.empty()) reject(origin, "must be a non-empty path");
      if (key.type == Type::kFolder && is_filesystem_root(path)) {
        reject(origin, "is the filesystem root; name the folder that holds the migrations");
      }
      return value;
    }
    case Type::kIdentifier:
      if (!is_identifier(text_of(value, origin, "must be a name"))) {
        reject(origin, "must be a name matching ^[A-Za-z_][A-Za-z0-9_]{0,62}$");
      }
      return value;
    case Type::kBool:
      if (!value.is_boolean()) reject(origin, "must be true or false");
      return value;
    case Type::kPositiveInt:
      if (const auto number = positive_integer(value, key.min, key.max)) return *number;
      reject(origin, key.min == 0
                         ? "must be an integer from 0 (off) to " + std::to_string(key.max)
                         : "must be a positive integer no greater than " + std::to_string(key.max));
    case Type::kEnum:
      if (value.is_string() && std::find(key.allowed.begin(), key.allowed.end(),
                                         value.get<std::string>()) != key.allowed.end()) {
        return value;
      }
      reject(origin, "must be one of: " + allowed_list(key.allowed));
    case Type::kTool:
      if (const std::string& tool = text_of(value, origin, "must be a tool's name");
          !parse_foreign_tool(tool)) {
        reject(origin, unknown_foreign_tool(tool));
      }
      return value;
    case Type::kTable:
      if (!is_qualified_identifier(text_of(value, origin, "must be a table's name"))) {
        reject(origin,
               "must be a name matching ^[A-Za-z_][A-Za-z0-9_]{0,62}$, or two such as "
               "schema.table");
      }
      return value;
    case Type::kEnvFile:
      if (value == false) return value;
      if (text_of(value, origin, "must be a path or false").empty()) {
        reject(origin, "must be a path or false");
      }
      return value;
  }
  return value;
}

// Turns an environment variable's text into the JSON value its key expects; anything that does
// not parse exactly — surrounding whitespace included — is rejected, never coerced.
json from_environment(const KeySpec& key, const std::string& text, const Origin& origin) {
  if (trim(text).size() != text.size()) {
    reject(origin, "has leading or trailing whitespace; values are taken as written");
  }
  if (key.type == Type::kBool) {
    const std::string word = lower_case(text);
    if (word == "true" || word == "1" || word == "yes") return true;
    if (word == "false" || word == "0" || word == "no") return false;
    reject(origin, "must be one of true/1/yes or false/0/no");
  }
  if (key.type == Type::kPositiveInt) {
    std::int64_t number = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, number);
    if (error != std::errc() || stop != end || text.empty() ||
        !std::isdigit(static_cast<unsigned char>(text.front()))) {
      reject(origin, "must be a positive integer no greater than " + std::to_string(key.max));
    }
    return checked(key, number, origin);
  }
  return checked(key, text, origin);
}

Origin variable_origin(const KeySpec& key, const std::string& text) {
  return {key.variable, "", text};
}

Origin key_origin(std::string_view key, std::string_view layer) { return {key, layer, ""}; }

std::vector<std::string_view> key_names() {
  std::vector<std::string_view> names;
  for (const KeySpec& key : kKeys) names.push_back(key.name);
  return names;
}

bool is_known_key(std::string_view name) {
  return std::any_of(kKeys.begin(), kKeys.end(),
                     [&](const KeySpec& key) { return key.name == name; });
}

// An unknown key is a typo until shown otherwise: ignoring it would run with the default.
[[noreturn]] void reject_unknown_key(const std::string& name, const std::string& layer) {
  json context = {{"key", name}, {"source", layer}};
  std::string message = "Invalid configuration: unknown key \"" + name + "\" in " + layer;
  // The names the C++ Config's fields, and other tools, give these keys.
  static const std::map<std::string_view, std::string_view> kOtherNames = {
      {"migrationsTable", "migrationsCollection"},
      {"lockTable", "lockCollection"},
      {"migrationsDirectory", "migrationsDir"},
      {"url", "uri"},
      {"databaseUrl", "uri"}};
  const auto other = kOtherNames.find(name);
  if (const auto suggestion = other != kOtherNames.end() ? std::optional(other->second)
                                                         : near_miss(name, key_names())) {
    message += "; did you mean \"" + std::string(*suggestion) + "\"?";
    context["suggestion"] = *suggestion;
  }
  throw ConfigInvalidError(redact(message), std::move(context));
}

// The keys `document` defines, checked; nulls are left out, unknown keys refused.
json json_layer(const json& document, const std::string& layer) {
  if (!document.is_object()) {
    throw ConfigInvalidError("Invalid configuration: " + layer + " must be a JSON object",
                             {{"source", layer}});
  }
  for (auto entry = document.begin(); entry != document.end(); ++entry) {
    if (!is_known_key(entry.key())) reject_unknown_key(entry.key(), layer);
  }
  json result = json::object();
  for (const KeySpec& key : kKeys) {
    const auto found = document.find(key.name);
    if (found == document.end() || found->is_null()) continue;
    result[key.name] = checked(key, *found, key_origin(key.name, layer));
  }
  return result;
}

// The value `key`'s variable gives it, or null when the variable is not set.
json environment_value(const KeySpec& key, const std::map<std::string, std::string>& environment) {
  const auto found = environment.find(std::string(key.variable));
  if (found == environment.end()) return nullptr;
  return from_environment(key, found->second, variable_origin(key, found->second));
}

json environment_layer(const std::map<std::string, std::string>& environment) {
  json result = json::object();
  for (const KeySpec& key : kKeys) {
    json value = environment_value(key, environment);
    if (!value.is_null()) result[key.name] = std::move(value);
  }
  return result;
}

const KeySpec& key_named(std::string_view name) {
  return *std::find_if(kKeys.begin(), kKeys.end(),
                       [&](const KeySpec& key) { return key.name == name; });
}

void merge(json& base, const json& layer) {
  for (const auto& [name, value] : layer.items()) base[name] = value;
}

std::string read_text_file(const std::filesystem::path& path) {
  std::optional<std::string> content = read_whole_file(path);
  if (!content) {
    throw ConfigInvalidError("Cannot read the config file " + path.string(),
                             {{"file", path.string()}});
  }
  return std::move(*content);
}

// Parses the config file, refusing a key given twice in one object: a JSON parser keeps the
// last one silently, so a stale line further down would win unnoticed.
json parse_config_file(const std::string& text, const std::string& file) {
  std::vector<std::set<std::string>> open_objects;
  const json::parser_callback_t refuse_duplicates = [&](int, json::parse_event_t event,
                                                        json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == json::parse_event_t::object_end) open_objects.pop_back();
    if (event == json::parse_event_t::key &&
        !open_objects.back().insert(parsed.get<std::string>()).second) {
      const std::string key = parsed.get<std::string>();
      throw ConfigInvalidError(redact("Invalid configuration: the key \"" + key +
                                      "\" appears twice in " + file + "; keep one"),
                               {{"key", key}, {"source", file}, {"reason", "duplicate key"}});
    }
    return true;
  };
  try {
    return json::parse(text, refuse_duplicates);
  } catch (const json::exception& error) {
    // Parse errors, and numbers too large for a double (1e400). The parser's message ends by
    // quoting what it last read, which can be a piece of a password: cut there.
    std::string reason = error.what();
    reason.erase(std::min(reason.size(), reason.find("; last read:")));
    throw ConfigInvalidError(redact("Invalid JSON in " + file + ": " + reason),
                             {{"file", file}, {"reason", redact(reason)}});
  }
}

std::filesystem::path resolved(const std::filesystem::path& base,
                               const std::filesystem::path& path) {
  return path.empty() || path.is_absolute() ? path : (base / path).lexically_normal();
}

// The file's relative paths (sqlite: URIs included) made absolute against its folder, so a
// config file means the same from wherever it is used.
json rebased(json layer, const std::filesystem::path& folder) {
  for (auto entry = layer.begin(); entry != layer.end(); ++entry) {
    if (!entry.value().is_string()) continue;
    const std::string value = entry.value();
    switch (key_named(entry.key()).type) {
      case Type::kPath:
      case Type::kFolder:
      case Type::kEnvFile:
        entry.value() = resolved(folder, value).string();
        break;
      case Type::kUri:
        entry.value() = sqlite_uri_against(value, folder);
        break;
      default:
        break;
    }
  }
  return layer;
}

// The config file layer: the explicit path (which must exist), else ./migronaut.config.json
// when present.
json file_layer(const ConfigSources& sources) {
  std::filesystem::path path = sources.cwd / kConfigFileName;
  if (sources.config_file) {
    path = sources.cwd / *sources.config_file;
    if (!std::filesystem::is_regular_file(path)) {
      std::error_code error;
      const bool exists = std::filesystem::exists(path, error);
      throw ConfigInvalidError("The config file " + path.string() +
                                   (exists ? " is not a regular file" : " does not exist"),
                               {{"file", path.string()}});
    }
  } else if (!std::filesystem::is_regular_file(path)) {
    return json::object();
  }
  const json document = parse_config_file(read_text_file(path), path.string());
  return rebased(json_layer(document, path.string()), path.parent_path());
}

// Which .env to load: --env-file, else the flags', the environment's or the file's envFile;
// `false` anywhere means none. Only the implicit ./.env may be absent.
std::optional<std::filesystem::path> env_file_to_load(const ConfigSources& sources,
                                                      const json& file, const json& flags) {
  if (!sources.load_env_file) return std::nullopt;
  if (sources.env_file) return sources.cwd / *sources.env_file;
  json chosen = flags.value("envFile", json());
  if (chosen.is_null()) {
    chosen = environment_value(key_named("envFile"), sources.environment);
  }
  if (chosen.is_null()) chosen = file.value("envFile", json());
  if (chosen == false) return std::nullopt;
  if (chosen.is_string()) return sources.cwd / chosen.get<std::string>();
  const std::filesystem::path implicit = sources.cwd / kDefaultEnvFile;
  if (!std::filesystem::exists(implicit)) return std::nullopt;
  return implicit;
}

// A MIGRONAUT* name in the env file that nothing reads from there is a typo until shown
// otherwise, as an unknown key of the config file is: ignored, its setting would stay at the
// default without a word.
void refuse_unknown_variable(const std::string& name, const std::filesystem::path& file,
                             const std::vector<std::string>& caller_variables) {
  std::vector<std::string_view> known = config_variables();
  known.insert(known.end(), caller_variables.begin(), caller_variables.end());
  if (!name.starts_with("MIGRONAUT_") || std::ranges::find(known, name) != known.end()) return;
  json context = {{"variable", name}, {"file", file.string()}};
  std::string message =
      fmt::format("Invalid configuration: {} in the env file {} is no variable migronaut reads",
                  name, file.string());
  if (const auto suggestion = near_miss(name, known)) {
    message += fmt::format("; did you mean {}?", *suggestion);
    context["suggestion"] = *suggestion;
  }
  throw ConfigInvalidError(message, std::move(context));
}

std::map<std::string, std::string> with_env_file(const ConfigSources& sources,
                                                 const std::optional<std::filesystem::path>& path) {
  std::map<std::string, std::string> environment = sources.environment;
  if (!path) return environment;
  for (auto& [name, value] : read_env_file(*path)) {
    refuse_unknown_variable(name, *path, sources.caller_variables);
    environment.try_emplace(name, value);
  }
  return environment;
}

// How the caller of each entry point sets a URI, named when none is set (a Config built in code
// is not read from files or variables); nullopt where none is needed (`create`, `init`).
using UriHint = std::optional<std::string>;

void require_uri_set(const Config& config, const std::string& hint) {
  if (config.uri.empty()) {
    throw ConfigInvalidError("Invalid configuration: no database URI (" + hint + ")",
                             {{"key", "uri"}});
  }
}

// The lock and the changelog each need a table (collection) of their own; SQLite compares
// table names case-insensitively, so the check does too.
void reject_shared_table(const Config& config) {
  if (lower_case(config.lock_table) != lower_case(config.migrations_table)) return;
  throw ConfigInvalidError(
      "Invalid configuration: lockCollection and migrationsCollection both name \"" +
          config.lock_table + "\"; the lock and the changelog need tables of their own",
      {{"key", "lockCollection"}, {"value", config.lock_table}});
}

// A history table is another tool's: without the tool nothing would read it, and migronaut's own
// tables are none.
void reject_bad_import_table(const Config& config) {
  if (config.import_table.empty()) return;
  std::string problem;
  if (config.import_from.empty()) {
    problem = "needs importFrom, the tool whose history table it is (" + foreign_tool_list() + ")";
  }
  if (config.import_table.find('.') != std::string::npos && config.uri.starts_with("sqlite:")) {
    problem = "names a schema, which a SQLite database has none of: name the table alone";
  }
  for (const std::string& own : {config.migrations_table, config.lock_table}) {
    if (lower_case(own) == lower_case(config.import_table)) {
      problem = "is migronaut's own table; name the other tool's history table";
    }
  }
  if (problem.empty()) return;
  throw ConfigInvalidError(
      "Invalid configuration: importTable \"" + config.import_table + "\" " + problem,
      {{"key", "importTable"}, {"value", config.import_table}});
}

void validate(const Config& config, const UriHint& uri_hint) {
  if (uri_hint) require_uri_set(config, *uri_hint);
  for (const KeySpec& key : kKeys) {
    if (key.read == nullptr) continue;
    const json value = key.read(config);
    if (value.is_null() || (key.type == Type::kUri && config.uri.empty())) continue;
    checked(key, value, key_origin(key.name, "the Config"));
  }
  reject_shared_table(config);
  reject_bad_import_table(config);
}

// Applies the merged layers to a Config and validates the result.
Config build(const json& merged, const std::filesystem::path& cwd,
             const std::map<std::string, std::string>& environment, const UriHint& uri_hint) {
  Config config;
  for (const KeySpec& key : kKeys) {
    const auto found = merged.find(key.name);
    if (key.apply != nullptr && found != merged.end()) key.apply(config, *found);
  }
  config.migrations_dir = resolved(cwd, config.migrations_dir);
  config.template_path = resolved(cwd, config.template_path);
  if (const auto user = environment.find(std::string(kUserVariable)); user != environment.end()) {
    if (has_control_character(user->second)) {
      throw ConfigInvalidError(
          "MIGRONAUT_USER contains a control character (newline, tab, NUL, …); remove it",
          {{"key", kUserVariable}});
    }
    config.executed_by = user->second;
  }
  validate(config, uri_hint);
  return config;
}

}  // namespace

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    environment.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return environment;
}

std::vector<std::string_view> config_variables() {
  std::vector<std::string_view> names{kUserVariable};
  for (const KeySpec& key : kKeys) {
    if (!key.variable.empty()) names.push_back(key.variable);
  }
  return names;
}

namespace {

// The URI's secrets are known before any message can quote it: a password that ends a URI's
// text early (a quote, a space) is masked wherever it shows, in the refusal of a bad URI or the
// verbose connect line.
void remember_uri_secrets(const json& merged) {
  if (merged.contains("uri") && merged["uri"].is_string()) {
    remember_secrets(merged["uri"].get<std::string>());
  }
}

// The layers load_config reads a URI from, highest first.
UriHint layered_uri_hint(const ConfigSources& sources) {
  if (!sources.require_uri) return std::nullopt;
  return fmt::format("set {}, MIGRONAUT_URI, \"uri\" in the config file or DATABASE_URL",
                     sources.uri_flag);
}

}  // namespace

Config load_config(const ConfigSources& sources) {
  const json file = file_layer(sources);
  const json flags = json_layer(sources.flags, "flags");
  const auto environment = with_env_file(sources, env_file_to_load(sources, file, flags));
  json merged = defaults();
  merge(merged, file);
  merge(merged, environment_layer(environment));
  merge(merged, flags);
  // What Heroku, Render, Fly and Railway inject (and dbmate reads), below every layer of ours.
  if (!merged.contains("uri")) {
    KeySpec platform = key_named("uri");
    platform.variable = "DATABASE_URL";
    if (json uri = environment_value(platform, environment); !uri.is_null()) merged["uri"] = uri;
  }
  remember_uri_secrets(merged);
  return build(merged, sources.cwd, environment, layered_uri_hint(sources));
}

void validate_config(const Config& config) { validate(config, "set Config::uri"); }

Config config_from_json(const nlohmann::json& document) {
  json merged = defaults();
  merge(merged, json_layer(document, "config"));
  remember_uri_secrets(merged);
  return build(merged, std::filesystem::current_path(), process_environment(),
               "set \"uri\" in the document");
}

}  // namespace migronaut

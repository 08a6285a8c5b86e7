// Configuration layers (DESIGN §8). One table, kKeys, says for every key its JSON name, its
// environment variable, its type and where it lands in Config; parsing, validation and the
// merge of defaults < file < environment < flags are all driven by it.
#include "migronaut/config.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <span>
#include <sstream>

#include "core/env_file.hpp"
#include "migronaut/errors.hpp"
#include "store/registry.hpp"
#include "util/redact.hpp"
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
  kIdentifier,  // a table or collection name
  kBool,
  kPositiveInt,
  kEnum,
  kEnvFile,  // a path, or `false` for no .env at all
};

struct KeySpec {
  std::string_view name;  // as in migronaut.config.json and the flags layer
  std::string_view variable;
  Type type;
  std::span<const std::string_view> allowed = {};  // kEnum
  std::int64_t max = kInt32Max;                    // kPositiveInt
  void (*apply)(Config&, const json&) = nullptr;   // absent: the key shapes loading only
};

// Allowed values in the order of their enum's enumerators, so a value's index is its enumerator.
constexpr std::array<std::string_view, 2> kOnLockLost = {"abort", "warn"};
constexpr std::array<std::string_view, 3> kOnOutOfOrder = {"warn", "error", "allow"};
constexpr std::array<std::string_view, 2> kOnLockHeld = {"throw", "wait"};

template <typename E, std::size_t N>
E enum_at(const std::array<std::string_view, N>& names, const json& value) {
  const auto found = std::find(names.begin(), names.end(), value.get<std::string>());
  return static_cast<E>(found - names.begin());
}

const std::array<KeySpec, 18> kKeys = {{
    {.name = "uri",
     .variable = "MIGRONAUT_URI",
     .type = Type::kUri,
     .apply = [](Config& c, const json& v) { c.uri = v; }},
    {.name = "dbName",
     .variable = "MIGRONAUT_DB",
     .type = Type::kString,
     .apply = [](Config& c, const json& v) { c.db_name = v; }},
    {.name = "migrationsDir",
     .variable = "MIGRONAUT_MIGRATIONS_DIR",
     .type = Type::kPath,
     .apply = [](Config& c, const json& v) { c.migrations_dir = v.get<std::string>(); }},
    {.name = "migrationsCollection",
     .variable = "MIGRONAUT_COLLECTION",
     .type = Type::kIdentifier,
     .apply = [](Config& c, const json& v) { c.migrations_table = v; }},
    {.name = "lockCollection",
     .variable = "MIGRONAUT_LOCK_COLLECTION",
     .type = Type::kIdentifier,
     .apply = [](Config& c, const json& v) { c.lock_table = v; }},
    // Capped so that lock_ttl_ms() stays a valid 32-bit interval.
    {.name = "lockTTLSeconds",
     .variable = "MIGRONAUT_LOCK_TTL",
     .type = Type::kPositiveInt,
     .max = kInt32Max / 1000,
     .apply = [](Config& c, const json& v) { c.lock_ttl_seconds = v; }},
    {.name = "strict",
     .variable = "MIGRONAUT_STRICT",
     .type = Type::kBool,
     .apply = [](Config& c, const json& v) { c.strict = v; }},
    {.name = "useTransaction",
     .variable = "MIGRONAUT_USE_TRANSACTION",
     .type = Type::kBool,
     .apply = [](Config& c, const json& v) { c.use_transaction = v.get<bool>(); }},
    {.name = "sequential",
     .variable = "MIGRONAUT_SEQUENTIAL",
     .type = Type::kBool,
     .apply = [](Config& c, const json& v) { c.sequential = v; }},
    {.name = "templatePath",
     .variable = "MIGRONAUT_TEMPLATE_PATH",
     .type = Type::kPath,
     .apply = [](Config& c, const json& v) { c.template_path = v.get<std::string>(); }},
    {.name = "timeoutMs",
     .variable = "MIGRONAUT_TIMEOUT_MS",
     .type = Type::kPositiveInt,
     .apply = [](Config& c, const json& v) { c.timeout_ms = v.get<std::int64_t>(); }},
    {.name = "envFile", .variable = "MIGRONAUT_ENV_FILE", .type = Type::kEnvFile},
    {.name = "environment",
     .variable = "MIGRONAUT_ENVIRONMENT",
     .type = Type::kString,
     .apply = [](Config& c, const json& v) { c.environment = v; }},
    {.name = "onLockLost",
     .variable = "MIGRONAUT_ON_LOCK_LOST",
     .type = Type::kEnum,
     .allowed = kOnLockLost,
     .apply = [](Config& c,
                 const json& v) { c.on_lock_lost = enum_at<OnLockLost>(kOnLockLost, v); }},
    {.name = "onOutOfOrder",
     .variable = "MIGRONAUT_ON_OUT_OF_ORDER",
     .type = Type::kEnum,
     .allowed = kOnOutOfOrder,
     .apply = [](Config& c,
                 const json& v) { c.on_out_of_order = enum_at<OnOutOfOrder>(kOnOutOfOrder, v); }},
    {.name = "onLockHeld",
     .variable = "MIGRONAUT_ON_LOCK_HELD",
     .type = Type::kEnum,
     .allowed = kOnLockHeld,
     .apply = [](Config& c,
                 const json& v) { c.on_lock_held = enum_at<OnLockHeld>(kOnLockHeld, v); }},
    {.name = "lockWaitTimeoutMs",
     .variable = "MIGRONAUT_LOCK_WAIT_TIMEOUT_MS",
     .type = Type::kPositiveInt,
     .apply = [](Config& c, const json& v) { c.lock_wait_timeout_ms = v.get<std::int64_t>(); }},
    {.name = "lockPollIntervalMs",
     .variable = "MIGRONAUT_LOCK_POLL_INTERVAL_MS",
     .type = Type::kPositiveInt,
     .apply = [](Config& c, const json& v) { c.lock_poll_interval_ms = v; }},
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
          {"onLockHeld", "throw"},
          {"lockPollIntervalMs", 500}};
}

// Where a value came from, for the error that rejects it.
struct Origin {
  std::string where;  // "MIGRONAUT_LOCK_TTL", "\"uri\" in /app/migronaut.config.json"
  json context;
};

[[noreturn]] void reject(const Origin& origin, const std::string& problem) {
  json context = origin.context;
  context["reason"] = redact(problem);
  throw ConfigInvalidError(redact("Invalid configuration: " + origin.where + " " + problem),
                           std::move(context));
}

std::string allowed_list(std::span<const std::string_view> allowed) {
  std::string list;
  for (std::string_view value : allowed) list += (list.empty() ? "" : ", ") + std::string(value);
  return list;
}

bool is_identifier(const std::string& name) {
  static const std::regex kIdentifier("^[A-Za-z_][A-Za-z0-9_]{0,62}$");
  return std::regex_match(name, kIdentifier);
}

// A JSON number that is a whole number in 1..max, as an integer.
std::optional<std::int64_t> positive_integer(const json& value, std::int64_t max) {
  std::int64_t number = 0;
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      return std::nullopt;
    }
    number = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    const double real = value.get<double>();
    if (!std::isfinite(real) || std::trunc(real) != real || real < 1 || real > double(max)) {
      return std::nullopt;
    }
    number = static_cast<std::int64_t>(real);
  } else {
    return std::nullopt;
  }
  if (number < 1 || number > max) return std::nullopt;
  return number;
}

// Checks a value from a JSON layer (file, flags, code) against its key's type and returns it
// in canonical form.
json checked(const KeySpec& key, const json& value, const Origin& origin) {
  switch (key.type) {
    case Type::kString:
      if (!value.is_string()) reject(origin, "must be a string");
      return value;
    case Type::kUri:
      if (!value.is_string() || !has_known_scheme(value.get_ref<const std::string&>())) {
        reject(origin, "must be a URI starting with " + known_schemes());
      }
      return value;
    case Type::kPath:
      if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
        reject(origin, "must be a non-empty path");
      }
      return value;
    case Type::kIdentifier:
      if (!value.is_string() || !is_identifier(value)) {
        reject(origin, "must be a name matching ^[A-Za-z_][A-Za-z0-9_]{0,62}$");
      }
      return value;
    case Type::kBool:
      if (!value.is_boolean()) reject(origin, "must be true or false");
      return value;
    case Type::kPositiveInt:
      if (const auto number = positive_integer(value, key.max)) return *number;
      reject(origin, "must be a positive integer no greater than " + std::to_string(key.max));
    case Type::kEnum:
      if (value.is_string() && std::find(key.allowed.begin(), key.allowed.end(),
                                         value.get<std::string>()) != key.allowed.end()) {
        return value;
      }
      reject(origin, "must be one of: " + allowed_list(key.allowed));
    case Type::kEnvFile:
      if (value == false || (value.is_string() && !value.get_ref<const std::string&>().empty())) {
        return value;
      }
      reject(origin, "must be a path or false");
  }
  return value;
}

std::string trimmed_lowercase(std::string_view text) {
  std::string out(trim(text));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Turns an environment variable's text into the JSON value its key expects; anything that does
// not parse exactly is rejected, never coerced.
json from_environment(const KeySpec& key, const std::string& text, const Origin& origin) {
  if (key.type == Type::kBool) {
    const std::string word = trimmed_lowercase(text);
    if (word == "true" || word == "1" || word == "yes") return true;
    if (word == "false" || word == "0" || word == "no") return false;
    reject(origin, "must be one of true/1/yes or false/0/no");
  }
  if (key.type == Type::kPositiveInt) {
    const std::string digits = trimmed_lowercase(text);
    std::int64_t number = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    const bool whole = error == std::errc() && end == digits.data() + digits.size();
    if (!whole || digits.empty() || !std::isdigit(static_cast<unsigned char>(digits.front()))) {
      reject(origin, "must be a positive integer");
    }
    return checked(key, number, origin);
  }
  return checked(key, text, origin);
}

Origin variable_origin(const KeySpec& key, const std::string& text) {
  return {std::string(key.variable), {{"variable", key.variable}, {"value", redact(text)}}};
}

Origin key_origin(std::string_view key, const std::string& layer) {
  return {"\"" + std::string(key) + "\" in " + layer, {{"key", key}, {"source", layer}}};
}

// The keys `document` defines, checked; unknown keys and nulls are left out.
json json_layer(const json& document, const std::string& layer) {
  if (!document.is_object()) {
    throw ConfigInvalidError("Invalid configuration: " + layer + " must be a JSON object",
                             {{"source", layer}});
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
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) {
    throw ConfigInvalidError("Cannot read the config file " + path.string(),
                             {{"file", path.string()}});
  }
  return content.str();
}

// The config file layer: the explicit path (which must exist), else ./migronaut.config.json
// when present.
json file_layer(const ConfigSources& sources) {
  std::filesystem::path path = sources.cwd / kConfigFileName;
  if (sources.config_file) {
    path = sources.cwd / *sources.config_file;
    if (!std::filesystem::is_regular_file(path)) {
      throw ConfigInvalidError("The config file " + path.string() + " does not exist",
                               {{"file", path.string()}});
    }
  } else if (!std::filesystem::is_regular_file(path)) {
    return json::object();
  }
  json document;
  try {
    document = json::parse(read_text_file(path));
  } catch (const json::parse_error& error) {
    throw ConfigInvalidError(redact("Invalid JSON in " + path.string() + ": " + error.what()),
                             {{"file", path.string()}, {"reason", redact(error.what())}});
  }
  return json_layer(document, path.string());
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

std::map<std::string, std::string> with_env_file(std::map<std::string, std::string> environment,
                                                 const std::optional<std::filesystem::path>& path) {
  if (!path) return environment;
  for (auto& [name, value] : read_env_file(*path)) environment.try_emplace(name, value);
  return environment;
}

std::string os_user_name() {
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 4096> buffer{};
  const int error = getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found);
  return error == 0 && found != nullptr && found->pw_name != nullptr ? found->pw_name : "unknown";
}

void require_uri_set(const Config& config) {
  if (config.uri.empty()) {
    throw ConfigInvalidError(
        "Invalid configuration: no database URI (set \"uri\", MIGRONAUT_URI or --uri)",
        {{"key", "uri"}});
  }
}

std::filesystem::path resolved(const std::filesystem::path& cwd,
                               const std::filesystem::path& path) {
  return path.empty() || path.is_absolute() ? path : cwd / path;
}

// Applies the merged layers to a Config and validates what spans keys.
Config build(const json& merged, const std::filesystem::path& cwd,
             const std::map<std::string, std::string>& environment, bool require_uri) {
  Config config;
  for (const KeySpec& key : kKeys) {
    const auto found = merged.find(key.name);
    if (key.apply != nullptr && found != merged.end()) key.apply(config, *found);
  }
  if (require_uri) require_uri_set(config);
  config.migrations_dir = resolved(cwd, config.migrations_dir);
  config.template_path = resolved(cwd, config.template_path);
  const auto user = environment.find("MIGRONAUT_USER");
  config.executed_by =
      user != environment.end() && !user->second.empty() ? user->second : os_user_name();
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

Config load_config(const ConfigSources& sources) {
  const json file = file_layer(sources);
  const json flags = json_layer(sources.flags, "flags");
  const auto environment =
      with_env_file(sources.environment, env_file_to_load(sources, file, flags));
  json merged = defaults();
  merge(merged, file);
  merge(merged, environment_layer(environment));
  merge(merged, flags);
  return build(merged, sources.cwd, environment, sources.require_uri);
}

Config config_from_json(const nlohmann::json& document) {
  json merged = defaults();
  merge(merged, json_layer(document, "config"));
  return build(merged, std::filesystem::current_path(), process_environment(), true);
}

}  // namespace migronaut

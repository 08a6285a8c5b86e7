// Configuration: what a run connects to, where its migrations live, and how its lock behaves.
// Resolution order (highest wins): flags > MIGRONAUT_* environment > migronaut.config.json >
// defaults. Each layer sets only the keys it defines. Relative paths in the config file resolve
// against its folder, elsewhere against the working directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace migronaut {

enum class OnLockLost { kAbort, kWarn };
enum class OnOutOfOrder { kWarn, kError, kAllow };
enum class OnLockHeld { kThrow, kWait };
enum class FlywayPlaceholders { kRefuse, kLiteral };

struct Config {
  std::string uri;      // mongodb://, postgres://, postgresql:// or sqlite:path
  std::string db_name;  // MongoDB database; optional elsewhere
  std::filesystem::path migrations_dir = "migrations";
  std::string migrations_table = "_migronaut_migrations";  // `migrationsCollection`
  std::string lock_table = "_migronaut_locks";             // `lockCollection`
  std::int64_t lock_ttl_seconds = 60;
  bool strict = false;
  std::optional<bool> use_transaction;  // unset: true on SQL, false on MongoDB
  bool sequential = false;
  std::filesystem::path template_path;
  std::optional<std::int64_t> timeout_ms;  // per migration
  std::string environment = "production";
  OnLockLost on_lock_lost = OnLockLost::kAbort;
  OnOutOfOrder on_out_of_order = OnOutOfOrder::kWarn;
  // Waiting is the default (unlike the JavaScript original): a fleet booting at once must not
  // crash-loop on the one instance that migrates. kThrow fails fast.
  OnLockHeld on_lock_held = OnLockHeld::kWait;
  std::optional<std::int64_t> lock_wait_timeout_ms;  // unset: max(90 s, 1.5 × holder TTL)
  std::int64_t lock_poll_interval_ms = 500;
  // Where the database supports it (PostgreSQL), each statement of a transactional migration
  // waits at most this long for a lock; then the transaction rolls back and is tried again, up
  // to `lock_retries` more times with a growing, jittered pause. 0: wait forever.
  std::int64_t lock_timeout_ms = 5000;
  std::int64_t lock_retries = 10;
  std::string executed_by;  // MIGRONAUT_USER; empty: the OS user, asked when a run writes
  // The tool that migrated this database before (`importFrom`: dbmate, flyway, …), `import`'s
  // default --from; and its history table when that tool was configured with another name than
  // its default (`importTable`; PostgreSQL: schema.table), which a first `up` then reads to
  // refuse running again what that tool applied.
  std::string import_from;
  std::string import_table;
  // A `${name}` in a Flyway file to run: refused, as Flyway would have replaced it (its default
  // placeholderReplacement), or run as written (`flywayPlaceholders: literal`: Flyway ran with
  // placeholderReplacement=false).
  FlywayPlaceholders flyway_placeholders = FlywayPlaceholders::kRefuse;

  std::int64_t lock_ttl_ms() const { return lock_ttl_seconds * 1000; }
};

// Where `load_config` reads its layers from.
struct ConfigSources {
  std::filesystem::path cwd = std::filesystem::current_path();
  std::optional<std::filesystem::path> config_file;  // --config; else ./migronaut.config.json
  std::optional<std::filesystem::path> env_file;     // --env-file; else `envFile`, else ./.env
  bool load_env_file = true;                         // --no-env
  // The process environment (name → value). Values from the .env file never override these.
  std::map<std::string, std::string> environment;
  // The flags layer, keyed like the config file (`uri`, `dbName`, `migrationsDir`, …).
  nlohmann::json flags = nlohmann::json::object();
  // `create` and `init` need no database.
  bool require_uri = true;
  // How the caller's own interface sets `uri` in `flags`, named first when no layer sets a URI
  // (the CLI: "--uri").
  std::string uri_flag = "\"uri\" in ConfigSources::flags";
  // MIGRONAUT_* variables the caller reads itself (the CLI's color switches): an env file may set
  // them; any other MIGRONAUT_* name there that config_variables() lacks is refused.
  std::vector<std::string> caller_variables;
};

// The process environment as a map, for ConfigSources::environment.
std::map<std::string, std::string> process_environment();

// The environment variables load_config reads (MIGRONAUT_URI, …, and MIGRONAUT_USER), so that a
// caller can tell a typo, which would leave its setting at the default, from a known variable.
std::vector<std::string_view> config_variables();

// Resolves every layer and validates the result. Throws ConfigInvalidError naming the key or
// the variable at fault; never coerces a value that does not parse.
Config load_config(const ConfigSources& sources);

// A config with `uri` and the defaults, for code that builds its configuration itself.
// Validates like load_config; unknown keys are refused.
Config config_from_json(const nlohmann::json& document);

// Throws ConfigInvalidError, naming the key, for a Config load_config would refuse: no URI or
// an unknown scheme, a zero, negative or oversized number, an enumerator out of range, a bad
// table name, the filesystem root as migrations folder, one table for the lock and the
// changelog. Migrator and run_migrations call it before they connect.
void validate_config(const Config& config);

}  // namespace migronaut

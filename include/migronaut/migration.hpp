// Migrations as the engine sees them: from files (.sql, .json) or registered in code.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

// The backends' own handle types, declared here so this header pulls in no database header.
struct sqlite3;
struct pg_conn;
struct _mongoc_client_t;
struct _mongoc_client_session_t;

namespace migronaut {

enum class Direction { kUp, kDown };
std::string_view direction_name(Direction direction);  // "up" / "down"

// Log lines a migration body writes; they carry the run's id and the migration's name.
class Logger {
 public:
  enum class Level { kDebug, kInfo, kWarn, kError };
  virtual ~Logger() = default;
  virtual void log(Level level, std::string_view message) = 0;
  // Whether lines at `level` are kept. False spares the engine building lines nobody reads
  // (splitting each script into statements for debug output, say). Default: all are kept.
  virtual bool enabled(Level level) const {
    (void)level;
    return true;
  }
  void debug(std::string_view message) { log(Level::kDebug, message); }
  void info(std::string_view message) { log(Level::kInfo, message); }
  void warn(std::string_view message) { log(Level::kWarn, message); }
  void error(std::string_view message) { log(Level::kError, message); }
};

// The backend's native handle. Exactly one group is set, matching the configured URI.
struct NativeHandle {
  sqlite3* sqlite = nullptr;
  pg_conn* postgres = nullptr;  // PGconn*
  _mongoc_client_t* mongo_client = nullptr;
  std::string mongo_database;
  _mongoc_client_session_t* mongo_session = nullptr;  // set inside a transaction
};

struct RunInfo {
  std::string run_id;
  Direction direction = Direction::kUp;
  std::string migration;
  std::int64_t batch = 0;
  int attempt = 1;  // MongoDB transactions may run a body more than once
};

struct MigrationContext {
  RunInfo run;
  std::stop_token stop;  // requested on lock loss, timeout or a graceful stop
  Logger& logger;
  NativeHandle handle;
};

using MigrationBody = std::function<void(MigrationContext&)>;

// A migration registered in code. `version` feeds the checksum: change it when the body's
// behaviour changes, and drift detection keeps its meaning.
struct CodeMigration {
  std::string name;  // sorts among the files: "20260101120000-seed-users"
  std::string description;
  MigrationBody up;
  MigrationBody down;  // empty: irreversible
  std::optional<bool> use_transaction;
  std::optional<std::chrono::milliseconds> timeout;
  std::string version = "1";
};

}  // namespace migronaut

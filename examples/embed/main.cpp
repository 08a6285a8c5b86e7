// A service that brings its database up to date at boot, then serves.
//
//   migronaut-embed-example <sqlite-file> [serve-ms]
//
// Every copy of the service runs run_migrations at boot: one applies the pending migrations
// under the lock, the others wait for it (onLockHeld: wait) and find nothing left to do.
// SIGTERM stops a copy at any point: while it waits for the lock, between migrations, or while
// it serves. It prints "ready <pid>" once migrated, then serves for serve-ms (0: exits at once).
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>

#include "migronaut/migrator.hpp"

namespace {

// Turns SIGTERM and SIGINT into a stop request. The signals are blocked in every thread and
// taken by one watcher thread, so no code runs in a signal handler.
class StopOnSignal {
 public:
  StopOnSignal() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGTERM);
    sigaddset(&signals_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    watcher_ = std::jthread([this](std::stop_token done) {
      const timespec poll{0, 100'000'000};
      while (!done.stop_requested()) {
        if (sigtimedwait(&signals_, nullptr, &poll) > 0) stop_.request_stop();
      }
    });
  }
  std::stop_token token() const { return stop_.get_token(); }

 private:
  sigset_t signals_;
  std::stop_source stop_;
  std::jthread watcher_;
};

void exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "sqlite error";
    sqlite3_free(error);
    throw std::runtime_error(message);
  }
}

// A migration that is easier in C++ than in SQL; it runs in the same transaction as its
// changelog record, on the engine's own connection.
migronaut::CodeMigration seed_widgets() {
  migronaut::CodeMigration migration;
  migration.name = "20260101090200-seed-widgets";
  migration.description = "the standard widgets";
  migration.up = [](migronaut::MigrationContext& context) {
    for (const char* name : {"sprocket", "gear", "flange"}) {
      if (context.stop.stop_requested()) throw std::runtime_error("stopped");
      exec(context.handle.sqlite,
           (std::string("INSERT INTO widgets (name) VALUES ('") + name + "')").c_str());
    }
    exec(context.handle.sqlite,
         "INSERT INTO migration_log (name) VALUES ('20260101090200-seed-widgets')");
    context.logger.info("seeded 3 widgets");
  };
  migration.down = [](migronaut::MigrationContext& context) {
    exec(context.handle.sqlite,
         "DELETE FROM widgets; DELETE FROM migration_log WHERE name = "
         "'20260101090200-seed-widgets'");
  };
  return migration;
}

// "Serving": stays up for `duration` or until told to stop.
void serve(std::chrono::milliseconds duration, std::stop_token stop) {
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  wake.wait_for(lock, stop, duration, [] { return false; });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: " << argv[0] << " <sqlite-file> [serve-ms]\n";
    return 64;
  }
  const std::chrono::milliseconds serve_for(argc == 3 ? std::stol(argv[2]) : 0);
  StopOnSignal stop;

  try {
    const migronaut::Config config = migronaut::config_from_json({
        {"uri", std::string("sqlite:") + argv[1]},
        {"migrationsDir", EMBED_MIGRATIONS_DIR},
        {"onLockHeld", "wait"},
        {"lockPollIntervalMs", 100},
    });
    migronaut::RunMigrationsOptions options;
    options.stop = stop.token();
    options.migrator.migrations.push_back(seed_widgets());
    options.on_wait = [](const migronaut::LockWaitReport& report) {
      std::cerr << "waiting for the migration lock (attempt " << report.attempts << ")\n";
    };
    const migronaut::RunMigrationsResult result = migronaut::run_migrations(config, options);
    std::cout << "migrated applied=" << result.applied.size() << " waited=" << result.waited
              << " up_to_date=" << result.up_to_date << "\n";
  } catch (const migronaut::Error& error) {
    std::cerr << "migration failed: " << error.code_name() << ": " << error.what() << "\n";
    return migronaut::exit_status(error.code());
  }

  std::cout << "ready " << getpid() << std::endl;
  serve(serve_for, stop.token());
  std::cout << "stopped\n";
  return 0;
}

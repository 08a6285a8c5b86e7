// How a connection waits for another's write to end. SQLite's own busy handler never looks at
// sqlite3_interrupt() (and 3.40 has no sqlite3_is_interrupted), so a statement waiting for the
// write slot would sit out its whole timeout after a stop or a migration's timeout. This one
// waits the same total time in short steps and gives up at once when interrupted.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <chrono>

namespace migronaut {

class BusyWait {
 public:
  // Installs itself as `db`'s busy handler until it goes, which must be before `db` closes.
  BusyWait(sqlite3* db, std::chrono::milliseconds timeout);
  ~BusyWait() { sqlite3_busy_handler(db_, nullptr, nullptr); }
  BusyWait(const BusyWait&) = delete;
  BusyWait& operator=(const BusyWait&) = delete;

  // How long one wait may last in all; 0: none (SQLITE_BUSY at once).
  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

  // Thread-safe. Ends the operation in flight: a running statement (sqlite3_interrupt) and any
  // busy wait of it, the one it has not reached yet too. The interrupt stays pending until the
  // next operation begins (begin_operation), so it is never lost between an operation's start
  // and its wait; with none in flight it is spent on nothing, as SQLite's own.
  void interrupt();
  // An operation begins: an interrupt meant for an earlier one no longer applies, so a write
  // after an interrupted one (recording a failure) waits for the slot as usual.
  void begin_operation() { interrupted_ = false; }
  // The result code to report for `code`: a busy answer while interrupted is the interrupt
  // (SQLITE_INTERRUPT), whose error a stop or a timeout already handles.
  int reported(int code) const;

 private:
  static int on_busy(void* self, int count);
  bool wait(int count);

  sqlite3* db_;
  std::chrono::milliseconds timeout_;
  std::chrono::steady_clock::time_point started_;  // the current wait's first call
  std::atomic<bool> interrupted_ = false;
};

}  // namespace migronaut

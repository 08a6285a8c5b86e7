#include "store/sqlite/busy_wait.hpp"

#include <algorithm>
#include <thread>

namespace migronaut {
namespace {

// The longest step: how late an interrupt is noticed. The first steps are shorter still, so a
// short write is not waited out by a whole step.
constexpr std::chrono::milliseconds kLongestStep{10};

}  // namespace

BusyWait::BusyWait(sqlite3* db, std::chrono::milliseconds timeout) : db_(db), timeout_(timeout) {
  sqlite3_busy_handler(db_, &BusyWait::on_busy, this);
}

void BusyWait::interrupt() {
  interrupted_ = true;
  sqlite3_interrupt(db_);
}

int BusyWait::reported(int code) const {
  return (code & 0xff) == SQLITE_BUSY && interrupted_ ? SQLITE_INTERRUPT : code;
}

int BusyWait::on_busy(void* self, int count) { return static_cast<BusyWait*>(self)->wait(count); }

// SQLite calls this with `count` 0, 1, 2… while one lock stays out of reach: true to try again.
bool BusyWait::wait(int count) {
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) started_ = now;
  const auto left = started_ + timeout_ - now;
  if (interrupted_ || left <= left.zero()) return false;
  const std::chrono::milliseconds step(1 << std::min(count, 3));  // 1, 2, 4, 8 ms, then 10
  std::this_thread::sleep_for(
      std::min<std::chrono::steady_clock::duration>({left, std::min(step, kLongestStep)}));
  return true;
}

}  // namespace migronaut

// A Store that forwards to a real one but lets a test inject faults into the lock statements:
// a renewal that hangs until released, one that fails after (fake) time has passed, N failures
// in a row, a dropped connection that a reconnect then heals. Engine-level tests drive the
// heartbeat and the runner through it with a FakeClock instead of waiting out real TTLs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "store/store.hpp"

namespace migronaut::testing {

class FaultStore : public Store {
 public:
  // Called before each lock statement is forwarded, with its name ("try_acquire", "renew",
  // "release", "read_lock"); whatever it throws is what the statement throws.
  using Fault = std::function<void(std::string_view statement)>;

  explicit FaultStore(std::unique_ptr<Store> inner) : inner_(std::move(inner)) {}

  void set_fault(Fault fault);
  // Blocks until `count` renewals have returned or thrown (in real time, bounded: false when
  // they did not within 10 s).
  bool wait_for_renewals(int count);
  int renewals() const;

  // Faults for set_fault. The next `count` renewals fail as a dropped connection would.
  static Fault drop_renewals(int count);
  // Renewals block until release() is called; a test must release before the store goes.
  class Hang {
   public:
    Fault fault();
    void release();
    // Blocks until a renewal hangs (bounded as above).
    bool wait_until_hanging();

   private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool released_ = false;
    bool hanging_ = false;
  };

  std::string_view kind() const override { return inner_->kind(); }
  void ensure_schema() override { inner_->ensure_schema(); }
  AcquireResult try_acquire(const LockClaim& claim) override;
  bool renew(const LockToken& token, const LockProgress& progress) override;
  void release(const LockToken& token) override;
  std::optional<LockInfo> read_lock() override;
  std::optional<LockInfo> force_release(const ReleaseMatch& match) override {
    return inner_->force_release(match);
  }
  std::vector<ChangelogRecord> read_changelog() override { return inner_->read_changelog(); }
  void write_records(std::span<const RecordWrite> writes,
                     const LockToken* fence = nullptr) override {
    inner_->write_records(writes, fence);
  }
  void execute(const Execution& execution) override { inner_->execute(execution); }
  void interrupt() override;
  // Blocks until interrupt() has been called (bounded as above).
  bool wait_for_interrupt();
  bool fence_records_progress() const override {
    return claims_fence_records_progress_.value_or(inner_->fence_records_progress());
  }
  // Has the engine treat the store as one whose fence carries the progress (SQLite's does, but
  // it asks for a renewal before each migration instead).
  void claim_fence_records_progress(bool claim) { claims_fence_records_progress_ = claim; }
  std::int64_t now_ms() override { return inner_->now_ms(); }
  std::optional<std::vector<ForeignRecord>> read_foreign_history(
      ForeignTool tool, const std::string& table) override {
    return inner_->read_foreign_history(tool, table);
  }
  StoreProbe probe() override { return inner_->probe(); }
  std::vector<std::string> statements_of(const Script& script) const override {
    ++scripts_split_;
    return inner_->statements_of(script);
  }
  // How many scripts the engine had split into statements (for --verbose's "sending" lines).
  int scripts_split() const { return scripts_split_; }
  void check_script(std::string_view file, const Script& script,
                    bool transactional) const override {
    ++scripts_checked_;
    inner_->check_script(file, script, transactional);
  }
  // How many scripts the engine had checked before running them.
  int scripts_checked() const { return scripts_checked_; }

 private:
  void inject(std::string_view statement);

  std::unique_ptr<Store> inner_;
  mutable std::mutex mutex_;
  std::condition_variable renewed_;
  Fault fault_;
  int renewals_ = 0;
  std::condition_variable interrupted_;
  bool was_interrupted_ = false;
  std::optional<bool> claims_fence_records_progress_;
  mutable std::atomic<int> scripts_split_ = 0;
  mutable std::atomic<int> scripts_checked_ = 0;
};

}  // namespace migronaut::testing

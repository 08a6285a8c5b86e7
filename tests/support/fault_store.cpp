#include "support/fault_store.hpp"

#include <atomic>
#include <chrono>

#include "migronaut/errors.hpp"

namespace migronaut::testing {
namespace {
constexpr auto kBound = std::chrono::seconds(10);
}  // namespace

void FaultStore::set_fault(Fault fault) {
  std::lock_guard lock(mutex_);
  fault_ = std::move(fault);
}

bool FaultStore::wait_for_renewals(int count) {
  std::unique_lock lock(mutex_);
  return renewed_.wait_for(lock, kBound, [&] { return renewals_ >= count; });
}

int FaultStore::renewals() const {
  std::lock_guard lock(mutex_);
  return renewals_;
}

void FaultStore::interrupt() {
  {
    std::lock_guard lock(mutex_);
    was_interrupted_ = true;
  }
  interrupted_.notify_all();
  inner_->interrupt();
}

bool FaultStore::wait_for_interrupt() {
  std::unique_lock lock(mutex_);
  return interrupted_.wait_for(lock, kBound, [&] { return was_interrupted_; });
}

void FaultStore::inject(std::string_view statement) {
  Fault fault;
  {
    std::lock_guard lock(mutex_);
    fault = fault_;
  }
  if (fault) fault(statement);
}

AcquireResult FaultStore::try_acquire(const LockClaim& claim) {
  inject("try_acquire");
  return inner_->try_acquire(claim);
}

bool FaultStore::renew(const LockToken& token, const LockProgress& progress) {
  struct Count {
    FaultStore& store;
    ~Count() {
      {
        std::lock_guard lock(store.mutex_);
        ++store.renewals_;
      }
      store.renewed_.notify_all();
    }
  } count{*this};
  inject("renew");
  return inner_->renew(token, progress);
}

void FaultStore::release(const LockToken& token) {
  inject("release");
  inner_->release(token);
}

std::optional<LockInfo> FaultStore::read_lock() {
  inject("read_lock");
  return inner_->read_lock();
}

FaultStore::Fault FaultStore::drop_renewals(int count) {
  auto left = std::make_shared<std::atomic<int>>(count);
  return [left](std::string_view statement) {
    if (statement == "renew" && left->fetch_sub(1) > 0) {
      throw ConnectionFailedError("injected: the connection was dropped");
    }
  };
}

FaultStore::Fault FaultStore::Hang::fault() {
  return [this](std::string_view statement) {
    if (statement != "renew") return;
    std::unique_lock lock(mutex_);
    hanging_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_; });
  };
}

void FaultStore::Hang::release() {
  std::lock_guard lock(mutex_);
  released_ = true;
  changed_.notify_all();
}

bool FaultStore::Hang::wait_until_hanging() {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, kBound, [&] { return hanging_; });
}

}  // namespace migronaut::testing

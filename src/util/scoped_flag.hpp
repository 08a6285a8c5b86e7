// A value set for as long as a scope lives, and put back however the scope is left.
#pragma once

#include <utility>

namespace migronaut {

template <class T>
class ScopedValue {
 public:
  ScopedValue(T& slot, T value) : slot_(slot), before_(std::exchange(slot, std::move(value))) {}
  ~ScopedValue() { slot_ = std::move(before_); }
  ScopedValue(const ScopedValue&) = delete;
  ScopedValue& operator=(const ScopedValue&) = delete;

 private:
  T& slot_;
  T before_;
};

// A flag raised for as long as a scope lives.
class ScopedFlag : public ScopedValue<bool> {
 public:
  explicit ScopedFlag(bool& flag) : ScopedValue(flag, true) {}
};

}  // namespace migronaut

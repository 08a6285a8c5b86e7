// What the store conformance suite needs from a backend (golang-migrate's database/testing
// pattern): every store registers one StoreHarness and must pass the same suite unchanged.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/registry.hpp"

namespace migronaut::testing {

class StoreHarness {
 public:
  virtual ~StoreHarness() = default;
  // Called before each test: a clean, empty database (no lock, no changelog, no test tables).
  virtual void reset() = 0;
  // A new, independent connection to that database (the suite opens several to race them),
  // with the default table/collection names of Config (the suite checks them by name).
  virtual std::unique_ptr<Store> open() = 0;
  // A script in the store's language that creates an object (table/collection) `name`.
  virtual Script create_object_script(const std::string& name) = 0;
  // A script that fails when run.
  virtual Script failing_script() = 0;
  // Whether the object `name` exists, read through a fresh connection.
  virtual bool object_exists(const std::string& name) = 0;
  // Whether this backend runs the transactional cases (MongoDB standalone servers cannot).
  virtual bool supports_transactions() { return true; }
};

// A harness factory and a printable name for the test instantiation.
struct HarnessEntry {
  std::string name;
  std::function<std::unique_ptr<StoreHarness>()> make;
};

// Each backend's harness file registers itself with a static initializer:
//   static const bool registered = register_harness({"sqlite", [] { ... }});
bool register_harness(HarnessEntry entry);
const std::vector<HarnessEntry>& registered_harnesses();

}  // namespace migronaut::testing

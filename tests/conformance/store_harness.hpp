// What the store conformance suite needs from a backend (golang-migrate's database/testing
// pattern): every store registers one StoreHarness and must pass the same suite unchanged.
#pragma once

#include <functional>
#include <memory>
#include <optional>
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
  // A script in the store's language that creates the objects (tables/collections) `names`,
  // one statement (command) each, in order.
  virtual Script create_objects_script(const std::vector<std::string>& names) = 0;
  Script create_object_script(const std::string& name) { return create_objects_script({name}); }
  // A script that fails when run.
  virtual Script failing_script() = 0;
  // Whether the object `name` exists, read through a fresh connection.
  virtual bool object_exists(const std::string& name) = 0;
  // A script that creates `tool`'s history exactly as the tool does, holding two migrations:
  // knex 20260101120000_a.js (2026-01-01T12:00:00Z) and 20260102120000_b.js
  // (2026-01-02T12:00:00Z); golang-migrate version 2, dirty; migrate-mongo the same two names as
  // knex with the same times. nullopt when the tool does not run on this backend.
  virtual std::optional<Script> foreign_history_script(ForeignTool tool) = 0;
  // Whether this backend runs the transactional cases (MongoDB standalone servers cannot).
  virtual bool supports_transactions() { return true; }
};

// A harness factory and a printable name for the test instantiation. A backend that cannot run
// here (no server configured) still registers, with the reason: its cases show as skipped.
struct HarnessEntry {
  std::string name;
  std::function<std::unique_ptr<StoreHarness>()> make;
  std::string skip_reason = {};
};

// Each backend's harness file registers itself with a static initializer:
//   static const bool registered = register_harness({"sqlite", [] { ... }});
bool register_harness(HarnessEntry entry);
const std::vector<HarnessEntry>& registered_harnesses();

}  // namespace migronaut::testing

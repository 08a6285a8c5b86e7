#include "conformance/store_harness.hpp"

namespace migronaut::testing {
namespace {

std::vector<HarnessEntry>& harnesses() {
  static std::vector<HarnessEntry> entries;
  return entries;
}

}  // namespace

bool register_harness(HarnessEntry entry) {
  harnesses().push_back(std::move(entry));
  return true;
}

const std::vector<HarnessEntry>& registered_harnesses() { return harnesses(); }

}  // namespace migronaut::testing

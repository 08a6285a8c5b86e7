// The savepoints a migration's script opened, in order. RELEASE or ROLLBACK TO of one it did
// not open would reach past the migration's own transaction: the checks refuse it.
#pragma once

#include <string>
#include <vector>

namespace migronaut {

class SavepointStack {
 public:
  void open(const std::string& name) { open_.push_back(name); }
  // Releases `name` and every savepoint opened after it; false when the script never opened it.
  bool release(const std::string& name) { return unwind(name, /*keep_it=*/false); }
  // Rolls back to `name`, which stays open; false when the script never opened it.
  bool rollback_to(const std::string& name) { return unwind(name, /*keep_it=*/true); }

 private:
  bool unwind(const std::string& name, bool keep_it);

  std::vector<std::string> open_;
};

}  // namespace migronaut

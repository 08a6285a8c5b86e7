#include "store/postgres/session_statements.hpp"

#include <algorithm>

namespace migronaut {
namespace {

// The probe holds no SQL of the store's: it lives under this key among the held statements.
constexpr std::string_view kProbe = "SELECT 1";
// invalid_sql_statement_name: `prepared statement "…" does not exist`.
constexpr std::string_view kUnknownStatement = "26000";

}  // namespace

std::string SessionStatements::next_name() { return prefix_ + "_" + std::to_string(++named_); }

std::string SessionStatements::run(const std::string& sql,
                                   const std::vector<std::string>& arguments,
                                   std::string& prepares) {
  std::string name;
  if (const auto held = held_.find(sql); held != held_.end()) {
    name = held->second;
    relies_ = true;
  } else {
    const auto pending = std::find_if(preparing_.begin(), preparing_.end(),
                                      [&](const auto& entry) { return entry.first == sql; });
    if (pending != preparing_.end()) {
      name = pending->second;
    } else {
      name = next_name();
      preparing_.emplace_back(sql, name);
      prepares += "PREPARE " + name + " AS " + sql + ";\n";
    }
  }
  std::string call = "EXECUTE " + name;
  for (std::size_t i = 0; i < arguments.size(); ++i) call += (i == 0 ? "(" : ", ") + arguments[i];
  return arguments.empty() ? call : call + ")";
}

std::string SessionStatements::probe(std::string& prepares) {
  if (relies_) return "EXECUTE " + held_.at(std::string(kProbe)) + ";\n";
  if (!held_.contains(std::string(kProbe)) && !preparing_.empty()) {
    run(std::string(kProbe), {}, prepares);
  }
  return "";
}

void SessionStatements::settle(bool succeeded) {
  if (succeeded) held_.insert(preparing_.begin(), preparing_.end());
  preparing_.clear();
  relies_ = false;
}

void SessionStatements::forget() {
  held_.clear();
  preparing_.clear();
  relies_ = false;
}

bool SessionStatements::lacked_one(std::string_view sqlstate, std::string_view message) const {
  return sqlstate == kUnknownStatement && message.find(prefix_ + "_") != std::string_view::npos;
}

}  // namespace migronaut

#include "store/postgres/session_statements.hpp"

#include <algorithm>

namespace migronaut {
namespace {

constexpr const char* kProbe = "SELECT 1";
// invalid_sql_statement_name: `prepared statement "…" does not exist`.
constexpr std::string_view kUnknownStatement = "26000";

}  // namespace

void SessionStatements::begin_message() { preparing_.clear(); }

std::string SessionStatements::prepare(const std::string& sql) {
  const auto pending = std::find_if(preparing_.begin(), preparing_.end(),
                                    [&](const auto& entry) { return entry.first == sql; });
  if (pending != preparing_.end()) return pending->second;
  preparing_.emplace_back(sql, prefix_ + "_" + std::to_string(++named_));
  return preparing_.back().second;
}

std::string SessionStatements::call(const std::string& sql,
                                    const std::vector<std::string>& arguments) {
  const auto held = held_.find(sql);
  std::string call = "EXECUTE " + (held != held_.end() ? held->second : prepare(sql));
  for (std::size_t i = 0; i < arguments.size(); ++i) call += (i == 0 ? "(" : ", ") + arguments[i];
  return arguments.empty() ? call : call + ")";
}

std::string SessionStatements::probe() {
  if (probe_) return "EXECUTE " + *probe_ + ";\n";
  if (!preparing_.empty()) prepare(kProbe);
  return "";
}

std::string SessionStatements::prepares() const {
  std::string text;
  for (const auto& [sql, name] : preparing_) text += "PREPARE " + name + " AS " + sql + ";\n";
  return text;
}

void SessionStatements::settle(bool succeeded) {
  if (succeeded) {
    for (auto& [sql, name] : preparing_) {
      if (sql == kProbe) {
        probe_ = std::move(name);
      } else {
        held_.emplace(std::move(sql), std::move(name));
      }
    }
  }
  preparing_.clear();
}

void SessionStatements::forget() {
  held_.clear();
  probe_.reset();
  preparing_.clear();
}

bool SessionStatements::lacked_one(std::string_view sqlstate, std::string_view message) const {
  return sqlstate == kUnknownStatement && message.find(prefix_ + "_") != std::string_view::npos;
}

}  // namespace migronaut

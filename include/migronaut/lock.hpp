// What anyone may know about the lock's holder. The nonce that proves ownership is never here.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace migronaut {

struct LockInfo {
  std::int64_t locked_at_ms = 0;  // the database's clock, ms since the Unix epoch
  std::int64_t ttl_ms = 0;        // the holder's own TTL, which paces its heartbeat
  std::string run_id;             // the holder's run id (the lock's `owner`)
  std::int64_t pid = 0;
  std::string host;
  std::string executed_by;
  // Progress, written by the holder's heartbeat: the migration it is on, k of n.
  std::string migration;
  std::int64_t step = 0;
  std::int64_t total = 0;
};

// {"lockedAt" (ISO-8601 UTC), "ttlMs", "runId", "pid", "host", "executedBy", "migration", "step",
// "total"}
void to_json(nlohmann::json& out, const LockInfo& info);
// Reads what to_json wrote; missing keys keep their defaults.
void from_json(const nlohmann::json& in, LockInfo& info);

}  // namespace migronaut

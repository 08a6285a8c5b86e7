// Small renderers shared by the commands' human output.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "migronaut/lock.hpp"

namespace migronaut::cli {

// `text` followed (or, right-aligned, preceded) by the spaces that fill `width` display
// columns (a wide character takes two).
std::string padded(std::string_view text, std::size_t width, bool right_aligned = false);
// The same, appended to `out`: a long table is built in one string.
void append_padded(std::string& out, std::string_view text, std::size_t width,
                   bool right_aligned = false);
// "2026-12-02 11:04:55Z" (UTC).
std::string format_time(std::int64_t ms_since_epoch);
// "host pid 123 (run 1a2b3c4d, user alice), on 0003-x.sql (2/5), renewed 3 s ago", the age
// judged against `now_ms` (the database's clock where known).
std::string describe_holder(const LockInfo& holder, std::int64_t now_ms);
// What a reader of the lock should be told beyond who holds it, one warning each: a row that
// cannot be trusted, a lease not renewed within its TTL, or a holder of this host whose process
// is not running (killed: its lease stands until its TTL runs out).
std::vector<std::string> holder_warnings(const LockInfo& holder, std::int64_t now_ms,
                                         std::int64_t ttl_ms);
// How long ago the holder last renewed, in ms (never negative).
std::int64_t renewal_age_ms(const LockInfo& holder, std::int64_t now_ms);
// This machine's clock, ms since the epoch.
std::int64_t wall_clock_ms();
// A count flag such as --steps: absent when not given, else a positive integer or
// ConfigInvalidError (an empty value too: an unset variable must not widen what a command does).
std::optional<std::int64_t> positive_flag(const std::optional<std::string>& text, const char* flag);
// A migration named by a flag or argument (`what`): absent when not given; refused
// (ConfigInvalidError) when given empty, as `down "$MIGRATION"` with the variable unset would
// otherwise revert the last batch.
std::optional<std::string> named_migration(const std::optional<std::string>& value,
                                           const char* what);

}  // namespace migronaut::cli

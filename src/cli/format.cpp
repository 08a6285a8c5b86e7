#include "cli/format.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <iterator>

#include "core/lease.hpp"
#include "fmt/format.h"
#include "migronaut/errors.hpp"
#include "util/process_identity.hpp"
#include "util/redact.hpp"

namespace migronaut::cli {

void append_padded(std::string& out, std::string_view text, std::size_t width, bool right_aligned) {
  // ASCII, nearly every cell, is padded here: fmt measures each cell's display width anew,
  // which was most of a 10,000-row status. fmt does the rest, wide characters and all.
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x7F; })) {
    const std::size_t fill = width - std::min(width, text.size());
    if (right_aligned) out.append(fill, ' ');
    out += text;
    if (!right_aligned) out.append(fill, ' ');
    return;
  }
  fmt::format_to(std::back_inserter(out), fmt::runtime(right_aligned ? "{:>{}}" : "{:<{}}"), text,
                 width);
}

std::string padded(std::string_view text, std::size_t width, bool right_aligned) {
  std::string out;
  append_padded(out, text, width, right_aligned);
  return out;
}

std::string format_time(std::int64_t ms_since_epoch) {
  const std::time_t seconds = static_cast<std::time_t>(ms_since_epoch / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%SZ", &utc);
  return text;
}

std::int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t renewal_age_ms(const LockInfo& holder, std::int64_t now_ms) {
  return std::max<std::int64_t>(0, now_ms - holder.locked_at_ms);
}

std::string describe_holder(const LockInfo& holder, std::int64_t now_ms) {
  // The row may be hand-made: no field of it may break the line, nor (cut short, or left
  // unterminated) an escape sequence in it swallow the fields after it.
  const auto shown = [](std::string_view field) {
    return single_line(sanitize_for_terminal(field));
  };
  std::string text = fmt::format("{} pid {} (run {}", shown(holder.host), holder.pid,
                                 shown(holder.run_id).substr(0, 8));
  if (!holder.executed_by.empty()) text += ", user " + shown(holder.executed_by);
  text += ")";
  if (!holder.migration.empty()) {
    text += fmt::format(", on {} ({}/{})", shown(holder.migration), holder.step, holder.total);
  }
  if (holder.locked_at_ms > 0) {
    text += fmt::format(", renewed {} s ago", renewal_age_ms(holder, now_ms) / 1000);
  }
  return text;
}

std::vector<std::string> holder_warnings(const LockInfo& holder, std::int64_t now_ms,
                                         std::int64_t ttl_ms) {
  // What `up` refuses (exit 40) and `unlock` clears without --force.
  const std::string unusable = lock_row_unusable(holder, now_ms, ttl_ms);
  if (!unusable.empty()) return {"The lock row cannot be trusted: " + unusable};
  if (lease_expired(holder, now_ms, ttl_ms)) {
    return {"Stale: not renewed within its TTL (a crashed holder?); the next run takes it"};
  }
  if (holder.host == host_name() &&
      !process_running_here(holder.pid, holder.host, holder.locked_at_ms)) {
    return {fmt::format(
        "pid {} is not running on this host (killed, or stopped): the next run takes the lock "
        "over once its TTL runs out ({} s); if it was killed, `migronaut unlock --force` "
        "releases it now",
        holder.pid,
        std::max<std::int64_t>(0,
                               std::max(holder.ttl_ms, ttl_ms) - renewal_age_ms(holder, now_ms)) /
            1000)};
  }
  return {};
}

namespace {

std::optional<std::int64_t> whole_number(const std::string& text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc() && ptr == end) return value;
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> positive_flag(const std::optional<std::string>& text,
                                          const char* flag) {
  if (!text) return std::nullopt;
  const std::optional<std::int64_t> number = whole_number(*text);
  if (!number || *number <= 0) {
    throw ConfigInvalidError(fmt::format("{} must be a positive integer", flag),
                             {{"option", flag}, {"value", *text}});
  }
  return number;
}

std::optional<std::string> named_migration(const std::optional<std::string>& value,
                                           const char* what) {
  if (value && value->empty()) {
    throw ConfigInvalidError(
        fmt::format("{} is empty: name a migration (a file name or a version)", what),
        {{"option", what}, {"value", ""}});
  }
  return value;
}

}  // namespace migronaut::cli

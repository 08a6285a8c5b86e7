#include "cli/format.hpp"

#include <charconv>
#include <ctime>

#include "fmt/format.h"
#include "migronaut/errors.hpp"

namespace migronaut::cli {

std::string format_time(std::int64_t ms_since_epoch) {
  const std::time_t seconds = static_cast<std::time_t>(ms_since_epoch / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%SZ", &utc);
  return text;
}

std::string describe_holder(const LockInfo& holder) {
  std::string text =
      fmt::format("{} pid {} (run {}", holder.host, holder.pid, holder.run_id.substr(0, 8));
  if (!holder.executed_by.empty()) text += ", user " + holder.executed_by;
  text += ")";
  if (holder.locked_at_ms > 0) text += ", renewed " + format_time(holder.locked_at_ms);
  if (!holder.migration.empty()) {
    text += fmt::format(", on {} ({}/{})", holder.migration, holder.step, holder.total);
  }
  return text;
}

nlohmann::json flag_number(const std::string& text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc() && ptr == end) return value;
  return text;
}

std::optional<std::int64_t> positive_flag(const std::string& text, const char* flag) {
  if (text.empty()) return std::nullopt;
  const nlohmann::json number = flag_number(text);
  if (!number.is_number_integer() || number.get<std::int64_t>() <= 0) {
    throw ConfigInvalidError(fmt::format("{} must be a positive integer", flag),
                             {{"option", flag}, {"value", text}});
  }
  return number.get<std::int64_t>();
}

}  // namespace migronaut::cli

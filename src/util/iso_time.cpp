#include "util/iso_time.hpp"

#include <chrono>
#include <cstdio>

namespace migronaut {

std::string iso_time(std::int64_t ms_since_epoch) {
  using namespace std::chrono;
  const sys_time<milliseconds> time{milliseconds(ms_since_epoch)};
  const sys_days day = floor<days>(time);
  const year_month_day date{day};
  const hh_mm_ss clock{time - day};
  char text[32];
  std::snprintf(text, sizeof(text), "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", int(date.year()),
                unsigned(date.month()), unsigned(date.day()), int(clock.hours().count()),
                int(clock.minutes().count()), int(clock.seconds().count()),
                int(clock.subseconds().count()));
  return text;
}

std::optional<std::int64_t> parse_iso_time(std::string_view text) {
  using namespace std::chrono;
  int y = 0;
  unsigned mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0;
  int consumed = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2u-%2uT%2u:%2u:%2u%n", &y, &mo, &d, &h, &mi, &s, &consumed) !=
      6) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(static_cast<std::size_t>(consumed));
  if (rest.size() == 5 && rest[0] == '.') {
    if (std::sscanf(copy.c_str() + consumed, ".%3u", &ms) != 1) return std::nullopt;
    rest.remove_prefix(4);
  }
  const year_month_day date{year(y), month(mo), day(d)};
  if (rest != "Z" || !date.ok() || h > 23 || mi > 59 || s > 59) return std::nullopt;
  const auto time = sys_days(date) + hours(h) + minutes(mi) + seconds(s) + milliseconds(ms);
  return time.time_since_epoch().count();
}

}  // namespace migronaut

#include "store/postgres/search_path_uri.hpp"

#include <fmt/format.h>

#include <cctype>
#include <string_view>

#include "util/text.hpp"

namespace migronaut {
namespace {

// A value of libpq's `options`, which splits its arguments at whitespace unless escaped.
std::string options_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\' || std::isspace(static_cast<unsigned char>(c)) != 0) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string percent_encoded(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

// Where the URI's parameters start: its first '?' after the user and password, which libpq reads
// up to an '@' before any '/', and which may hold a '?' of their own.
std::size_t query_start(const std::string& uri) {
  const std::size_t scheme = uri.find("://");
  std::size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const std::size_t end = uri.find_first_of("@/", host);
  if (end != std::string::npos && uri[end] == '@') host = end + 1;
  return uri.find('?', host);
}

}  // namespace

std::string with_search_path_in_options(const std::string& uri) {
  const std::size_t query = query_start(uri);
  if (query == std::string::npos) return uri;
  std::string kept;     // the other parameters, as written
  std::string options;  // decoded: the URI's own, then each search_path's
  bool moved = false;
  std::string_view rest = std::string_view(uri).substr(query + 1);
  while (!rest.empty()) {
    const std::string_view parameter = rest.substr(0, rest.find('&'));
    rest.remove_prefix(std::min(rest.size(), parameter.size() + 1));
    const std::size_t equals = parameter.find('=');
    const std::string_view key = parameter.substr(0, equals);
    const std::string value =
        equals == std::string_view::npos ? "" : percent_decoded(parameter.substr(equals + 1));
    if (key == "search_path") {
      options += (options.empty() ? "" : " ") + ("-c search_path=" + options_escaped(value));
      moved = true;
    } else if (key == "options") {
      options.insert(0, value + (options.empty() ? "" : " "));
    } else {
      kept += (kept.empty() ? "" : "&") + std::string(parameter);
    }
  }
  if (!moved) return uri;
  return uri.substr(0, query + 1) + kept + (kept.empty() ? "" : "&") +
         "options=" + percent_encoded(options);
}

}  // namespace migronaut

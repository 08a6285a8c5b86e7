#include "util/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "util/sqlite_uri.hpp"
#include "util/text.hpp"

namespace migronaut {
namespace {

constexpr std::string_view kMask = "***";
constexpr std::size_t kShortestSecret = 4;
// libpq's two, and MongoDB's TLS key passwords and mechanism properties (which carry
// AWS_SESSION_TOKEN): matched without regard to case, as MongoDB's option names are.
constexpr std::array<std::string_view, 5> kSecretKeys = {
    "password", "sslpassword", "tlsCertificateKeyFilePassword", "sslClientCertificateKeyPassword",
    "authMechanismProperties"};

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool is_scheme_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Masks the password of "scheme://user:password@host…". The userinfo is taken to end at the
// last '@', so a password with an unencoded '@', '/' or '?' is still masked whole (at worst an
// '@' in the query masks the host too).
std::string mask_userinfo(std::string_view uri) {
  const std::size_t authority = uri.find("://");
  if (authority == std::string_view::npos) return std::string(uri);
  const std::size_t start = authority + 3;
  const std::size_t at = uri.rfind('@');
  if (at == std::string_view::npos || at < start) return std::string(uri);
  const std::size_t colon = uri.find(':', start);
  if (colon == std::string_view::npos || colon > at) return std::string(uri);
  std::string out(uri.substr(0, colon + 1));
  out += kMask;
  out += uri.substr(at);
  return out;
}

// The length of the secret key ("password=", or as a conninfo may space it, "password = ")
// starting at `pos`, or 0. A key counts only at the start of a word, of a query parameter or of
// a quoted conninfo (dblink_connect('password=…')), so "sslpassword" is not read as "password".
std::size_t secret_key_length(std::string_view text, std::size_t pos) {
  if (pos > 0) {
    const char before = text[pos - 1];
    if (!is_space(before) && std::string_view("?&;'\"").find(before) == std::string_view::npos) {
      return 0;
    }
  }
  for (std::string_view key : kSecretKeys) {
    if (!iequals(text.substr(pos, key.size()), key)) continue;
    std::size_t end = pos + key.size();
    while (end < text.size() && text[end] == ' ') ++end;
    if (end >= text.size() || text[end] != '=') continue;
    ++end;
    while (end < text.size() && text[end] == ' ') ++end;
    return end - pos;
  }
  return 0;
}

// Whether `pos` lies inside an SQL literal: an odd number of quotes before it on its line.
bool inside_literal(std::string_view text, std::size_t pos) {
  const std::size_t line = text.rfind('\n', pos);
  const std::size_t from = line == std::string_view::npos ? 0 : line + 1;
  return std::count(text.begin() + static_cast<std::ptrdiff_t>(from),
                    text.begin() + static_cast<std::ptrdiff_t>(pos), '\'') %
             2 ==
         1;
}

// Whether the quote at `pos` closes the SQL literal a conninfo is written in
// (dblink_connect('… password=x')): what follows it ends a word.
bool closes_literal(std::string_view text, std::size_t pos) {
  const std::size_t next = pos + 1;
  return next >= text.size() || is_space(text[next]) || text[next] == ')' || text[next] == ',' ||
         text[next] == ';';
}

// Where the value starting at `pos` ends. A quoted value ends after its closing quote: libpq
// escapes a quote in it with a backslash, SQL by doubling it (SET password = 'it''s'), and a
// conninfo in a literal doubles its own quotes (password=''a b''). A bare one ends at whitespace,
// inside a URI query also at '&' or '#', and in a conninfo written `in_literal` at the quote
// that closes the literal (elsewhere a quote is part of a password).
std::size_t value_end(std::string_view text, std::size_t pos, bool in_query, bool in_literal) {
  if (pos < text.size() && (text[pos] == '\'' || text[pos] == '"')) {
    const std::string_view quote =
        text.substr(pos, 2) == "''" ? text.substr(pos, 2) : text.substr(pos, 1);
    for (std::size_t i = pos + quote.size(); i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (quote == "'" && text.substr(i, 2) == "''") {
        ++i;
      } else if (text.substr(i).starts_with(quote)) {
        return i + quote.size();
      }
    }
    return text.size();
  }
  std::size_t i = pos;
  while (i < text.size() && !is_space(text[i]) &&
         !(in_literal && text[i] == '\'' && closes_literal(text, i)) &&
         !(in_query && (text[i] == '&' || text[i] == '#'))) {
    ++i;
  }
  return i;
}

std::string mask_secret_values(std::string_view text) {
  // Every secret key ends in '=': a text without one (a status row) has nothing to mask.
  if (text.find('=') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t key_length = secret_key_length(text, i);
    if (key_length == 0) {
      out.push_back(text[i++]);
      continue;
    }
    const bool in_query = i > 0 && (text[i - 1] == '?' || text[i - 1] == '&');
    out += text.substr(i, key_length);
    out += kMask;
    // A value masked already (a message redacted twice, around a URI redacted alone) ends at its
    // mask: the text after it ("; migrations in …") is no part of the secret.
    const std::size_t value = i + key_length;
    i = text.substr(value).starts_with(kMask)
            ? value + kMask.size()
            : value_end(text, value, in_query, inside_literal(text, value));
  }
  return out;
}

// Where a cut-short literal ends: at the end of its line or of the quoted statement (a backtick).
bool cuts_literal(char c) { return c == '\n' || c == '`'; }

// The secret's text in the dollar-quoted string at `at` ($$…$$, $tag$…$tag$), [begin, end).
std::optional<std::pair<std::size_t, std::size_t>> dollar_quoted_text(std::string_view text,
                                                                      std::size_t at) {
  std::size_t tag_end = at + 1;
  while (tag_end < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[tag_end])) != 0 || text[tag_end] == '_')) {
    ++tag_end;
  }
  if (tag_end >= text.size() || text[tag_end] != '$') return std::nullopt;
  const std::string_view tag = text.substr(at, tag_end + 1 - at);
  std::size_t end = tag_end + 1;
  while (end < text.size() && !cuts_literal(text[end]) && !text.substr(end).starts_with(tag)) {
    ++end;
  }
  return std::pair{tag_end + 1, end};
}

// The secret's text in the literal at `at`, [begin, end): a quoted string's ('' is a quote in it;
// in E'…' a backslash escapes the next character; U&'…' is read as '…'), a dollar-quoted one's, or
// one written inside another literal (EXECUTE '… PASSWORD ''secret''': its quotes doubled). Cut
// short, it runs to the end of its line or statement. None when no literal starts there.
std::optional<std::pair<std::size_t, std::size_t>> literal_text(std::string_view text,
                                                                std::size_t at) {
  if (at < text.size() && text[at] == '$') return dollar_quoted_text(text, at);
  const bool escapes = at < text.size() && (text[at] == 'E' || text[at] == 'e');
  if (escapes) {
    ++at;
  } else if (text.substr(at, 2) == "U&" || text.substr(at, 2) == "u&") {
    at += 2;
  }
  if (at >= text.size() || text[at] != '\'') return std::nullopt;
  // '' opens a literal written inside another one (a quote in it is then ''''), when another ''
  // follows on its line to close it; else it is an empty literal.
  const std::size_t line_end = std::min(text.find('\n', at), text.size());
  const bool nested = text.substr(at, 2) == "''" &&
                      text.substr(at + 2, line_end - std::min(at + 2, line_end)).find("''") !=
                          std::string_view::npos;
  const std::string_view quote = nested ? "''" : "'";
  const std::size_t begin = at + quote.size();
  std::size_t end = begin;
  while (end < text.size() && !cuts_literal(text[end])) {
    const std::string_view rest = text.substr(end);
    if (escapes && text[end] == '\\') {
      end += 2;
    } else if (rest.starts_with(nested ? "''''" : "''")) {
      end += nested ? 4 : 2;  // a quote inside the literal
    } else if (rest.starts_with(quote)) {
      break;
    } else {
      ++end;
    }
  }
  return std::pair{begin, std::min(end, text.size())};
}

// Past the spaces and /* comments */ at `at`.
std::size_t past_spaces_and_comments(std::string_view text, std::size_t at) {
  while (at < text.size()) {
    if (is_space(text[at])) {
      ++at;
    } else if (text.substr(at, 2) == "/*") {
      const std::size_t close = text.find("*/", at + 2);
      if (close == std::string_view::npos) return text.size();
      at = close + 2;
    } else {
      break;
    }
  }
  return at;
}

// Masks the literal of SQL's `PASSWORD 'secret'` (CREATE or ALTER ROLE … [ENCRYPTED] PASSWORD, a
// foreign server's or user mapping's OPTIONS (password '…')): a failing migration's statement is
// quoted in its error, its log and its changelog record. The keyword stands as SQL writes it
// (after a space, '(' or ',') and a space or more apart from the literal, so that a literal
// ending in the word ('Reset password') is not taken for one. One masked already ('***) stays
// as it is.
std::string mask_sql_passwords(std::string_view text) {
  if (text.find_first_of("'$") == std::string_view::npos) return std::string(text);
  constexpr std::string_view kKeyword = "password";
  std::string out;
  std::size_t copied = 0;
  for (std::size_t i = 0; i + kKeyword.size() < text.size(); ++i) {
    const bool word_start =
        i == 0 || is_space(text[i - 1]) || text[i - 1] == '(' || text[i - 1] == ',';
    if (!word_start || !iequals(text.substr(i, kKeyword.size()), kKeyword)) continue;
    const std::size_t at = past_spaces_and_comments(text, i + kKeyword.size());
    if (at == i + kKeyword.size()) continue;
    const auto secret = literal_text(text, at);
    if (!secret) continue;
    const auto [begin, end] = *secret;
    out += text.substr(copied, begin - copied);
    out += kMask;
    copied = text.substr(begin).starts_with(kMask) ? begin + kMask.size() : end;
    i = copied;
  }
  out += text.substr(copied);
  return out;
}

bool ends_uri(char c) {
  return is_space(c) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`';
}

// Masks the userinfo of every URI in `text`: each "://" is widened to its scheme on the left
// and to the next whitespace or quote on the right.
std::string mask_userinfo_in_text(std::string_view text) {
  std::string out;
  std::size_t copied = 0;
  std::size_t marker = text.find("://");
  while (marker != std::string_view::npos) {
    std::size_t begin = marker;
    while (begin > copied && is_scheme_char(text[begin - 1])) --begin;
    std::size_t end = marker + 3;
    while (end < text.size() && !ends_uri(text[end])) ++end;
    out += text.substr(copied, begin - copied);
    out += mask_userinfo(text.substr(begin, end - begin));
    copied = end;
    marker = text.find("://", end);
  }
  out += text.substr(copied);
  return out;
}

// The length of the valid UTF-8 sequence of two or more bytes at `pos`, or 0.
std::size_t utf8_sequence_length(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
  };
  const unsigned char lead = byte(pos);
  std::size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong
    if (lead == 0xED) second_max = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong
    if (lead == 0xF4) second_max = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (byte(pos + 1) < second_min || byte(pos + 1) > second_max) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(pos + i) < 0x80 || byte(pos + i) > 0xBF) return 0;
  }
  return length;
}

// The length of the escape sequence starting with ESC at `pos`: CSI (ESC [ … final), string
// commands (OSC, DCS, SOS, PM, APC: up to BEL or ESC \) and two-or-more-byte escapes.
std::size_t escape_sequence_length(std::string_view text, std::size_t pos) {
  std::size_t i = pos + 1;
  if (i >= text.size()) return 1;
  const char kind = text[i++];
  if (kind == '[') {
    while (i < text.size() && text[i] >= 0x20 && text[i] <= 0x3F) ++i;
    if (i < text.size() && text[i] >= 0x40 && text[i] <= 0x7E) ++i;
    return i - pos;
  }
  if (kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_') {
    for (; i < text.size(); ++i) {
      if (text[i] == '\a') return i + 1 - pos;
      if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '\\') return i + 2 - pos;
    }
    return text.size() - pos;
  }
  if (kind >= 0x20 && kind <= 0x2F) {  // intermediates, then one final byte
    while (i < text.size() && text[i] >= 0x20 && text[i] <= 0x2F) ++i;
    if (i < text.size()) ++i;
  }
  return i - pos;
}

bool is_c0_or_del(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F; }

// The secrets remembered so far, longest first so that no shorter one masks part of another.
struct Secrets {
  std::mutex mutex;
  std::set<std::string, bool (*)(const std::string&, const std::string&)> values{
      [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() > b.size() : a < b;
      }};
};

Secrets& secrets() {
  static Secrets* instance = new Secrets();  // never destroyed: logging may outlive statics
  return *instance;
}

std::string mask_remembered(std::string text) {
  Secrets& known = secrets();
  std::lock_guard lock(known.mutex);
  for (const std::string& secret : known.values) {
    for (std::size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kMask.size())) {
      text.replace(at, secret.size(), kMask);
    }
  }
  return text;
}

// The password of "scheme://user:password@host", taken up to the last '@' like mask_userinfo.
std::string_view userinfo_password(std::string_view uri) {
  const std::size_t authority = uri.find("://");
  const std::size_t at = uri.rfind('@');
  if (authority == std::string_view::npos || at == std::string_view::npos || at < authority) {
    return {};
  }
  const std::size_t colon = uri.find(':', authority + 3);
  if (colon == std::string_view::npos || colon > at) return {};
  return uri.substr(colon + 1, at - colon - 1);
}

}  // namespace

void remember_secret(std::string_view secret) {
  if (secret.size() < kShortestSecret) return;
  Secrets& known = secrets();
  std::lock_guard lock(known.mutex);
  known.values.emplace(secret);
}

void remember_secrets(std::string_view uri) {
  std::vector<std::string_view> found = {userinfo_password(uri)};
  for (std::size_t i = 0; i < uri.size(); ++i) {
    const std::size_t key_length = secret_key_length(uri, i);
    if (key_length == 0) continue;
    const std::size_t start = i + key_length;
    const bool in_query = i > 0 && (uri[i - 1] == '?' || uri[i - 1] == '&');
    found.push_back(uri.substr(start, value_end(uri, start, in_query, false) - start));
  }
  for (std::string_view secret : found) {
    remember_secret(secret);
    remember_secret(percent_decoded(secret));
  }
}

std::optional<std::string> userinfo_encoding_problem(std::string_view uri) {
  const std::size_t scheme_end = uri.find("://");
  if (is_sqlite_uri(uri) || scheme_end == std::string_view::npos) return std::nullopt;
  const std::string_view rest = uri.substr(scheme_end + 3);
  const std::size_t authority_end = std::min(rest.find_first_of("/?"), rest.size());
  const std::string_view authority = rest.substr(0, authority_end);
  if (std::count(authority.begin(), authority.end(), '@') > 1) {
    return "has a raw '@' in its user name or password; percent-encode it as %40";
  }
  // An '@' in the parameters is a value's (?user=admin@server); one in the path is not.
  const std::string_view path = rest.substr(authority_end, rest.find('?', authority_end));
  if (path.starts_with('/') && path.find('@') != std::string_view::npos) {
    return "has an '@' in its path: a raw '/' in the user name or password ends the host part "
           "early; percent-encode it as %2F (and an '@' in the database name as %40)";
  }
  return std::nullopt;
}

std::string redact_uri(std::string_view uri) { return mask_secret_values(mask_userinfo(uri)); }

std::string redact(std::string_view text) {
  return mask_remembered(mask_sql_passwords(mask_secret_values(mask_userinfo_in_text(text))));
}

std::string single_line(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (char c : field) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string sanitize_for_terminal(std::string_view text) {
  // Printable ASCII lines, the common case, pass as they are.
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return (c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t'; })) {
    return std::string(text);
  }
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1B) {
      i += escape_sequence_length(text, i);
    } else if (c < 0x80) {
      if (!is_c0_or_del(c)) out.push_back(static_cast<char>(c));
      ++i;
    } else if (const std::size_t length = utf8_sequence_length(text, i); length > 0) {
      const bool c1 = c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
      if (!c1) out += text.substr(i, length);
      i += length;
    } else {
      if (c > 0x9F) out.push_back(static_cast<char>(c));  // stray byte, but not a C1 control
      ++i;
    }
  }
  return out;
}

}  // namespace migronaut

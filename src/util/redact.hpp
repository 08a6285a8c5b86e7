// Keeping secrets and hostile bytes out of what migronaut prints: every error message, log line
// and JSON payload goes through redact(); every string read from a database goes through
// sanitize_for_terminal() before it reaches a terminal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace migronaut {

// One connection URI with its password masked: "postgres://app:***@db/x?password=***&sslmode=
// require". The user name and every other parameter stay, so the message still says where.
std::string redact_uri(std::string_view uri);

// Why a driver would misread the user name or password of network URI `uri` (any but
// sqlite:), or nullopt. libpq takes the userinfo to end at the first '@', and looks for it only
// up to the first '/': a raw '@' in a password makes the rest of it the host, a raw '/' makes
// part of it the port, which the driver's error then prints. The reason names no part of
// the password. (redact_uri() takes the userinfo to the last '@', so such a password is masked.)
std::optional<std::string> userinfo_encoding_problem(std::string_view uri);

// Any text (an error message, a driver's diagnostic) with every "scheme://user:pass@", every
// libpq-style "password=…" / "sslpassword=…" value, MongoDB's "tlsCertificateKeyFilePassword=…"
// (and its legacy ssl spelling) and "authMechanismProperties=…", SQL's `PASSWORD '…'` literal, and
// every remembered secret masked.
std::string redact(std::string_view text);

// Remembers the secrets `uri` holds — the password of its userinfo and the values of the secret
// parameters redact() masks, as written and percent-decoded — so that redact() masks them
// wherever they appear: a driver's message may quote a piece of a URI out of context.
void remember_secrets(std::string_view uri);
// Remembers one secret as a driver parsed it (PQconninfoParse, mongoc_uri_get_password).
// Secrets shorter than four bytes are not remembered: masking them would garble every message.
void remember_secret(std::string_view secret);

// `text` without C0 controls (tab and newline excepted), DEL, C1 controls (U+0080–U+009F, and
// raw bytes 0x80–0x9F outside valid UTF-8) and ESC sequences, so a value stored in the database
// cannot move the cursor, recolor or retitle the user's terminal.
std::string sanitize_for_terminal(std::string_view text);

// One field of a line (a name, a host, a user) read from the database or the environment: its
// newlines and tabs written as \n and \t, so a hand-made value cannot forge a line of a report.
// The whole line still goes through sanitize_for_terminal().
std::string single_line(std::string_view field);

}  // namespace migronaut

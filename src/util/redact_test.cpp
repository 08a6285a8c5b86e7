#include "util/redact.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

namespace migronaut {
namespace {

TEST(RedactUriTest, MasksUserinfoPassword) {
  EXPECT_EQ(redact_uri("postgres://app:s3cret@db.example:5432/app"),
            "postgres://app:***@db.example:5432/app");
  EXPECT_EQ(redact_uri("mongodb+srv://root:pw@cluster0.example/db?authSource=admin"),
            "mongodb+srv://root:***@cluster0.example/db?authSource=admin");
}

TEST(RedactUriTest, MasksPasswordWithReservedCharacters) {
  EXPECT_EQ(redact_uri("postgres://u:p@ss/w?rd@h/db"), "postgres://u:***@h/db");
  EXPECT_EQ(redact_uri("mongodb://u:a:b@h1,h2/db"), "mongodb://u:***@h1,h2/db");
}

TEST(RedactUriTest, MasksPasswordQueryParameterOnly) {
  EXPECT_EQ(redact_uri("postgresql://db/app?user=u&password=pw&sslmode=require"),
            "postgresql://db/app?user=u&password=***&sslmode=require");
  EXPECT_EQ(redact_uri("postgresql://db/app?sslpassword=k"), "postgresql://db/app?sslpassword=***");
  EXPECT_EQ(redact_uri("mongodb://u:p@h/?PASSWORD=x&authSource=admin"),
            "mongodb://u:***@h/?PASSWORD=***&authSource=admin");
}

TEST(RedactUriTest, MasksMongoDbSecretOptions) {
  EXPECT_EQ(redact_uri("mongodb://h/db?tlsCertificateKeyFilePassword=K3y&tls=true"),
            "mongodb://h/db?tlsCertificateKeyFilePassword=***&tls=true");
  EXPECT_EQ(redact_uri("mongodb://h/db?sslclientcertificatekeypassword=K3y"),
            "mongodb://h/db?sslclientcertificatekeypassword=***");
  EXPECT_EQ(redact_uri("mongodb://h/db?authMechanism=MONGODB-AWS&authMechanismProperties="
                       "AWS_SESSION_TOKEN:t0ken&w=1"),
            "mongodb://h/db?authMechanism=MONGODB-AWS&authMechanismProperties=***&w=1");
}

TEST(RedactUriTest, LeavesUrisWithoutSecretsAlone) {
  EXPECT_EQ(redact_uri("mongodb://user@h/db"), "mongodb://user@h/db");
  EXPECT_EQ(redact_uri("postgres://h:5432/db"), "postgres://h:5432/db");
  EXPECT_EQ(redact_uri("sqlite:data/app.db"), "sqlite:data/app.db");
}

TEST(UserinfoEncodingTest, RefusesWhatTheDriverWouldSplitAndShowsNoPassword) {
  for (const char* uri :
       {"postgres://app:Pa1n@w0rd@h/db", "postgres://sec:Tr0ub4dor/3xyz@127.0.0.1:5432/postgres",
        "mongodb://root:Tr0ub/4dor@h1,h2/db"}) {
    const std::optional<std::string> problem = userinfo_encoding_problem(uri);
    ASSERT_TRUE(problem.has_value()) << uri;
    EXPECT_EQ(problem->find("Tr0ub"), std::string::npos) << *problem;
    EXPECT_EQ(problem->find("w0rd"), std::string::npos) << *problem;
  }
  EXPECT_NE(userinfo_encoding_problem("postgres://sec:Tr0ub4dor/3xyz@h/db")->find("%2F"),
            std::string::npos);
}

TEST(UserinfoEncodingTest, TakesEncodedUserinfoAndUrisWithoutOne) {
  for (const char* uri :
       {"postgres://app:Pa1n%40w0rd@h/db", "postgres://sec:Tr0ub4dor%2F3xyz@h:5432/postgres",
        "postgres://h/db?sslmode=require", "postgres://u:p@[::1]:5432,h2:5433/db",
        "postgres:///db?host=/run/postgresql", "sqlite:///data/a@b.db", "sqlite:a@b.db",
        // libpq looks for the userinfo's '@' up to the first '/' only: these it reads right.
        "postgresql://sec:Tr0ub?4dor@h/db", "postgres://sec:Tr0ub#4dor@h/db",
        "postgres://h/db?user=admin@server", "postgresql://h/db?application_name=ops@corp"}) {
    EXPECT_EQ(userinfo_encoding_problem(uri), std::nullopt) << uri;
  }
}

TEST(RedactTest, MasksEveryUriInAMessage) {
  EXPECT_EQ(redact("cannot reach postgres://a:one@h1/db, nor \"mongodb://b:two@h2/x\"."),
            "cannot reach postgres://a:***@h1/db, nor \"mongodb://b:***@h2/x\".");
}

TEST(RedactTest, MasksConninfoPasswords) {
  EXPECT_EQ(redact("connect host=db user=app password=hunter2 dbname=x"),
            "connect host=db user=app password=*** dbname=x");
  EXPECT_EQ(redact("host=db password='with space' sslpassword=\"k\\\"ey\" port=1"),
            "host=db password=*** sslpassword=*** port=1");
  EXPECT_EQ(redact("password=a&b port=1"), "password=*** port=1");
  // In a migration's SQL: a conninfo in a literal, spaced as libpq allows.
  EXPECT_EQ(redact("SELECT dblink_connect('password=s3cret host=db')"),
            "SELECT dblink_connect('password=*** host=db')");
  EXPECT_EQ(redact("SELECT dblink_connect('host=db password = s3cret')"),
            "SELECT dblink_connect('host=db password = ***')");
  EXPECT_EQ(redact(redact("host=db password = s3cret port=1")), "host=db password = *** port=1");
  // A quote inside a password is part of it; a literal's own quotes end it.
  EXPECT_EQ(redact("postgres://h/db?password=ab'cdef&x=1"), "postgres://h/db?password=***&x=1");
  EXPECT_EQ(redact("host=db password=ab'cdef port=1"), "host=db password=*** port=1");
  EXPECT_EQ(redact("host=db password=pa';word user=x"), "host=db password=*** user=x");
  EXPECT_EQ(redact("SELECT dblink_connect('dbname=x password=''a b''')"),
            "SELECT dblink_connect('dbname=x password=***')");
  EXPECT_EQ(redact("UPDATE t SET password = 'it''s' WHERE id = 1"),
            "UPDATE t SET password = *** WHERE id = 1");
}

// A message built around a URI redacted on its own is redacted again as it is shown.
TEST(RedactTest, ASecondPassKeepsTheTextAfterAMaskedValue) {
  const std::string line = "connecting to " + redact("postgres://h/db?password=s3cret") +
                           "; migrations in db/migrations";
  EXPECT_EQ(redact(line),
            "connecting to postgres://h/db?password=***; migrations in db/migrations");
}

TEST(RedactTest, IgnoresKeysInsideOtherWords) {
  EXPECT_EQ(redact("mypassword=visible"), "mypassword=visible");
}

// A failing statement is quoted in errors, logs and the changelog: a role's password in it is not.
TEST(RedactTest, MasksSqlPasswordLiterals) {
  EXPECT_EQ(redact("at line 2 in `ALTER ROLE app WITH PASSWORD 'topsecret42'`: role missing"),
            "at line 2 in `ALTER ROLE app WITH PASSWORD '***'`: role missing");
  EXPECT_EQ(redact("CREATE ROLE a LOGIN ENCRYPTED password\n  'it''s secret' VALID UNTIL 'x'"),
            "CREATE ROLE a LOGIN ENCRYPTED password\n  '***' VALID UNTIL 'x'");
  EXPECT_EQ(redact("CREATE USER MAPPING FOR app SERVER s OPTIONS (user 'app', password 'pw1')"),
            "CREATE USER MAPPING FOR app SERVER s OPTIONS (user 'app', password '***')");
  EXPECT_EQ(redact("in `ALTER ROLE a PASSWORD 'cut short…`: role \"a\" does not exist"),
            "in `ALTER ROLE a PASSWORD '***`: role \"a\" does not exist");
  EXPECT_EQ(redact("ALTER ROLE a PASSWORD E'it\\'s\\\\' LOGIN"),
            "ALTER ROLE a PASSWORD E'***' LOGIN");
  // Every way SQL writes the literal after `ALTER ROLE a PASSWORD`, and what is no literal.
  const std::pair<std::string_view, std::string_view> written[] = {
      {" $$it's$$ LOGIN", " $$***$$ LOGIN"},
      {" $pw$x$y$pw$;", " $pw$***$pw$;"},
      {" $q$cut…`: x", " $q$***`: x"},   // cut short inside a quoted statement
      {" $1", " $1"},                    // a parameter
      {" ''s3cret''';", " ''***''';"},   // inside another literal: EXECUTE '…'
      {" ''it''''s''';", " ''***''';"},  // a quote in it
      {" '' secret''';", " ''***''';"},
      {" ''; SELECT 1", " '***'; SELECT 1"},  // an empty one
      {" '';", " '***';"},
      {"/**/'s3cret';", "/**/'***';"},
      {" /* x */ 's3cret';", " /* x */ '***';"},
      {" U&'s3cret';", " U&'***';"},
  };
  for (const auto& [literal, masked] : written) {
    EXPECT_EQ(redact("ALTER ROLE a PASSWORD" + std::string(literal)),
              "ALTER ROLE a PASSWORD" + std::string(masked));
  }
  // Masked twice, or cut inside its mask: the mask stays, and so does what follows.
  EXPECT_EQ(redact(redact("PASSWORD 'x'; then 'y'")), "PASSWORD '***'; then 'y'");
  EXPECT_EQ(redact("in `ALTER ROLE a PASSWORD '**…`: duplicate key"),
            "in `ALTER ROLE a PASSWORD '***`: duplicate key");
  // Literals that end in the word, and the word in prose: nothing to mask, nothing lost.
  EXPECT_EQ(redact("INSERT INTO t VALUES ('Reset password'), ('x'): duplicate key"),
            "INSERT INTO t VALUES ('Reset password'), ('x'): duplicate key");
  EXPECT_EQ(redact("the user's password's strength"), "the user's password's strength");
  EXPECT_EQ(redact("ALTER ROLE a PASSWORD NULL; SELECT 'password'"),
            "ALTER ROLE a PASSWORD NULL; SELECT 'password'");
  EXPECT_EQ(redact("UPDATE t SET old_password = 'kept'"), "UPDATE t SET old_password = 'kept'");
}

TEST(RedactTest, LeavesPlainTextAlone) {
  EXPECT_EQ(redact("syntax error at or near \"SELEC\""), "syntax error at or near \"SELEC\"");
}

TEST(SanitizeTest, KeepsPrintableTextTabsAndNewlines) {
  EXPECT_EQ(sanitize_for_terminal("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(sanitize_for_terminal("caf\xC3\xA9 \xE2\x9C\x93"), "caf\xC3\xA9 \xE2\x9C\x93");
}

TEST(SanitizeTest, StripsC0ControlsAndDel) {
  EXPECT_EQ(sanitize_for_terminal(std::string("a\rb\x07"
                                              "c\x7F"
                                              "d\0e",
                                              9)),
            "abcde");
}

TEST(SanitizeTest, StripsEscapeSequences) {
  EXPECT_EQ(sanitize_for_terminal("\x1b[31mred\x1b[0m"), "red");
  EXPECT_EQ(sanitize_for_terminal("\x1b]0;title\x07text"), "text");
  EXPECT_EQ(sanitize_for_terminal("\x1b]8;;http://x\x1b\\link"), "link");
  EXPECT_EQ(sanitize_for_terminal("a\x1b"
                                  "cb\x1b(Bc"),
            "abc");
  EXPECT_EQ(sanitize_for_terminal("end\x1b"), "end");
}

TEST(RememberedSecretsTest, AreMaskedWhereverTheyAppear) {
  remember_secrets("postgres://app:Tr0ub%40dor-x@db/app?sslpassword=k3y-file-pw");
  // A driver quoting the password out of context: no URI shape left to recognise.
  EXPECT_EQ(redact("authentication with Tr0ub@dor-x failed"), "authentication with *** failed");
  EXPECT_EQ(redact("bad key k3y-file-pw, raw Tr0ub%40dor-x"), "bad key ***, raw ***");
  remember_secret("pw");  // too short to mask without garbling every message
  EXPECT_EQ(redact("pwd"), "pwd");
}

TEST(SingleLineTest, WritesNewlinesAndTabsAsEscapes) {
  EXPECT_EQ(single_line("20250101000000-x\nfake line.sql"), "20250101000000-x\\nfake line.sql");
  EXPECT_EQ(single_line("eve\tmallory"), "eve\\tmallory");
  EXPECT_EQ(single_line("plain-host"), "plain-host");
}

TEST(SanitizeTest, StripsC1ControlsInUtf8AndRaw) {
  EXPECT_EQ(sanitize_for_terminal("a\xC2\x9B"
                                  "31mb"),
            "a31mb");
  EXPECT_EQ(sanitize_for_terminal("a\x9B"
                                  "b\x85"
                                  "c"),
            "abc");
  EXPECT_EQ(sanitize_for_terminal("\xC2\xA0"), "\xC2\xA0");  // NBSP is printable
}

}  // namespace
}  // namespace migronaut

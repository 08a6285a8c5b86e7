#include "core/env_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "migronaut/errors.hpp"
#include "support/temp_dir.hpp"

namespace migronaut {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(ParseEnvTest, ReadsAssignmentsInOrder) {
  EXPECT_THAT(parse_env("B=2\nA=1\n", ".env"), ElementsAre(Pair("B", "2"), Pair("A", "1")));
}

TEST(ParseEnvTest, AcceptsExportPrefixAndSpacesAroundEquals) {
  EXPECT_THAT(parse_env("export URI = mongodb://h\n  export\tX=1", ".env"),
              ElementsAre(Pair("URI", "mongodb://h"), Pair("X", "1")));
}

TEST(ParseEnvTest, SkipsCommentsBlankAndNonAssignmentLines) {
  EXPECT_THAT(parse_env("# comment\n\n   # indented\nnot an assignment\nA=1\n", ".env"),
              ElementsAre(Pair("A", "1")));
}

TEST(ParseEnvTest, InlineCommentOnlyAfterWhitespace) {
  EXPECT_THAT(parse_env("A=value # comment\nB=color#fff\nC=\t# only comment", ".env"),
              ElementsAre(Pair("A", "value"), Pair("B", "color#fff"), Pair("C", "")));
}

TEST(ParseEnvTest, SingleQuotesAreLiteral) {
  EXPECT_THAT(parse_env("A='a # b \\n $HOME' # comment", ".env"),
              ElementsAre(Pair("A", "a # b \\n $HOME")));
}

TEST(ParseEnvTest, DoubleQuotesUnescapeAndKeepHash) {
  EXPECT_THAT(parse_env(R"(A="line1\nline2 # not a comment \"q\" \\" # comment)", ".env"),
              ElementsAre(Pair("A", "line1\nline2 # not a comment \"q\" \\")));
}

TEST(ParseEnvTest, DoubleQuotesSpanLines) {
  EXPECT_THAT(parse_env("KEY=\"-----BEGIN-----\nabc\n-----END-----\"\nNEXT=1\n", ".env"),
              ElementsAre(Pair("KEY", "-----BEGIN-----\nabc\n-----END-----"), Pair("NEXT", "1")));
}

TEST(ParseEnvTest, NoInterpolation) {
  EXPECT_THAT(parse_env("A=1\nB=${A}\nC=\"$A\"", ".env"),
              ElementsAre(Pair("A", "1"), Pair("B", "${A}"), Pair("C", "$A")));
}

TEST(ParseEnvTest, HandlesCrlfAndBom) {
  EXPECT_THAT(parse_env("\xEF\xBB\xBF"
                        "A=1\r\nB=\"x\r\ny\"\r\n",
                        ".env"),
              ElementsAre(Pair("A", "1"), Pair("B", "x\ny")));
}

TEST(ParseEnvTest, LaterDefinitionWins) {
  EXPECT_THAT(parse_env("A=1\nB=2\nA=3", ".env"), ElementsAre(Pair("A", "3"), Pair("B", "2")));
}

TEST(ParseEnvTest, UnterminatedQuoteNamesTheLine) {
  try {
    parse_env("A=1\nB=\"open\nC=2\n", "/app/.env");
    FAIL() << "expected ConfigInvalidError";
  } catch (const ConfigInvalidError& error) {
    EXPECT_EQ(error.context()["file"], "/app/.env");
    EXPECT_EQ(error.context()["line"], 2);
  }
  EXPECT_THROW(parse_env("A='open", ".env"), ConfigInvalidError);
}

// A line of a name migronaut reads that is no assignment, or that sets it again, would leave its
// setting to another line or the default without a word: refused, naming the line but not
// showing it (it may hold a secret). Other names keep dotenv's leniency.
TEST(ParseEnvTest, RefusesALineOfAMigronautNameThatIsNoSingleAssignment) {
  const std::vector<std::pair<std::string, int>> cases = {
      {"A=1\nMIGRONAUT_URI sqlite:dev.db\n", 2},
      {"MIGRONAUT-LOCK-TTL: 5\n", 1},
      {"DATABASE_URL postgres://app:s3cret@db/a\n", 1},
      {"MIGRONAUT_URI=sqlite:a.db\n# again\nMIGRONAUT_URI=sqlite:b.db\n", 3},
      {"DATABASE_URL=postgres://app:s3cret@db/a\nDATABASE_URL=postgres://db/b\n", 2}};
  for (const auto& [text, line] : cases) {
    try {
      parse_env(text, "/app/.env");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ConfigInvalidError& error) {
      EXPECT_EQ(error.context()["line"], line) << text;
      EXPECT_EQ(std::string(error.what()).find("s3cret"), std::string::npos) << error.what();
    }
  }
  EXPECT_THAT(parse_env("OTHER_APP_FLAG\nNODE_ENV=dev\nNODE_ENV=test\nMIGRONAUTICS key\n"
                        "MIGRONAUT_URI\nexport DATABASE_URL\n",
                        ".env"),
              ElementsAre(Pair("NODE_ENV", "test")));
}

class ReadEnvFileTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

TEST_F(ReadEnvFileTest, ReadsARegularFile) {
  EXPECT_THAT(read_env_file(dir_.write(".env", "A=1\n")), ElementsAre(Pair("A", "1")));
}

TEST_F(ReadEnvFileTest, RejectsADirectory) {
  std::filesystem::create_directory(dir_.path() / "dir.env");
  EXPECT_THROW(read_env_file(dir_.path() / "dir.env"), ConfigInvalidError);
}

TEST_F(ReadEnvFileTest, RejectsAMissingFile) {
  EXPECT_THROW(read_env_file(dir_.path() / "absent.env"), ConfigInvalidError);
}

TEST_F(ReadEnvFileTest, RejectsAFileOverOneMegabyte) {
  const auto path = dir_.write("big.env", "A=" + std::string(1024 * 1024, 'x') + "\n");
  EXPECT_THROW(read_env_file(path), ConfigInvalidError);
}

}  // namespace
}  // namespace migronaut

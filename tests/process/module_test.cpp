// The CLI's modules laid out as an install lays them out, beside a copy of the binary: the
// build's own parser module loads, and one of another release is refused, naming both
// releases, or, when it no longer links, saying it may be one.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace migronaut::testing {
namespace {

namespace fs = std::filesystem;

class ModuleTest : public ::testing::Test {
 protected:
  // `migronaut lint` of a blocking index build, by a copy of the CLI whose PostgreSQL parser
  // module is `parser`.
  ProcessResult lint_with_parser(const fs::path& parser) const {
    fs::create_directories(install_.file("bin"));
    fs::copy_file(migronaut_binary(), install_.file("bin/migronaut"));
    fs::copy_file(parser, install_.file("bin/libmigronaut-pg-parser.so"));
    const fs::path file =
        install_.write("20260101000000-index.sql", "-- migrate:up\nCREATE INDEX i ON t (c);\n");
    Process lint({install_.file("bin/migronaut").string(), "--no-env", "lint", file.string()}, {},
                 install_.path());
    return lint.wait();
  }

  TempDir install_{"migronaut-module-test"};
};

TEST_F(ModuleTest, TheBuildsOwnParserModuleLoadsBesideTheBinary) {
  const ProcessResult result =
      lint_with_parser(fs::path(migronaut_binary()).parent_path() / "libmigronaut-pg-parser.so");
  EXPECT_EQ(result.exit_code, 45) << result.err;
  EXPECT_NE(result.err.find("require-concurrent-index-creation"), std::string::npos) << result.err;
}

TEST_F(ModuleTest, AModuleOfAnotherReleaseIsRefusedNamingBoth) {
  const ProcessResult result = lint_with_parser(MIGRONAUT_STALE_MODULE);
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_NE(result.err.find("PostgreSQL's parser module could not be loaded"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("built for migronaut 0.0.0-another-release, not "), std::string::npos)
      << result.err;
}

TEST_F(ModuleTest, AModuleThatNoLongerLinksIsRefusedAsPossiblyOfAnotherRelease) {
  const ProcessResult result = lint_with_parser(MIGRONAUT_UNLINKED_MODULE);
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_NE(result.err.find("migronaut_symbol_of_another_release"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("(a module of another release?)"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace migronaut::testing

#include "cli/help.hpp"

#include <gtest/gtest.h>

namespace migronaut::cli {
namespace {

const std::vector<std::string> kCommands = {"init", "create", "up",   "down",   "status",
                                            "list", "lock",   "wait", "unlock", "dry-run"};

TEST(Closest, FindsTyposAndPrefixes) {
  EXPECT_EQ(closest("stauts", kCommands), "status");
  EXPECT_EQ(closest("unlok", kCommands), "unlock");
  EXPECT_EQ(closest("dryrun", kCommands), "dry-run");
  EXPECT_EQ(closest("stat", kCommands), "status");
  EXPECT_EQ(closest("--chek", {"--check", "--json"}), "--check");
}

TEST(Closest, SuggestsNothingFarAway) {
  EXPECT_EQ(closest("migrate", kCommands), "");
  EXPECT_EQ(closest("x", {"--check"}), "");
}

TEST(ExplainExtras, NamesTheCommandAndTheFlag) {
  CLI::App app{"test", "migronaut"};
  bool check = false;
  CLI::App* status = app.add_subcommand("status", "");
  status->add_flag("--check", check, "");
  EXPECT_EQ(explain_extras(app, nullptr, {"stats"}),
            "unknown command `stats` (did you mean `status`?) — see `migronaut help`");
  EXPECT_EQ(explain_extras(app, status, {"--chek=1"}),
            "unknown flag `--chek` (did you mean `--check`?) — see `migronaut help status`");
}

TEST(ExitCodes, ListsEveryCodeWithItsName) {
  const std::string text = exit_codes_text();
  EXPECT_NE(text.find("3  LOCK_ALREADY_HELD"), std::string::npos) << text;
  EXPECT_NE(text.find("20  MIGRATION_INVALID_FORMAT"), std::string::npos) << text;
  EXPECT_NE(text.find("130 / 143"), std::string::npos) << text;
}

}  // namespace
}  // namespace migronaut::cli

#include "cli/help.hpp"

#include <gtest/gtest.h>

#include "fmt/format.h"
#include "migronaut/errors.hpp"

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
  CLI::App* up = app.add_subcommand("up", "");
  EXPECT_EQ(explain_extras(app, up, {"--dry-run"}),
            "unknown flag `--dry-run` (did you mean `migronaut dry-run up`?) — see "
            "`migronaut help up`");
  EXPECT_EQ(
      explain_extras(app, up, {"--dry"}),
      "unknown flag `--dry` (did you mean `migronaut dry-run up`?) — see `migronaut help up`");
}

TEST(ExitCodes, ListsEveryCodeWithItsName) {
  const std::string text = exit_codes_text();
  // Every status with a name of its own is listed with that name.
  for (int status = 2; status < 100; ++status) {
    const std::string_view name = error_code_name(static_cast<ErrorCode>(status));
    if (name == "UNCLASSIFIED") continue;
    EXPECT_NE(text.find(fmt::format("{:>3}  {}", status, name)), std::string::npos)
        << name << " is missing from:\n"
        << text;
  }
  EXPECT_NE(text.find("130 / 143"), std::string::npos) << text;
}

}  // namespace
}  // namespace migronaut::cli

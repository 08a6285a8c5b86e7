#include "core/plan.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

Migration migration(const std::string& name, bool reversible = true) {
  Migration m;
  m.name = name;
  m.checksum = "sum-" + name;
  m.up = Script{"-- up"};
  if (reversible) m.down = Script{"-- down"};
  return m;
}

ChangelogRecord record(const std::string& name, RecordStatus status, std::int64_t batch,
                       std::int64_t applied_at = 0) {
  ChangelogRecord r;
  r.name = name;
  r.status = status;
  r.batch = batch;
  r.checksum = "sum-" + name;
  if (applied_at > 0) r.applied_at_ms = applied_at;
  return r;
}

std::vector<std::string> names(const std::vector<const PlanEntry*>& entries) {
  std::vector<std::string> out;
  for (const PlanEntry* e : entries) out.push_back(e->name);
  return out;
}

class PlanTest : public ::testing::Test {
 protected:
  std::vector<Migration> migrations = {migration("0001-a.sql"), migration("0002-b.sql"),
                                       migration("0003-c.sql"), migration("0004-d.sql", false)};
  Config config;
};

TEST_F(PlanTest, OnlyAppliedCountsAsDone) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1),
                                           record("0002-b.sql", RecordStatus::kFailed, 2),
                                           record("0003-c.sql", RecordStatus::kApplying, 2)});
  ASSERT_EQ(plan.entries.size(), 4u);
  EXPECT_EQ(plan.entries[0].state, MigrationState::kApplied);
  EXPECT_EQ(plan.entries[1].state, MigrationState::kFailed);
  EXPECT_EQ(plan.entries[2].state, MigrationState::kInterrupted);
  EXPECT_EQ(plan.entries[3].state, MigrationState::kPending);
  EXPECT_EQ(plan.next_batch(), 3);
  EXPECT_EQ(names(select_up(plan, {}, config).targets),
            (std::vector<std::string>{"0002-b.sql", "0003-c.sql", "0004-d.sql"}));
  EXPECT_EQ(status_row(plan.entries[2]).state, "interrupted");
}

TEST_F(PlanTest, RolledBackBatchNumbersAreNeverReused) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1),
                                           record("0002-b.sql", RecordStatus::kReverted, 7)});
  EXPECT_EQ(plan.next_batch(), 8);
}

TEST_F(PlanTest, TheLargestBatchNumberIsRefusedNotWrapped) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied,
                                                  std::numeric_limits<std::int64_t>::max())});
  EXPECT_THROW(plan.next_batch(), ChangelogInvalidError);
}

TEST_F(PlanTest, DriftIsSkippedWithAWarningOrStopsWhenStrict) {
  auto drifted = record("0001-a.sql", RecordStatus::kApplied, 1);
  drifted.checksum = "an older version";
  const Plan plan = make_plan(migrations, {drifted});
  const UpSelection selection = select_up(plan, {}, config);
  EXPECT_EQ(names(selection.drifted), std::vector<std::string>{"0001-a.sql"});
  EXPECT_EQ(selection.targets.size(), 3u);
  EXPECT_EQ(status_row(plan.entries[0]).checksum_ok, false);
  config.strict = true;
  EXPECT_THROW(select_up(plan, {}, config), ChecksumMismatchError);
}

TEST_F(PlanTest, LateArrivalsFollowTheOutOfOrderPolicy) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1),
                                           record("0003-c.sql", RecordStatus::kApplied, 1)});
  EXPECT_TRUE(plan.entries[1].out_of_order);
  EXPECT_FALSE(plan.entries[3].out_of_order);
  EXPECT_EQ(names(select_up(plan, {}, config).out_of_order),
            std::vector<std::string>{"0002-b.sql"});
  config.on_out_of_order = OnOutOfOrder::kError;
  EXPECT_THROW(select_up(plan, {}, config), MigrationOutOfOrderError);
  UpOptions single;
  single.file = "0002-b.sql";  // a single-file up is exempt
  EXPECT_EQ(names(select_up(plan, single, config).targets), std::vector<std::string>{"0002-b.sql"});
}

TEST_F(PlanTest, UpToStopsAtTheTargetAndUnknownTargetsAreErrors) {
  const Plan plan = make_plan(migrations, {});
  UpOptions options;
  options.to = "0002-b.sql";
  EXPECT_EQ(names(select_up(plan, options, config).targets),
            (std::vector<std::string>{"0001-a.sql", "0002-b.sql"}));
  options.to = "0009-nope.sql";
  EXPECT_THROW(select_up(plan, options, config), MigrationFileNotFoundError);
  options.to.reset();
  options.file = "0009-nope.sql";
  EXPECT_THROW(select_up(plan, options, config), MigrationFileNotFoundError);
}

TEST_F(PlanTest, DownRevertsTheLastBatchNewestFirst) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1, 100),
                                           record("0002-b.sql", RecordStatus::kApplied, 2, 200),
                                           record("0003-c.sql", RecordStatus::kApplied, 2, 200)});
  EXPECT_EQ(names(select_down(plan, {})), (std::vector<std::string>{"0003-c.sql", "0002-b.sql"}));
  DownOptions steps;
  steps.steps = 3;
  EXPECT_EQ(names(select_down(plan, steps)),
            (std::vector<std::string>{"0003-c.sql", "0002-b.sql", "0001-a.sql"}));
  DownOptions batch;
  batch.batch = 1;
  EXPECT_EQ(names(select_down(plan, batch)), std::vector<std::string>{"0001-a.sql"});
  DownOptions to;
  to.to = "0001-a.sql";
  EXPECT_EQ(names(select_down(plan, to)), (std::vector<std::string>{"0003-c.sql", "0002-b.sql"}));
}

TEST_F(PlanTest, DownRefusesBeforeRunningAnything) {
  auto baseline = record("0002-b.sql", RecordStatus::kApplied, 1, 100);
  baseline.origin = "baseline";
  const Plan plan =
      make_plan(migrations, {baseline, record("0004-d.sql", RecordStatus::kApplied, 2, 200),
                             record("0009-gone.sql", RecordStatus::kApplied, 3, 300),
                             record("../escape.sql", RecordStatus::kApplied, 3, 300)});
  DownOptions one;
  one.file = "0001-a.sql";
  EXPECT_THROW(select_down(plan, one), NotAppliedError);
  one.file = "0002-b.sql";
  EXPECT_THROW(select_down(plan, one), MigrationIrreversibleError);
  one.file = "0004-d.sql";  // no down section
  EXPECT_THROW(select_down(plan, one), MigrationIrreversibleError);
  one.file = "0009-gone.sql";
  EXPECT_THROW(select_down(plan, one), MigrationFileNotFoundError);
  one.file = "../escape.sql";
  EXPECT_THROW(select_down(plan, one), MigrationInvalidNameError);
  DownOptions both;
  both.steps = 1;
  both.batch = 1;
  EXPECT_THROW(select_down(plan, both), ConfigInvalidError);
  DownOptions zero;
  zero.steps = 0;
  EXPECT_THROW(select_down(plan, zero), ConfigInvalidError);
}

TEST_F(PlanTest, RecordsWithoutMigrationsShowAsMissing) {
  const Plan plan = make_plan(migrations, {record("0000-old.sql", RecordStatus::kApplied, 1),
                                           record("0000-tried.sql", RecordStatus::kFailed, 1)});
  ASSERT_EQ(plan.entries.front().name, "0000-old.sql");
  EXPECT_EQ(status_row(plan.entries.front()).state, "missing");
  for (const PlanEntry& entry : plan.entries) EXPECT_NE(entry.name, "0000-tried.sql");
}

}  // namespace
}  // namespace migronaut

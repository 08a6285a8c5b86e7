#include "core/plan.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string_view>

#include "migronaut/errors.hpp"

namespace migronaut {
namespace {

Migration migration(const std::string& name, bool reversible = true) {
  Migration m;
  m.name = name;
  m.version = record_order(name).version;
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
  for (const PlanEntry* e : entries) out.emplace_back(e->name);
  return out;
}

class PlanTest : public ::testing::Test {
 protected:
  std::vector<Migration> migrations = {migration("0001-a.sql"), migration("0002-b.sql"),
                                       migration("0003-c.sql"), migration("0004-d.sql", false)};
  Config config;
};

// A run retries the failures it saw when it first looked, and refuses one that another run
// recorded while it waited for the lock.
TEST_F(PlanTest, AFailureRecordedWhileTheRunWaitedIsRefusedOneSeenBeforeIsRetried) {
  ChangelogRecord old_failure = record("0001-a.sql", RecordStatus::kFailed, 1);
  old_failure.run_id = "run-earlier";
  const Plan before = make_plan(migrations, {old_failure});
  SeenFailures seen;
  note_failures(select_up(before, {}, config).targets, seen);

  ChangelogRecord new_failure = record("0002-b.sql", RecordStatus::kFailed, 2);
  new_failure.run_id = "run-holder1";
  new_failure.error = "division by zero";
  const Plan retried = make_plan(migrations, {old_failure});
  EXPECT_NO_THROW(refuse_new_failures(select_up(retried, {}, config).targets, seen));
  const Plan after = make_plan(migrations, {old_failure, new_failure});
  note_failures(select_up(after, {}, config).targets, seen);  // a waiter's later look
  try {
    refuse_new_failures(select_up(after, {}, config).targets, seen);
    ADD_FAILURE() << "a failure recorded while the run waited was not refused";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_EQ(error.context()["migration"], "0002-b.sql");
    EXPECT_EQ(error.context()["runId"], "run-holder1");
    EXPECT_NE(std::string(error.what()).find("division by zero"), std::string::npos);
  }

  // The same migration failed again, by another run (another waiter retried it first).
  ChangelogRecord failed_again = old_failure;
  failed_again.run_id = "run-waiter2";
  const Plan again = make_plan(migrations, {failed_again});
  EXPECT_THROW(refuse_new_failures(select_up(again, {}, config).targets, seen),
               MigrationExecutionFailedError);

  // A failure recorded without a run id (by a peer that keeps none) is new all the same; one on
  // record when the run looked is retried.
  ChangelogRecord anonymous = new_failure;
  anonymous.name = "0003-c.sql";
  anonymous.run_id.clear();
  const Plan unnamed = make_plan(migrations, {old_failure, anonymous});
  try {
    refuse_new_failures(select_up(unnamed, {}, config).targets, seen);
    ADD_FAILURE() << "a failure recorded without a run id while the run waited was retried";
  } catch (const MigrationExecutionFailedError& error) {
    EXPECT_EQ(error.context()["migration"], "0003-c.sql");
    EXPECT_NE(std::string(error.what()).find("in another run"), std::string::npos);
  }
  SeenFailures looked_after;
  note_failures(select_up(unnamed, {}, config).targets, looked_after);
  EXPECT_NO_THROW(refuse_new_failures(select_up(unnamed, {}, config).targets, looked_after));
}

TEST_F(PlanTest, OnlyAppliedCountsAsDone) {
  Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1),
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
  const StatusRow row = status_row(plan.entries[2], migrations, plan);
  EXPECT_EQ(row.name, "0003-c.sql");
  EXPECT_EQ(row.state, MigrationState::kInterrupted);
  EXPECT_EQ(row.checksum, "sum-0003-c.sql");
  EXPECT_EQ(row.version, "0003");
  ASSERT_TRUE(row.record.has_value());
  EXPECT_EQ(row.record->batch, 2);
}

// Records are matched by name whatever order the store returns them in, and whatever order the
// migrations run in: V10 sorts before V2 by name but runs after it.
TEST(PlanMatchTest, RecordsFindTheirMigrationsInAnyOrder) {
  const std::vector<Migration> migrations = {migration("V1__a.sql"), migration("V2__b.sql"),
                                             migration("V10__c.sql")};
  const Plan plan = make_plan(migrations, {record("V2__b.sql", RecordStatus::kApplied, 1),
                                           record("V5__gone.sql", RecordStatus::kApplied, 1),
                                           record("V10__c.sql", RecordStatus::kApplied, 2)});
  std::vector<std::pair<std::string, MigrationState>> entries;
  for (const PlanEntry& entry : plan.entries) {
    entries.emplace_back(entry.name, entry.state);
    EXPECT_EQ(entry.renamed_from, "") << entry.name;  // matched by name, not taken for a rename
  }
  EXPECT_EQ(entries, (std::vector<std::pair<std::string, MigrationState>>{
                         {"V1__a.sql", MigrationState::kPending},
                         {"V2__b.sql", MigrationState::kApplied},
                         {"V5__gone.sql", MigrationState::kMissing},
                         {"V10__c.sql", MigrationState::kApplied}}));
  EXPECT_TRUE(plan.entries[0].out_of_order);
  EXPECT_EQ(plan.entries[3].migration, &migrations[2]);
  EXPECT_EQ(plan.entries[3].record, &plan.records[2]);
}

// JSON and the CLI spell states as they always have; only applied and missing need no run.
// A tampered record's name sorts anywhere ("zzz" after every version): it does not make every
// pending migration out of order.
TEST(PlanMatchTest, ARecordWithAnInvalidNameSaysNothingOfTheOrder) {
  const std::vector<Migration> migrations = {migration("0001-a.sql"), migration("0002-b.sql")};
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1),
                                           record("zzz", RecordStatus::kApplied, 1)});
  for (const PlanEntry& entry : plan.entries) EXPECT_FALSE(entry.out_of_order) << entry.name;
}

// Only the run holding the lock turns its own interrupted marks into applying or reverting.
TEST(PlanMatchTest, MarkInProgressTakesOnlyTheHoldersMarks) {
  const std::vector<Migration> migrations = {migration("0001-a.sql"), migration("0002-b.sql"),
                                             migration("0003-c.sql"), migration("0004-d.sql")};
  std::vector<ChangelogRecord> records;
  for (const auto& [name, status, run] :
       {std::tuple{"0001-a.sql", RecordStatus::kApplying, "holder"},
        std::tuple{"0002-b.sql", RecordStatus::kApplying, "dead"},
        std::tuple{"0003-c.sql", RecordStatus::kReverting, "holder"},
        std::tuple{"0004-d.sql", RecordStatus::kReverting, "dead"}}) {
    records.push_back(record(name, status, 1));
    records.back().run_id = run;
  }
  Plan plan = make_plan(migrations, records);
  ASSERT_TRUE(has_interrupted(plan));
  mark_in_progress(plan, "holder");
  EXPECT_EQ(plan.entries[0].state, MigrationState::kApplying);
  EXPECT_EQ(plan.entries[1].state, MigrationState::kInterrupted);
  EXPECT_EQ(plan.entries[2].state, MigrationState::kReverting);
  EXPECT_EQ(plan.entries[3].state, MigrationState::kHalfReverted);
}

// A `reverting` mark (a down outside a transaction that did not end) is no state `up` may
// apply over, out of order or not; a down, by batch or by name, runs it again.
TEST_F(PlanTest, AHalfRevertedMigrationIsTheDownsToFinishNotUps) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1, 10),
                                           record("0002-b.sql", RecordStatus::kReverting, 2, 20),
                                           record("0003-c.sql", RecordStatus::kApplied, 2, 30)});
  ASSERT_EQ(plan.entries[1].state, MigrationState::kHalfReverted);
  EXPECT_TRUE(plan.entries[1].pending());
  EXPECT_FALSE(plan.entries[1].out_of_order);
  UpOptions one;
  one.file = "0002-b.sql";
  for (const UpOptions& options : {UpOptions{}, one}) {
    try {
      select_up(plan, options, config);
      ADD_FAILURE() << "up selected a half-reverted migration";
    } catch (const MigrationBlockedError& e) {
      EXPECT_NE(std::string(e.what()).find("down 0002-b.sql"), std::string::npos) << e.what();
    }
  }
  // Up to a migration before it leaves it alone.
  UpOptions before;
  before.to = "0001-a.sql";
  EXPECT_NO_THROW(select_up(plan, before, config));
  EXPECT_EQ(names(select_down(plan, {})), (std::vector<std::string>{"0003-c.sql", "0002-b.sql"}));
  DownOptions by_name;
  by_name.file = "0002-b.sql";
  EXPECT_EQ(names(select_down(plan, by_name)), (std::vector<std::string>{"0002-b.sql"}));

  // Renamed, its file at the same version is the same half-reverted migration.
  std::vector<Migration> renamed = migrations;
  renamed[1] = migration("0002-b-renamed.sql");
  const Plan after_rename =
      make_plan(renamed, {record("0001-a.sql", RecordStatus::kApplied, 1, 10),
                          record("0002-b.sql", RecordStatus::kReverting, 2, 20)});
  EXPECT_THROW(select_up(after_rename, {}, config), MigrationBlockedError);
}

// redo's up half is checked before its down half runs: a half-reverted target is the down half's
// to finish, not refused; an up section emptied since, or drift under strict, is refused first.
TEST_F(PlanTest, RedoChecksItsUpHalfBeforeTheDownButLetsTheDownFinishAHalfRevert) {
  migrations[2].checksum = "edited";
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1, 10),
                                           record("0002-b.sql", RecordStatus::kReverting, 2, 20),
                                           record("0003-c.sql", RecordStatus::kApplied, 2, 30)});
  ASSERT_EQ(plan.entries[1].state, MigrationState::kHalfReverted);
  ASSERT_TRUE(plan.entries[2].drifted);
  EXPECT_NO_THROW(refuse_redo_up(plan, plan.entries[1], config));
  EXPECT_NO_THROW(refuse_redo_up(plan, plan.entries[0], config));
  Config strict;
  strict.strict = true;
  EXPECT_THROW(refuse_redo_up(plan, plan.entries[0], strict), ChecksumMismatchError);
  migrations[0].up_empty = true;
  EXPECT_THROW(refuse_redo_up(plan, plan.entries[0], config), MigrationInvalidFormatError);
}

TEST(MigrationStateTest, SpellsEachStateAndKnowsWhichStillNeedToRun) {
  const std::vector<std::pair<MigrationState, std::string>> states = {
      {MigrationState::kPending, "pending"},
      {MigrationState::kApplied, "applied"},
      {MigrationState::kFailed, "failed"},
      {MigrationState::kReverted, "reverted"},
      {MigrationState::kInterrupted, "interrupted"},
      {MigrationState::kMissing, "missing"},
      {MigrationState::kApplying, "applying"},
      {MigrationState::kHalfReverted, "half-reverted"},
      {MigrationState::kReverting, "reverting"}};
  for (const auto& [state, name] : states) {
    EXPECT_EQ(migration_state_name(state), name);
    EXPECT_EQ(nlohmann::json(state), name);
    EXPECT_EQ(needs_run(state), name != "applied" && name != "missing") << name;
  }
  StatusRow row;
  row.state = MigrationState::kInterrupted;
  EXPECT_EQ(nlohmann::json(row)["state"], "interrupted");
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
  Plan plan = make_plan(migrations, {drifted});
  const UpSelection selection = select_up(plan, {}, config);
  EXPECT_EQ(names(selection.drifted), std::vector<std::string>{"0001-a.sql"});
  EXPECT_EQ(selection.targets.size(), 3u);
  config.strict = true;
  EXPECT_THROW(select_up(plan, {}, config), ChecksumMismatchError);
  EXPECT_EQ(status_row(plan.entries[0], migrations, plan).checksum_ok, false);
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

// --all takes every batch, newest first, and a half-reverted migration with them; with nothing
// applied there is nothing to do.
TEST_F(PlanTest, DownAllRevertsEveryAppliedMigrationNewestFirst) {
  DownOptions all;
  all.all = true;
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1, 100),
                                           record("0002-b.sql", RecordStatus::kApplied, 2, 200),
                                           record("0003-c.sql", RecordStatus::kReverting, 2, 300)});
  EXPECT_EQ(names(select_down(plan, all)),
            (std::vector<std::string>{"0003-c.sql", "0002-b.sql", "0001-a.sql"}));
  EXPECT_TRUE(select_down(make_plan(migrations, {}), all).empty());
  const Plan reverted =
      make_plan(migrations, {record("0001-a.sql", RecordStatus::kReverted, 1, 100)});
  EXPECT_TRUE(select_down(reverted, all).empty());
}

// --all is one more selector: with any other, the error names it.
TEST_F(PlanTest, DownAllTakesNoOtherSelector) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1, 100)});
  std::vector<DownOptions> conflicts(4);
  conflicts[0].file = "0001-a.sql";
  conflicts[1].steps = 1;
  conflicts[2].batch = 1;
  conflicts[3].to = "0001-a.sql";
  for (DownOptions& options : conflicts) {
    options.all = true;
    try {
      select_down(plan, options);
      ADD_FAILURE() << "--all went with another selector";
    } catch (const ConfigInvalidError& error) {
      EXPECT_NE(std::string(error.what()).find("--all"), std::string::npos) << error.what();
    }
  }
}

// Every irreversible migration is named up front, in one error, before anything runs.
TEST_F(PlanTest, DownAllRefusesNamingEveryIrreversibleOne) {
  ChangelogRecord baseline = record("0001-a.sql", RecordStatus::kApplied, 1, 100);
  baseline.origin = "baseline";
  const Plan plan =
      make_plan(migrations, {baseline, record("0002-b.sql", RecordStatus::kApplied, 2, 200),
                             record("0004-d.sql", RecordStatus::kApplied, 3, 300)});
  DownOptions all;
  all.all = true;
  try {
    select_down(plan, all);
    ADD_FAILURE() << "--all went on over irreversible migrations";
  } catch (const MigrationIrreversibleError& error) {
    EXPECT_EQ(error.context()["names"], nlohmann::json::array({"0004-d.sql", "0001-a.sql"}));
  }
}

const PlanEntry& entry_named(const Plan& plan, std::string_view name) {
  for (const PlanEntry& entry : plan.entries) {
    if (entry.name == name) return entry;
  }
  throw std::runtime_error("no entry " + std::string(name));
}

// `down <file>` under newer applied migrations names them, the first five, in the order applied;
// the newest applied one, or one under only repeatables without a down section, goes unremarked.
TEST(PlanNewerLeftAppliedTest, NamesTheNewerAppliedMigrationsThatStay) {
  std::vector<Migration> set;
  std::vector<ChangelogRecord> records;
  for (int i = 1; i <= 8; ++i) {
    const std::string name = fmt::format("000{}-m.sql", i);
    set.push_back(migration(name));
    records.push_back(record(name, RecordStatus::kApplied, i <= 4 ? 1 : 2, 100 * i));
  }
  set.push_back(migration("R-views.sql", false));
  set.back().repeatable = true;
  set.back().version = "";
  records.push_back(record("R-views.sql", RecordStatus::kApplied, 2, 900));
  records[7].status = RecordStatus::kReverted;  // 0008 is no longer applied
  const Plan plan = make_plan(set, records);

  EXPECT_EQ(newer_left_applied(plan, entry_named(plan, "0001-m.sql")),
            "Reverting 0001-m.sql while 6 newer applied migrations stay applied: 0002-m.sql, "
            "0003-m.sql, 0004-m.sql, 0005-m.sql, 0006-m.sql and 1 more; a newer migration that "
            "relies on it may break");
  EXPECT_EQ(newer_left_applied(plan, entry_named(plan, "0006-m.sql")),
            "Reverting 0006-m.sql while 1 newer applied migration stays applied: 0007-m.sql; a "
            "newer migration that relies on it may break");
  EXPECT_EQ(newer_left_applied(plan, entry_named(plan, "0007-m.sql")), std::nullopt);
}

// A migration redone (or applied late) is the most recently applied, yet the versions after it
// were built on it: they are named too.
TEST(PlanNewerLeftAppliedTest, NamesLaterVersionsAppliedBeforeIt) {
  const std::vector<Migration> set = {migration("0001-m.sql"), migration("0002-m.sql")};
  const std::vector<ChangelogRecord> records = {
      record("0001-m.sql", RecordStatus::kApplied, 3, 300),
      record("0002-m.sql", RecordStatus::kApplied, 2, 200)};
  const Plan plan = make_plan(set, records);
  EXPECT_EQ(newer_left_applied(plan, entry_named(plan, "0001-m.sql")),
            "Reverting 0001-m.sql while 1 newer applied migration stays applied: 0002-m.sql; a "
            "newer migration that relies on it may break");
  EXPECT_EQ(newer_left_applied(plan, entry_named(plan, "0002-m.sql")),
            "Reverting 0002-m.sql while 1 newer applied migration stays applied: 0001-m.sql; a "
            "newer migration that relies on it may break");
}

TEST(PlanMissingFilesTest, NamesTheAppliedMigrationsWhoseFileIsGone) {
  std::vector<Migration> set;
  std::vector<ChangelogRecord> records;
  for (int i = 1; i <= 7; ++i) {
    records.push_back(record(fmt::format("000{}-m.sql", i), RecordStatus::kApplied, 1, 100 * i));
  }
  set.push_back(migration("0007-m.sql"));
  EXPECT_EQ(missing_files_warning(make_plan(set, records), "db"),
            "Applied, but no file in db: 0001-m.sql, 0002-m.sql, 0003-m.sql, 0004-m.sql, "
            "0005-m.sql and 1 more (restore them, or check the migrations folder; `audit` fails "
            "on them)");
  for (int i = 1; i <= 5; ++i) set.push_back(migration(fmt::format("000{}-m.sql", i)));
  EXPECT_EQ(missing_files_warning(make_plan(set, records), "db"),
            "Applied, but no file in db: 0006-m.sql (restore it, or check the migrations folder; "
            "`audit` fails on it)");
  set.push_back(migration("0006-m.sql"));
  EXPECT_EQ(missing_files_warning(make_plan(set, records), "db"), std::nullopt);
}

// `down --all` says which applied migrations it keeps: the repeatables without a down section.
TEST(PlanDownAllTest, NamesTheRepeatablesItKeeps) {
  std::vector<Migration> set = {migration("0001-m.sql"), migration("R-views.sql", false),
                                migration("R-grants.sql", false)};
  std::vector<ChangelogRecord> records;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (i > 0) {
      set[i].repeatable = true;
      set[i].version = "";
    }
    records.push_back(record(set[i].name, RecordStatus::kApplied, 1, 100 * (i + 1)));
  }
  EXPECT_EQ(repeatables_left_applied(make_plan(set, records)),
            "R-grants.sql, R-views.sql stay applied: repeatable, with no down section to revert "
            "them");
  records.pop_back();
  EXPECT_EQ(repeatables_left_applied(make_plan(set, records)),
            "R-views.sql stays applied: repeatable, with no down section to revert it");
  records.pop_back();
  EXPECT_EQ(repeatables_left_applied(make_plan(set, records)), std::nullopt);
}

// A hand-written record without a batch (NULL reads as 0) may be the newest: the last batch
// cannot be told, so a bare `down` refuses; what names its targets otherwise goes on.
TEST_F(PlanTest, DownRefusesToGuessTheLastBatchOverARecordWithoutOne) {
  for (const std::int64_t missing : {std::int64_t{0}, std::int64_t{-5}}) {
    const Plan plan =
        make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1, 100),
                               record("0002-b.sql", RecordStatus::kApplied, missing, 200)});
    try {
      select_down(plan, {});
      ADD_FAILURE() << "a bare down guessed the last batch over batch " << missing;
    } catch (const ChangelogInvalidError& error) {
      EXPECT_EQ(error.context()["names"], nlohmann::json::array({"0002-b.sql"})) << missing;
    }
    DownOptions steps;
    steps.steps = 1;
    EXPECT_EQ(names(select_down(plan, steps)), std::vector<std::string>{"0002-b.sql"});
    DownOptions batch;
    batch.batch = 1;
    EXPECT_EQ(names(select_down(plan, batch)), std::vector<std::string>{"0001-a.sql"});
  }
}

// An irreversible migration is told in its tool's words: what file would revert it.
TEST(PlanIrreversibleTest, NamesWhatWouldRevertItInItsToolsWords) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"V1.2__add_a.sql", "'V1.2__add_a.sql' has no undo file U1.2__add_a.sql with a statement"},
      {"3_add_b.up.sql", "'3_add_b.up.sql' has no 3_add_b.down.sql with a statement"},
      {"20260101120000_add_c.sql", "has no down section with a statement"}};
  for (const auto& [name, reason] : cases) {
    const std::vector<Migration> migrations = {migration(name, /*reversible=*/false)};
    const std::vector<ChangelogRecord> records = {record(name, RecordStatus::kApplied, 1, 100)};
    const Plan plan = make_plan(migrations, records);
    try {
      select_down(plan, {});
      ADD_FAILURE() << name << " was reverted";
    } catch (const MigrationIrreversibleError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
  }
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
  DownOptions no_such_batch;
  no_such_batch.batch = 99;
  EXPECT_THROW(select_down(plan, no_such_batch), NotAppliedError);
  one.file = "0002-b.sql";
  EXPECT_THROW(select_down(plan, one), MigrationIrreversibleError);
  one.file = "0004-d.sql";  // no down section
  EXPECT_THROW(select_down(plan, one), MigrationIrreversibleError);
  one.file = "0009-gone.sql";
  EXPECT_THROW(select_down(plan, one), MigrationFileNotFoundError);
  one.file = "../escape.sql";
  try {
    select_down(plan, one);
    ADD_FAILURE() << "a record named out of its folder was reverted";
  } catch (const MigrationInvalidNameError& error) {
    EXPECT_NE(std::string(error.what()).find("../escape.sql"), std::string::npos) << error.what();
  }
  DownOptions both;
  both.steps = 1;
  both.batch = 1;
  EXPECT_THROW(select_down(plan, both), ConfigInvalidError);
  DownOptions zero;
  zero.steps = 0;
  EXPECT_THROW(select_down(plan, zero), ConfigInvalidError);
}

TEST_F(PlanTest, RecordsWithoutMigrationsShowAsMissing) {
  Plan plan = make_plan(migrations, {record("0000-old.sql", RecordStatus::kApplied, 1),
                                     record("0000-tried.sql", RecordStatus::kFailed, 1)});
  ASSERT_EQ(plan.entries.front().name, "0000-old.sql");
  for (const PlanEntry& entry : plan.entries) EXPECT_NE(entry.name, "0000-tried.sql");
  EXPECT_EQ(status_row(plan.entries.front(), migrations, plan).state, MigrationState::kMissing);
}

// A row takes its record's fields but keeps its name, short (kept inside the string) or long, for
// a record whose migration is gone and for a migration renamed since it was applied.
TEST(PlanRowsTest, RowsKeepTheirNamesWhenTheyTakeTheFields) {
  std::vector<Migration> migrations = {migration("0002-renamed-to-a-much-longer-name.sql")};
  ChangelogRecord former = record("0002-old.sql", RecordStatus::kApplied, 1);
  former.checksum = migrations[0].checksum;
  Plan plan = make_plan(
      migrations, {record("0000-old.sql", RecordStatus::kApplied, 1),
                   record("0001-gone-with-a-long-name.sql", RecordStatus::kApplied, 1), former});
  std::vector<StatusRow> rows;
  for (const PlanEntry& entry : plan.entries) rows.push_back(status_row(entry, migrations, plan));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "0000-old.sql");
  EXPECT_EQ(rows[0].record->name, "0000-old.sql");
  EXPECT_EQ(rows[0].state, MigrationState::kMissing);
  EXPECT_EQ(rows[1].name, "0001-gone-with-a-long-name.sql");
  EXPECT_EQ(rows[1].record->name, "0001-gone-with-a-long-name.sql");
  EXPECT_EQ(rows[2].name, "0002-renamed-to-a-much-longer-name.sql");
  EXPECT_EQ(rows[2].renamed_from, "0002-old.sql");
  EXPECT_EQ(rows[2].record->name, "0002-old.sql");
  EXPECT_EQ(rows[2].state, MigrationState::kApplied);
}

// Two records under one name (a MongoDB changelog without its unique index): one entry, and the
// record read last is the one that counts.
TEST_F(PlanTest, OfTwoRecordsUnderOneNameTheOneReadLastCounts) {
  const Plan plan = make_plan(migrations, {record("0002-b.sql", RecordStatus::kApplied, 1),
                                           record("0001-a.sql", RecordStatus::kFailed, 1),
                                           record("0001-a.sql", RecordStatus::kApplied, 2)});
  ASSERT_EQ(plan.entries.size(), 4u);
  EXPECT_EQ(plan.entries[0].state, MigrationState::kApplied);
  EXPECT_EQ(plan.entries[0].record, &plan.records[2]);
  EXPECT_EQ(plan.entries[1].state, MigrationState::kApplied);
}

TEST_F(PlanTest, TargetsMayBeVersions) {
  const Plan plan = make_plan(migrations, {});
  UpOptions options;
  options.to = "2";
  EXPECT_EQ(names(select_up(plan, options, config).targets),
            (std::vector<std::string>{"0001-a.sql", "0002-b.sql"}));
  options.to = "0003";
  EXPECT_EQ(select_up(plan, options, config).targets.size(), 3u);
  options.to = "7";
  EXPECT_THROW(select_up(plan, options, config), MigrationFileNotFoundError);
}

TEST_F(PlanTest, StepsCapsTheTargets) {
  const Plan plan = make_plan(migrations, {record("0001-a.sql", RecordStatus::kApplied, 1)});
  UpOptions options;
  options.steps = 2;
  EXPECT_EQ(names(select_up(plan, options, config).targets),
            (std::vector<std::string>{"0002-b.sql", "0003-c.sql"}));
  options.steps = 0;
  EXPECT_THROW(select_up(plan, options, config), ConfigInvalidError);
}

// Two migrations applied within one clock tick revert in the reverse of their run order, which
// for numeric versions is not their names' order.
TEST_F(PlanTest, DownBreaksAppliedAtTiesByRunOrder) {
  const std::vector<Migration> numeric = {migration("V1.2__a.sql"), migration("V1.10__b.sql")};
  const Plan plan = make_plan(numeric, {record("V1.2__a.sql", RecordStatus::kApplied, 1, 100),
                                        record("V1.10__b.sql", RecordStatus::kApplied, 1, 100)});
  DownOptions one;
  one.steps = 1;
  EXPECT_EQ(names(select_down(plan, one)), std::vector<std::string>{"V1.10__b.sql"});
}

TEST_F(PlanTest, OrdersByNumericVersionWithMissingRecordsInPlace) {
  const std::vector<Migration> numeric = {migration("2_b.sql"), migration("10_c.sql")};
  const Plan plan = make_plan(numeric, {record("9_gone.sql", RecordStatus::kApplied, 1)});
  ASSERT_EQ(plan.entries.size(), 3u);
  EXPECT_EQ(plan.entries[0].name, "2_b.sql");
  EXPECT_EQ(plan.entries[1].name, "9_gone.sql");
  EXPECT_EQ(plan.entries[1].state, MigrationState::kMissing);
  EXPECT_TRUE(plan.entries[0].out_of_order);
  EXPECT_FALSE(plan.entries[2].out_of_order);
}

TEST_F(PlanTest, ARenamedFileIsTheAppliedMigration) {
  std::vector<Migration> renamed = {migration("0001-new-name.sql")};
  renamed[0].checksum = "sum-0001-a.sql";
  const Plan plan = make_plan(renamed, {record("0001-a.sql", RecordStatus::kApplied, 1)});
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].state, MigrationState::kApplied);
  EXPECT_EQ(plan.entries[0].renamed_from, "0001-a.sql");
  EXPECT_TRUE(select_up(plan, {}, config).targets.empty());

  // Recorded under the new name, the former is still to retire (a run stopped between the two
  // writes); once retired, nothing is renamed.
  ChangelogRecord recorded = record("0001-new-name.sql", RecordStatus::kApplied, 1);
  recorded.checksum = "sum-0001-a.sql";
  const Plan halfway =
      make_plan(renamed, {record("0001-a.sql", RecordStatus::kApplied, 1), recorded});
  ASSERT_EQ(halfway.entries.size(), 1u);
  EXPECT_EQ(halfway.entries[0].renamed_from, "0001-a.sql");
  EXPECT_EQ(halfway.entries[0].record->name, "0001-new-name.sql");
  ChangelogRecord retired = record("0001-a.sql", RecordStatus::kReverted, 1);
  retired.reason = "renamed to 0001-new-name.sql";
  const Plan after = make_plan(renamed, {retired, recorded});
  ASSERT_EQ(after.entries.size(), 1u);
  EXPECT_EQ(after.entries[0].renamed_from, "");
  EXPECT_EQ(after.entries[0].state, MigrationState::kApplied);
}

// Several names applied for one migration (renames recorded before formers were retired, or a
// run stopped between the writes): all of them are to retire.
TEST_F(PlanTest, EveryFormerNameOfARenamedMigrationIsToRetire) {
  std::vector<Migration> renamed = {migration("0001-c.sql")};
  renamed[0].checksum = "sum-0001-a.sql";
  ChangelogRecord a = record("0001-a.sql", RecordStatus::kApplied, 1);
  ChangelogRecord b = record("0001-b.sql", RecordStatus::kApplied, 1);
  b.checksum = "sum-0001-a.sql";
  const Plan plan = make_plan(renamed, {a, b});
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].state, MigrationState::kApplied);
  EXPECT_EQ(plan.entries[0].renamed_from, "0001-a.sql");
  EXPECT_EQ(plan.entries[0].to_retire, (std::vector<std::string_view>{"0001-a.sql", "0001-b.sql"}));
}

TEST_F(PlanTest, AFileRenamedBackTakesUpItsRetiredRecord) {
  std::vector<Migration> back = {migration("0001-a.sql")};
  ChangelogRecord retired = record("0001-a.sql", RecordStatus::kReverted, 1);
  retired.reason = "renamed to 0001-new-name.sql";
  ChangelogRecord recorded = record("0001-new-name.sql", RecordStatus::kApplied, 1);
  recorded.checksum = "sum-0001-a.sql";
  const Plan plan = make_plan(back, {retired, recorded});
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].state, MigrationState::kApplied);
  EXPECT_EQ(plan.entries[0].renamed_from, "0001-new-name.sql");
  EXPECT_TRUE(select_up(plan, {}, config).targets.empty());

  // Renamed A → B → C, then back to A: A's retirement named B, C holds the applied record.
  ChangelogRecord by_b = record("0001-a.sql", RecordStatus::kReverted, 1);
  by_b.reason = "renamed to 0001-b.sql";
  ChangelogRecord b_retired = record("0001-b.sql", RecordStatus::kReverted, 1);
  b_retired.reason = "renamed to 0001-c.sql";
  ChangelogRecord at_c = record("0001-c.sql", RecordStatus::kApplied, 1);
  at_c.checksum = "sum-0001-a.sql";
  const Plan chain = make_plan(back, {by_b, b_retired, at_c});
  ASSERT_EQ(chain.entries.size(), 1u);
  EXPECT_EQ(chain.entries[0].state, MigrationState::kApplied);
  EXPECT_EQ(chain.entries[0].to_retire, std::vector<std::string_view>{"0001-c.sql"});

  // Reverted for real, it is pending: only a retirement by a rename is taken up.
  ChangelogRecord undone = record("0001-a.sql", RecordStatus::kReverted, 1);
  const Plan after_down = make_plan(back, {undone, recorded});
  EXPECT_EQ(after_down.entries[0].name, "0001-a.sql");
  EXPECT_EQ(after_down.entries[0].state, MigrationState::kReverted);
}

// Renamed and edited: still the applied migration (its version), drifted — never run again.
TEST_F(PlanTest, AnEditedFileAtAnAppliedVersionIsThatMigrationDrifted) {
  const std::vector<Migration> changed = {migration("0001-new-name.sql")};
  const Plan plan = make_plan(changed, {record("0001-a.sql", RecordStatus::kApplied, 1)});
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].state, MigrationState::kApplied);
  EXPECT_EQ(plan.entries[0].renamed_from, "0001-a.sql");
  EXPECT_TRUE(plan.entries[0].drifted);
  // Renamed and edited, or a new migration reusing the version: only its author can tell, so
  // `up` refuses until `repair` takes it as renamed, strict or not.
  try {
    select_up(plan, {}, config);
    FAIL() << "expected a refusal";
  } catch (const ChecksumMismatchError& e) {
    EXPECT_NE(std::string(e.what()).find("the applied 0001-a.sql"), std::string::npos) << e.what();
  }
}

TEST_F(PlanTest, RepeatablesRunAfterVersionedOnesWheneverTheyChange) {
  std::vector<Migration> set = {migration("0001-a.sql"), migration("R-views.sql")};
  set[1].repeatable = true;
  set[1].version = "";
  ChangelogRecord views = record("R-views.sql", RecordStatus::kApplied, 1);
  Plan plan = make_plan(set, {record("0001-a.sql", RecordStatus::kApplied, 1), views});
  EXPECT_TRUE(select_up(plan, {}, config).targets.empty());
  views.checksum = "older";
  plan = make_plan(set, {record("0001-a.sql", RecordStatus::kApplied, 1), views});
  EXPECT_FALSE(plan.entries[1].drifted);
  EXPECT_FALSE(plan.entries[1].out_of_order);
  EXPECT_EQ(names(select_up(plan, {}, config).targets), std::vector<std::string>{"R-views.sql"});
}

// A down that names no file leaves a repeatable without a down section applied, as Flyway's undo
// leaves R__ files; named, it is refused as irreversible.
TEST_F(PlanTest, ADownLeavesRepeatablesWithoutADownApplied) {
  std::vector<Migration> set = {migration("0001-a.sql"), migration("0002-b.sql"),
                                migration("R-views.sql", false)};
  set[2].repeatable = true;
  set[2].version = "";
  const Plan plan = make_plan(set, {record("0001-a.sql", RecordStatus::kApplied, 1),
                                    record("0002-b.sql", RecordStatus::kApplied, 2),
                                    record("R-views.sql", RecordStatus::kApplied, 2)});
  EXPECT_EQ(names(select_down(plan, {})), std::vector<std::string>{"0002-b.sql"});
  DownOptions one;
  one.steps = 1;
  EXPECT_EQ(names(select_down(plan, one)), std::vector<std::string>{"0002-b.sql"});
  DownOptions to_first;
  to_first.to = "0001-a.sql";
  EXPECT_EQ(names(select_down(plan, to_first)), std::vector<std::string>{"0002-b.sql"});
  DownOptions all;
  all.all = true;
  EXPECT_EQ(names(select_down(plan, all)), (std::vector<std::string>{"0002-b.sql", "0001-a.sql"}));
  DownOptions named;
  named.file = "R-views.sql";
  EXPECT_THROW(select_down(plan, named), MigrationIrreversibleError);

  // A batch that only re-applied the repeatable (or whose other migrations a down reverted)
  // holds nothing to revert: the bare down goes on to the batch before it.
  const Plan views_only = make_plan(set, {record("0001-a.sql", RecordStatus::kApplied, 1),
                                          record("0002-b.sql", RecordStatus::kApplied, 1),
                                          record("R-views.sql", RecordStatus::kApplied, 2)});
  EXPECT_EQ(names(select_down(views_only, {})),
            (std::vector<std::string>{"0002-b.sql", "0001-a.sql"}));
  DownOptions second;
  second.batch = 2;
  EXPECT_THROW(select_down(views_only, second), MigrationIrreversibleError);

  // With nothing else applied, there is nothing to revert, and it says so.
  const Plan nothing_else = make_plan(set, {record("0001-a.sql", RecordStatus::kReverted, 1),
                                            record("0002-b.sql", RecordStatus::kReverted, 1),
                                            record("R-views.sql", RecordStatus::kApplied, 2)});
  try {
    select_down(nothing_else, {});
    ADD_FAILURE() << "a changelog of repeatables without a down reverted nothing, silently";
  } catch (const MigrationIrreversibleError& error) {
    EXPECT_NE(std::string(error.what()).find("R-views.sql"), std::string::npos) << error.what();
  }

  // Half-reverted, and its down section removed since: no down may leave it out without a word.
  const Plan half = make_plan(set, {record("0001-a.sql", RecordStatus::kApplied, 1, 10),
                                    record("0002-b.sql", RecordStatus::kApplied, 2, 20),
                                    record("R-views.sql", RecordStatus::kReverting, 2, 30)});
  for (const DownOptions& options : {DownOptions{}, one, to_first, all}) {
    try {
      select_down(half, options);
      ADD_FAILURE() << "a down left out a half-reverted repeatable";
    } catch (const MigrationIrreversibleError& error) {
      EXPECT_NE(std::string(error.what()).find("'R-views.sql' is half-reverted"), std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace migronaut

#include "core/import_plan.hpp"

#include <gtest/gtest.h>

#include "migronaut/errors.hpp"
#include "util/checksum.hpp"

namespace migronaut {
namespace {

Migration file(const std::string& name, const std::string& version) {
  Migration migration;
  migration.name = name;
  migration.version = version;
  migration.checksum = "sum-" + name;
  migration.up = Script{"SELECT 1;"};
  return migration;
}

ForeignRecord versioned(const std::string& version) {
  ForeignRecord record;
  record.version = version;
  return record;
}

ForeignRecord named(const std::string& name, std::int64_t at = 0) {
  ForeignRecord record;
  record.name = name;
  if (at > 0) record.applied_at_ms = at;
  return record;
}

std::vector<std::string> names(const ImportResult& result) {
  std::vector<std::string> out;
  for (const ImportedMigration& migration : result.imported) out.push_back(migration.name);
  return out;
}

TEST(PlanImportTest, DbmateVersionsMatchFilesAndVersionsWithoutOneAreNoted) {
  const std::vector<Migration> disk = {file("20260101_a.sql", "20260101"),
                                       file("20260102_b.sql", "20260102")};
  const ImportResult result = plan_import(
      ForeignTool::kDbmate, {versioned("20260102"), versioned("20260101"), versioned("20251231")},
      disk, {}, false);
  EXPECT_EQ(names(result), (std::vector<std::string>{"20260101_a.sql", "20260102_b.sql"}));
  EXPECT_EQ(result.imported[0].checksum, "sum-20260101_a.sql");
  EXPECT_EQ(result.imported[0].checksum_source, "disk");
  ASSERT_EQ(result.not_imported.size(), 1u);
  EXPECT_EQ(result.not_imported[0].first, "20251231");
}

TEST(PlanImportTest, AHistoryWithNoFileOfItsVersionsIsRefused) {
  const std::vector<Migration> elsewhere = {file("1_a.sql", "1")};
  EXPECT_THROW(plan_import(ForeignTool::kDbmate, {versioned("20260101"), versioned("20260102")},
                           elsewhere, {}, false),
               MigrationFileNotFoundError);
  EXPECT_THROW(plan_import(ForeignTool::kDbmate, {versioned("20260101")}, {}, {}, false),
               MigrationFileNotFoundError);
}

TEST(PlanImportTest, GolangMigrateAppliesEverythingUpToItsVersion) {
  const std::vector<Migration> disk = {file("1_a.up.sql", "1"), file("2_b.up.sql", "2"),
                                       file("3_c.up.sql", "3")};
  EXPECT_EQ(names(plan_import(ForeignTool::kGolangMigrate, {versioned("2")}, disk, {}, false)),
            (std::vector<std::string>{"1_a.up.sql", "2_b.up.sql"}));
}

TEST(PlanImportTest, GolangMigrateRefusesADirtyVersion) {
  ForeignRecord dirty = versioned("2");
  dirty.success = false;
  EXPECT_THROW(
      plan_import(ForeignTool::kGolangMigrate, {dirty}, {file("2_b.up.sql", "2")}, {}, false),
      MigrationBlockedError);
}

// Everything up to the version would count as applied: a version golang-migrate never writes
// must not take in every file.
TEST(PlanImportTest, GolangMigrateRefusesAVersionItNeverWrites) {
  const std::vector<Migration> disk = {file("1_a.up.sql", "1"), file("2_b.up.sql", "2")};
  for (const char* version : {"-5", "2abc", "", "1e23"}) {
    EXPECT_THROW(plan_import(ForeignTool::kGolangMigrate, {versioned(version)}, disk, {}, false),
                 MigrationInvalidFormatError)
        << version;
  }
}

ForeignRecord flyway_row(std::string version, std::string script, std::string type, bool success,
                         std::int64_t at = 1767225600000) {
  ForeignRecord record;
  record.version = std::move(version);
  record.name = std::move(script);
  record.type = std::move(type);
  record.success = success;
  record.applied_at_ms = at;
  return record;
}

ForeignRecord flyway_baseline(std::string version, std::int64_t at) {
  return flyway_row(std::move(version), "<< Flyway Baseline >>", "BASELINE", true, at);
}

// An undone version is not imported, and says so; one applied again after its undo is.
TEST(PlanImportTest, FlywaySkipsUndoneVersions) {
  const std::vector<Migration> disk = {file("V1__init.sql", "1"), file("V1.1__b.sql", "1.1"),
                                       file("V1.2__c.sql", "1.2"), file("V2__d.sql", "2"),
                                       file("R__views.sql", "")};
  const ImportResult result =
      plan_import(ForeignTool::kFlyway,
                  {flyway_baseline("0", 5), flyway_row("1", "V1__init.sql", "SQL", true),
                   flyway_row("1.1", "V1.1__b.sql", "SQL", true),
                   flyway_row("1.1", "U1.1__b.sql", "UNDO_SQL", true),
                   flyway_row("1.2", "V1.2__c.sql", "SQL", true),
                   flyway_row("1.2", "U1.2__c.sql", "UNDO_SQL", true),
                   flyway_row("1.2", "V1.2__c_fixed.sql", "SQL", true),
                   flyway_row("", "R__views.sql", "SQL", true)},
                  disk, {}, false);
  EXPECT_EQ(names(result),
            (std::vector<std::string>{"V1__init.sql", "V1.2__c.sql", "R__views.sql"}));
  EXPECT_EQ(result.imported[0].applied_at_ms, 1767225600000);
  EXPECT_EQ(result.imported[0].baseline, "");
  ASSERT_EQ(result.not_imported.size(), 2u);
  EXPECT_EQ(result.not_imported[0].first, "V1.1__b.sql");
  EXPECT_NE(result.not_imported[0].second.find("undo"), std::string::npos);
  EXPECT_EQ(result.not_imported[1].first, "0");  // a baseline below every file covers none
}

// A failed row may be a half-applied migration: refused, as golang-migrate's dirty version is.
TEST(PlanImportTest, FlywayRefusesAFailedRow) {
  const std::vector<Migration> disk = {file("V1__init.sql", "1"), file("V2__c.sql", "2")};
  try {
    plan_import(
        ForeignTool::kFlyway,
        {flyway_row("1", "V1__init.sql", "SQL", true), flyway_row("2", "V2__c.sql", "SQL", false)},
        disk, {}, false);
    FAIL() << "expected a refusal";
  } catch (const MigrationBlockedError& e) {
    EXPECT_NE(std::string(e.what()).find("V2__c.sql"), std::string::npos) << e.what();
    EXPECT_EQ(e.context()["failed"], true);
  }
}

TEST(PlanImportTest, FlywayDeletedVersionsAndRepeatablesAreNotImported) {
  const std::vector<Migration> disk = {file("V1__a.sql", "1"), file("R__views.sql", "")};
  const ImportResult result = plan_import(
      ForeignTool::kFlyway,
      {flyway_row("1", "V1__a.sql", "SQL", true), flyway_row("1.5", "V1.5__b.sql", "SQL", true),
       flyway_row("", "R__views.sql", "SQL", true),
       flyway_row("1.5", "V1.5__b.sql", "DELETE", true),
       flyway_row("", "R__views.sql", "DELETE", true)},
      disk, {}, false);
  EXPECT_EQ(names(result), std::vector<std::string>{"V1__a.sql"});
  ASSERT_EQ(result.not_imported.size(), 2u);
  EXPECT_EQ(result.not_imported[0].first, "V1.5__b.sql");
  EXPECT_EQ(result.not_imported[1].first, "R__views.sql");
}

// Flyway's row for a file, with the checksum Flyway computed over `text`.
ForeignRecord flyway_row_of(std::string version, std::string script, std::string_view text) {
  ForeignRecord row = flyway_row(std::move(version), std::move(script), "SQL", true);
  row.checksum = std::to_string(flyway_checksum(text));
  return row;
}

TEST(PlanImportTest, AFileEditedSinceFlywayRanItKeepsFlywaysChecksum) {
  const std::vector<Migration> disk = {file("V1__a.sql", "1"), file("V2__b.sql", "2"),
                                       file("R__views.sql", "")};
  const FileTexts texts = {{"V1__a.sql", "CREATE TABLE a (id int);\r\n"},
                           {"V2__b.sql", "CREATE TABLE b (id int, note text);\n"},
                           {"R__views.sql", "CREATE VIEW v AS SELECT 2;\n"}};
  const ForeignRecord edited_view =
      flyway_row_of("", "R__views.sql", "CREATE VIEW v AS SELECT 1;\n");
  const ImportResult result =
      plan_import(ForeignTool::kFlyway,
                  {flyway_row_of("1", "V1__a.sql", "CREATE TABLE a (id int);\n"),
                   flyway_row_of("2", "V2__b.sql", "CREATE TABLE b (id int);\n"), edited_view},
                  disk, {}, false, texts);
  ASSERT_EQ(names(result), (std::vector<std::string>{"V1__a.sql", "V2__b.sql", "R__views.sql"}));
  EXPECT_EQ(result.imported[0].checksum, "sum-V1__a.sql");  // CRLF is no edit to Flyway
  EXPECT_EQ(result.imported[0].checksum_source, "verified");
  EXPECT_EQ(result.imported[1].checksum_source, "changed");
  EXPECT_EQ(result.imported[2].checksum, "flyway:" + edited_view.checksum);
  EXPECT_EQ(result.imported[2].checksum_source, "changed");
}

TEST(PlanImportTest, AFlywayBaselineCoversEveryVersionUpToAndIncludingIt) {
  const std::vector<Migration> disk = {file("V1__a.sql", "1"), file("V2__b.sql", "2"),
                                       file("V2.1__c.sql", "2.1"), file("V3__d.sql", "3"),
                                       file("R__views.sql", "")};
  const ImportResult result =
      plan_import(ForeignTool::kFlyway,
                  {flyway_row("", "<< Flyway Schema Creation >>", "SCHEMA", true),
                   flyway_baseline("2", 7), flyway_row("3", "V3__d.sql", "SQL", true, 9)},
                  disk, {}, false);
  EXPECT_EQ(names(result), (std::vector<std::string>{"V1__a.sql", "V2__b.sql", "V3__d.sql"}));
  EXPECT_EQ(result.imported[0].baseline, "2");
  EXPECT_EQ(result.imported[0].applied_at_ms, 7);
  EXPECT_EQ(result.imported[0].checksum, "sum-V1__a.sql");
  EXPECT_EQ(result.imported[1].baseline, "2");
  EXPECT_EQ(result.imported[2].baseline, "");
  EXPECT_EQ(result.imported[2].applied_at_ms, 9);
  EXPECT_TRUE(result.not_imported.empty());
}

TEST(PlanImportTest, AFlywayRowOfItsOwnWinsOverTheBaseline) {
  const std::vector<Migration> disk = {file("V1__a.sql", "1"), file("V2__b.sql", "2")};
  const ImportResult result = plan_import(
      ForeignTool::kFlyway, {flyway_row("1", "V1__a.sql", "SQL", true, 3), flyway_baseline("2", 7)},
      disk, {}, false);
  EXPECT_EQ(names(result), (std::vector<std::string>{"V2__b.sql", "V1__a.sql"}));
  EXPECT_EQ(result.imported[1].applied_at_ms, 3);
  EXPECT_EQ(result.imported[1].baseline, "");
}

TEST(PlanImportTest, KnexNamesFindTheirPortedFilesByVersion) {
  const std::vector<Migration> disk = {file("20260101120000_users.sql", "20260101120000")};
  const ImportResult result = plan_import(
      ForeignTool::kKnex,
      {named("20260101120000_users.js", 5), named("20260102120000_orders.js"), named("../evil")},
      disk, {}, false);
  EXPECT_EQ(names(result),
            (std::vector<std::string>{"20260101120000_users.sql", "20260102120000_orders.js"}));
  EXPECT_EQ(result.imported[0].applied_at_ms, 5);
  EXPECT_EQ(result.imported[1].checksum_source, "missing");
  ASSERT_EQ(result.not_imported.size(), 1u);
  EXPECT_EQ(result.not_imported[0].first, "../evil");
}

TEST(PlanImportTest, MigrateMongoHashesAreReusedOnlyWhenTheyMatch) {
  const std::vector<Migration> disk = {file("20260101-a.json", "20260101"),
                                       file("20260102-b.json", "20260102")};
  ForeignRecord same = named("20260101-a.js");
  same.checksum = "sum-20260101-a.json";
  ForeignRecord other = named("20260102-b.js");
  other.checksum = "js-hash";
  const ImportResult recomputed =
      plan_import(ForeignTool::kMigrateMongo, {same, other}, disk, {}, false);
  EXPECT_EQ(recomputed.imported[0].checksum_source, "verified");
  EXPECT_EQ(recomputed.imported[1].checksum, "sum-20260102-b.json");
  EXPECT_EQ(recomputed.imported[1].checksum_source, "disk");
  const ImportResult trusted =
      plan_import(ForeignTool::kMigrateMongo, {same, other}, disk, {}, true);
  EXPECT_EQ(trusted.imported[1].checksum, "js-hash");
}

TEST(PlanImportTest, AMigrationRevertedSinceTheFirstImportStaysReverted) {
  ChangelogRecord reverted;
  reverted.name = "2_b.sql";
  reverted.status = RecordStatus::kReverted;
  reverted.origin = "dbmate";  // imported first
  const ImportResult result =
      plan_import(ForeignTool::kDbmate, {versioned("1"), versioned("2")},
                  {file("1_a.sql", "1"), file("2_b.sql", "2")}, {reverted}, false);
  EXPECT_EQ(names(result), std::vector<std::string>{"1_a.sql"});
  EXPECT_EQ(result.skipped, std::vector<std::string>{"2_b.sql"});
}

TEST(PlanImportTest, RecordsAlreadyAppliedAreSkipped) {
  ChangelogRecord applied;
  applied.name = "1_a.sql";
  const ImportResult result =
      plan_import(ForeignTool::kDbmate, {versioned("1"), versioned("2")},
                  {file("1_a.sql", "1"), file("2_b.sql", "2")}, {applied}, false);
  EXPECT_EQ(names(result), std::vector<std::string>{"2_b.sql"});
  EXPECT_EQ(result.skipped, std::vector<std::string>{"1_a.sql"});
}

TEST(PlanImportTest, AFileRenamedSinceTheFirstImportIsNotImportedAgain) {
  ChangelogRecord earlier;
  earlier.name = "20240101000000_posts.sql";
  const ImportResult result =
      plan_import(ForeignTool::kDbmate, {versioned("20240101000000"), versioned("20240102000000")},
                  {file("20240101000000_create_posts.sql", "20240101000000"),
                   file("20240102000000_comments.sql", "20240102000000")},
                  {earlier}, false);
  EXPECT_EQ(names(result), std::vector<std::string>{"20240102000000_comments.sql"});
  EXPECT_EQ(result.skipped, std::vector<std::string>{"20240101000000_create_posts.sql"});

  // A failed record of the old name says nothing: dbmate applied the version, so it is imported.
  earlier.status = RecordStatus::kFailed;
  const ImportResult after_failure =
      plan_import(ForeignTool::kDbmate, {versioned("20240101000000")},
                  {file("20240101000000_create_posts.sql", "20240101000000")}, {earlier}, false);
  EXPECT_EQ(names(after_failure), std::vector<std::string>{"20240101000000_create_posts.sql"});
}

ChangelogRecord imported(const std::string& name, const std::string& origin,
                         RecordStatus status = RecordStatus::kApplied) {
  ChangelogRecord record;
  record.name = name;
  record.status = status;
  record.origin = origin;
  return record;
}

// golang-migrate only goes up: what lies between its imported version and its version now it
// applied since (but for what migronaut applied itself); a file added since below the imported
// version (merged late) it never ran.
TEST(AppliedSinceImportTest, GolangMigrateAboveTheImportedVersionOnly) {
  const std::vector<Migration> disk = {file("10_a.up.sql", "10"), file("15_late.up.sql", "15"),
                                       file("20_b.up.sql", "20"), file("30_c.up.sql", "30"),
                                       file("40_d.up.sql", "40"), file("50_e.up.sql", "50")};
  const std::vector<ChangelogRecord> existing = {
      imported("10_a.up.sql", "golang-migrate"), imported("20_b.up.sql", "golang-migrate"),
      imported("30_c.up.sql", ""), imported("50_e.up.sql", "")};
  EXPECT_EQ(applied_since_import(ForeignTool::kGolangMigrate, {versioned("20")}, disk, existing),
            std::vector<std::string>{});
  EXPECT_EQ(applied_since_import(ForeignTool::kGolangMigrate, {versioned("40")}, disk, existing),
            std::vector<std::string>{"40_d.up.sql"});
}

// What a Flyway baseline covers is no migration run since: a file below it added later neither.
TEST(AppliedSinceImportTest, FlywaysBaselineCoversNothingRunSince) {
  const std::vector<Migration> disk = {file("V0.5__late.sql", "0.5"), file("V1__a.sql", "1"),
                                       file("V2__b.sql", "2"), file("V3__c.sql", "3")};
  const std::vector<ChangelogRecord> existing = {imported("V1__a.sql", "baseline"),
                                                 imported("V2__b.sql", "flyway")};
  const std::vector<ForeignRecord> history = {flyway_baseline("1", 5),
                                              flyway_row("2", "V2__b.sql", "SQL", true),
                                              flyway_row("3", "V3__c.sql", "SQL", true)};
  EXPECT_EQ(applied_since_import(ForeignTool::kFlyway, history, disk, existing),
            std::vector<std::string>{"V3__c.sql"});
}

// migronaut's own down of an imported migration stands, even once its file is renamed: the
// tool's row for that version is stale, not a run since.
TEST(AppliedSinceImportTest, AVersionMigronautRevertedIsNoRunSinceWhateverItsFileIsCalled) {
  const std::vector<Migration> disk = {file("1_a.sql", "1"), file("2_b_fixed.sql", "2"),
                                       file("3_c.sql", "3")};
  const std::vector<ChangelogRecord> existing = {
      imported("1_a.sql", "dbmate"), imported("2_b.sql", "dbmate", RecordStatus::kReverted)};
  EXPECT_EQ(applied_since_import(ForeignTool::kDbmate,
                                 {versioned("1"), versioned("2"), versioned("3"), versioned("9")},
                                 disk, existing),
            std::vector<std::string>{"3_c.sql"});
}

// A migration migronaut holds unapplied of its own (failed, or applied and reverted: the tool
// never saw it) that the tool's history now shows applied is one the tool ran since (a host
// still running it): refused by `up` rather than run again, and taken over by `import --force`.
// One imported from the tool keeps the tool's origin whatever migronaut did with it since
// (reverted, or failed on a re-run): the tool's row for it is older than the import. One
// migronaut applied the tool may have run too, but `up` would not run it again.
TEST(AppliedSinceImportTest, WhatTheToolRanAfterMigronautLeftItsOwnUnappliedIsARunSince) {
  const std::vector<Migration> disk = {file("1_a.sql", "1"), file("2_b.sql", "2"),
                                       file("3_c.sql", "3"), file("4_d.sql", "4"),
                                       file("5_e.sql", "5")};
  const std::vector<ChangelogRecord> existing = {
      imported("1_a.sql", "dbmate", RecordStatus::kReverted),
      imported("2_b.sql", "", RecordStatus::kFailed),
      imported("3_c.sql", "", RecordStatus::kReverted), imported("4_d.sql", ""),
      imported("5_e.sql", "dbmate", RecordStatus::kFailed)};
  const std::vector<ForeignRecord> history = {versioned("1"), versioned("2"), versioned("3"),
                                              versioned("4"), versioned("5")};
  const std::vector<std::string> ran_since = {"2_b.sql", "3_c.sql"};
  EXPECT_EQ(applied_since_import(ForeignTool::kDbmate, history, disk, existing), ran_since);
  EXPECT_EQ(names(plan_import(ForeignTool::kDbmate, history, disk, existing, false)), ran_since);
}

// golang-migrate's version says every file at or below it is applied, but a file below the
// version imported it never ran: migronaut's failure there stays, for `up` to retry, while one
// above it, the tool may well have run since.
TEST(AppliedSinceImportTest, AFailureBelowGolangMigratesImportedVersionStaysMigronauts) {
  const std::vector<Migration> disk = {file("1_a.up.sql", "1"), file("3_late.up.sql", "3"),
                                       file("5_e.up.sql", "5"), file("6_f.up.sql", "6")};
  const std::vector<ChangelogRecord> existing = {
      imported("1_a.up.sql", "golang-migrate"), imported("5_e.up.sql", "golang-migrate"),
      imported("3_late.up.sql", "", RecordStatus::kFailed),
      imported("6_f.up.sql", "", RecordStatus::kFailed)};
  EXPECT_EQ(applied_since_import(ForeignTool::kGolangMigrate, {versioned("6")}, disk, existing),
            std::vector<std::string>{"6_f.up.sql"});
  const ImportResult forced =
      plan_import(ForeignTool::kGolangMigrate, {versioned("6")}, disk, existing, false);
  ASSERT_EQ(forced.imported.size(), 1u);
  EXPECT_EQ(forced.imported[0].name, "6_f.up.sql");
}

// A changelog that holds nothing from the tool (a `baseline`, or an `up` of files the tool never
// had, came first): what the tool applied that migronaut never recorded, in any state, `up` would
// run again. Its row for a migration migronaut baselined and reverted since may well predate
// migronaut: that one is migronaut's to judge.
TEST(AppliedSinceImportTest, ANeverImportedToolCountsWhatMigronautNeverRecorded) {
  const std::vector<Migration> disk = {file("1_a.sql", "1"), file("2_b.sql", "2"),
                                       file("3_c.sql", "3"), file("4_d.sql", "4")};
  const std::vector<ChangelogRecord> existing = {
      imported("2_b.sql", "baseline", RecordStatus::kReverted), imported("4_d.sql", "")};
  EXPECT_EQ(applied_since_import(ForeignTool::kDbmate,
                                 {versioned("1"), versioned("2"), versioned("3"), versioned("7")},
                                 disk, existing),
            (std::vector<std::string>{"1_a.sql", "3_c.sql"}));
  // golang-migrate's version only implies its files: those above the highest version migronaut
  // records count, those at or below it may be late arrivals it never ran.
  EXPECT_EQ(applied_since_import(ForeignTool::kGolangMigrate, {versioned("4")}, disk,
                                 {imported("2_b.sql", "")}),
            (std::vector<std::string>{"3_c.sql", "4_d.sql"}));
  EXPECT_EQ(applied_since_import(ForeignTool::kGolangMigrate, {versioned("3")}, disk, existing),
            std::vector<std::string>{});
}

}  // namespace
}  // namespace migronaut

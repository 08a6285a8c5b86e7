// `migronaut status [--check]` and `migronaut list [--pending|--applied]`: read-only views of
// the plan. No lock, no writes.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>

#include "cli/cli.hpp"
#include "cli/format.hpp"
#include "cli/help.hpp"
#include "fmt/format.h"
#include "util/redact.hpp"

namespace migronaut::cli {
namespace {

bool is_pending(const StatusRow& row) { return needs_run(row.state); }

// Appends one line of the table; `state` comes padded (and painted).
void append_line(std::string& table, std::string_view name, std::size_t name_width,
                 std::string_view state, std::string_view batch, std::string_view at,
                 std::string_view notes) {
  append_padded(table, name, name_width);
  table += "  ";
  table += state;
  table += "  ";
  append_padded(table, batch, 5, true);
  table += "  ";
  append_padded(table, at, 20);
  table += "  ";
  table += notes;
}

// The notes column of `row`, written over `notes`.
void write_notes(std::string& notes, const StatusRow& row) {
  notes.clear();
  if (row.checksum_ok == false) notes += "changed since applied; ";
  if (row.out_of_order) notes += "out of order; ";
  if (!row.renamed_from.empty()) notes += "renamed from " + row.renamed_from + "; ";
  if (row.repeatable && row.state == MigrationState::kPending && row.record)
    notes += "changed: re-applies; ";
  if (row.invalid_name) notes += "invalid name; ";
  if (row.record && row.record->origin == "baseline" && row.state == MigrationState::kApplied)
    notes += "baselined: never run here, no down; ";
  if (row.up_empty && needs_run(row.state)) notes += "empty — fill it in; ";
  const bool failed =
      row.state == MigrationState::kFailed || row.state == MigrationState::kHalfReverted;
  if (row.record && !row.record->error.empty() && failed) {
    // On one line, as each migration is one line of the table (`list | wc -l` counts them).
    std::string error = row.record->error;
    std::replace_if(
        error.begin(), error.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    notes += "error: " + error + "; ";
  }
  if (!row.description.empty()) notes += row.description;
  if (notes.ends_with("; ")) notes.resize(notes.size() - 2);
}

// The plan as a table on stdout. `header` false leaves one line per migration (for `wc -l`).
void print_table(Output& out, const std::vector<StatusRow>& rows, bool header = true) {
  if (rows.empty()) {
    out.info("No migrations");
    return;
  }
  std::size_t state_width = 11;  // "interrupted": only a half-reverted row widens it
  std::size_t width = 4;
  // Bytes: never fewer than the name's display columns.
  // A changelog record's name may be hand-made (invalid_name): it must not break its line.
  const auto name_of = [](const StatusRow& row) {
    return row.invalid_name ? single_line(row.name) : row.name;
  };
  for (const StatusRow& row : rows) {
    width = std::max(width, name_of(row).size());
    state_width = std::max(state_width, migration_state_name(row.state).size());
  }
  // Each state's cell, padded and painted once for the whole table.
  std::map<MigrationState, std::string> states;
  const auto state_cell = [&](MigrationState state) -> const std::string& {
    auto [cell, made] = states.try_emplace(state);
    if (made) {
      const bool broken =
          state == MigrationState::kFailed || state == MigrationState::kHalfReverted;
      const Color color = state == MigrationState::kApplied ? Color::kGreen
                          : broken                          ? Color::kRed
                                                            : Color::kYellow;
      cell->second = out.paint_report(color, padded(migration_state_name(state), state_width));
    }
    return cell->second;
  };
  // All the lines in one report: one write, not one per migration.
  std::string table;
  if (header) {
    append_line(table, "name", width, padded("state", state_width), "batch", "applied at", "notes");
    table = out.paint_report(Color::kBold, table);
  }
  std::string notes;
  for (const StatusRow& row : rows) {
    // A missing migration is applied too: its record says when, though its file is gone.
    const bool applied = !needs_run(row.state);
    write_notes(notes, row);
    const std::string batch =
        row.record && row.record->batch > 0 && applied ? std::to_string(row.record->batch) : "";
    const std::string at = row.record && row.record->applied_at_ms && applied
                               ? format_time(*row.record->applied_at_ms)
                               : "";
    if (!table.empty()) table += '\n';
    append_line(table, name_of(row), width, state_cell(row.state), batch, at, notes);
  }
  out.report(table);
}

// "9 applied (1 missing), 3 pending (1 failed, 1 half-reverted)": each group with the states in
// it beyond its plain one, as `up` treats a failed or half-reverted migration unlike a new one.
std::string summary(const std::vector<StatusRow>& rows) {
  std::map<MigrationState, std::size_t> counts;
  for (const StatusRow& row : rows) ++counts[row.state];
  std::array<std::size_t, 2> totals{};  // applied, pending
  std::array<std::vector<std::string>, 2> others;
  for (const auto& [state, count] : counts) {
    const std::size_t group = needs_run(state) ? 1 : 0;
    totals[group] += count;
    if (state != MigrationState::kApplied && state != MigrationState::kPending) {
      others[group].push_back(fmt::format("{} {}", count, migration_state_name(state)));
    }
  }
  const auto said = [&](std::size_t group, std::string_view word) {
    if (others[group].empty()) return fmt::format("{} {}", totals[group], word);
    return fmt::format("{} {} ({})", totals[group], word, fmt::join(others[group], ", "));
  };
  return said(0, "applied") + ", " + said(1, "pending");
}

// Pending migrations a run may be applying, or a killed run's lease holds back until its TTL
// runs out: one read of the lock says which.
void say_who_holds_the_lock(Context& context, Migrator& migrator) {
  const std::optional<LockInfo> holder = migrator.lock_info();
  if (!holder) return;
  const std::int64_t now = migrator.database_now_ms();
  context.out().info("Lock held by " + describe_holder(*holder, now));
  for (const std::string& warning : holder_warnings(*holder, now, context.config().lock_ttl_ms())) {
    context.out().warn(warning);
  }
}

}  // namespace

Command add_status(CLI::App& app) {
  auto* sub = app.add_subcommand("status", "Show applied and pending migrations");
  auto check = std::make_shared<bool>(false);
  sub->add_flag("--check", *check,
                "Exit 2 when anything is pending; when `up` would refuse to run, the status it "
                "would exit with (4 an applied file changed (strict) or renamed and edited, 20 an "
                "invalid script, 23 out of order, 24 another tool's unimported history or a "
                "half-reverted migration, or any other of `up`'s refusals)");
  document(sub, "migronaut status | grep pending",
           "0 shown, 2 something is pending (--check), 5 connection failed, 19/20/35/36 a "
           "migration file or folder it cannot read (a bad name, an invalid file, no folder, an "
           "unreadable file); with --check, what "
           "`up` would refuse with: 4 an applied file changed (strict) or renamed and edited, "
           "20 an invalid script, 23 out of order (on_out_of_order error), 24 another tool's "
           "history is not imported or a migration is half-reverted");
  return {
      sub, [check](Context& context) {
        Migrator migrator(context.config(), context.migrator_options());
        const StatusReport report = migrator.status_report();
        const std::vector<StatusRow>& rows = report.rows;
        const auto pending = std::count_if(rows.begin(), rows.end(), is_pending);
        Output& out = context.out();
        print_table(out, rows);
        out.report(summary(rows));
        if (pending > 0) say_who_holds_the_lock(context, migrator);
        // Those pending rows are the other tool's applied ones: `up` refuses them, and
        // --check says so rather than "pending".
        if (report.unimported) out.warn(unimported_history_error(*report.unimported).what());
        std::vector<std::string> half_reverted;
        for (const StatusRow& row : rows) {
          if (row.state == MigrationState::kHalfReverted) half_reverted.push_back(row.name);
        }
        if (!half_reverted.empty()) out.warn(half_reverted_error(half_reverted).what());
        // Those two were said above.
        if (report.up_refusal && report.up_refusal->code() != ErrorCode::kMigrationBlocked) {
          out.warn("`up` would refuse: " + std::string(report.up_refusal->what()));
        }
        if (out.json_mode()) {
          out.document({{"migrations", rows},
                        {"pending", pending},
                        {"unimportedHistory", report.unimported ? nlohmann::json(*report.unimported)
                                                                : nlohmann::json(nullptr)},
                        {"upRefusal", report.up_refusal ? report.up_refusal->to_json()
                                                        : nlohmann::json(nullptr)}});
        }
        if (!*check) return 0;
        if (report.up_refusal) return exit_status(report.up_refusal->code());
        return pending > 0 ? exit_status(ErrorCode::kPendingMigrations) : 0;
      }};
}

Command add_list(CLI::App& app) {
  auto* sub = app.add_subcommand("list", "List migrations, optionally only pending or applied");
  auto pending_only = std::make_shared<bool>(false);
  auto applied_only = std::make_shared<bool>(false);
  sub->add_flag("--pending", *pending_only, "Only pending migrations");
  sub->add_flag("--applied", *applied_only, "Only applied migrations");
  document(sub, "migronaut list --pending | wc -l",
           "0 shown, 5 connection failed, 19/20/35/36 a migration file or folder it cannot read");
  return {sub, [pending_only, applied_only](Context& context) {
            if (*pending_only && *applied_only) {
              throw ConfigInvalidError("list takes --pending or --applied, not both");
            }
            Migrator migrator(context.config(), context.migrator_options());
            std::vector<StatusRow> rows;
            for (StatusRow& row : migrator.status()) {
              if (*pending_only && !is_pending(row)) continue;
              // Applied as status counts it: a record whose file is gone (missing) too.
              if (*applied_only && needs_run(row.state)) continue;
              rows.push_back(std::move(row));
            }
            print_table(context.out(), rows, isatty(STDOUT_FILENO) == 1);
            if (context.out().json_mode()) context.out().document({{"migrations", rows}});
            return 0;
          }};
}

}  // namespace migronaut::cli

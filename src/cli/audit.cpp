// `migronaut audit`: read-only health checks for CI — each pass, warn or fail, as a table or
// with --json {ok, failed, warnings, checks}. Exit 22 (AUDIT_FAILED) when any check fails.
#include "cli/cli.hpp"
#include "cli/help.hpp"
#include "fmt/format.h"
#include "util/redact.hpp"

namespace migronaut::cli {
namespace {

Color color_of(const std::string& status) {
  if (status == "pass") return Color::kGreen;
  if (status == "warn") return Color::kYellow;
  return Color::kRed;
}

void print_report(Output& out, const AuditReport& report) {
  std::size_t width = 5;
  for (const AuditCheck& check : report.checks) width = std::max(width, check.name.size());
  out.report(out.paint_report(
      Color::kBold, fmt::format("{:<{}}  {:<6}  {}", "check", width, "status", "detail")));
  for (const AuditCheck& check : report.checks) {
    out.report(
        fmt::format("{:<{}}  {}  {}", check.name, width,
                    out.paint_report(color_of(check.status), fmt::format("{:<6}", check.status)),
                    check.detail));
  }
  const std::string summary =
      fmt::format("{} failed, {} warning(s)", report.failed, report.warnings);
  if (report.ok) {
    out.success("Audit passed: " + summary);
  } else {
    out.error("Audit failed: " + summary);
  }
}

}  // namespace

Command add_audit(CLI::App& app) {
  auto* sub = app.add_subcommand("audit", "Read-only health checks (exit 22 when one fails)");
  document(sub, "migronaut audit --json",
           "0 every check passes (warnings allowed), 22 a check failed (an unreachable database "
           "among them)");
  return {sub, [](Context& context) {
            AuditReport report;
            try {
              Migrator migrator(context.config(), context.migrator_options());
              report = migrator.audit();
            } catch (const ConfigInvalidError& error) {
              report = {false, 1, 0, {{"config", "fail", redact(error.what())}}};
            }
            Output& out = context.out();
            print_report(out, report);
            if (out.json_mode()) out.document(report);
            return report.ok ? 0 : exit_status(ErrorCode::kAuditFailed);
          }};
}

}  // namespace migronaut::cli

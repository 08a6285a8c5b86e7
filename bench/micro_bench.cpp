// Micro benchmarks of the work every run does before it touches a database: checksumming
// files, loading a migrations folder and planning against the changelog.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/plan.hpp"
#include "fmt/format.h"
#include "source/migration_set.hpp"
#include "util/checksum.hpp"

namespace migronaut {
namespace {

void BM_ChecksumHex(benchmark::State& state) {
  const std::string content(static_cast<std::size_t>(state.range(0)), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(checksum_hex(content));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_ChecksumHex)->Arg(1024)->Arg(100 * 1024);

// A folder of `count` small SQL migrations, removed again when the benchmark ends.
class MigrationsFolder {
 public:
  explicit MigrationsFolder(int count)
      : path_(std::filesystem::temp_directory_path() /
              fmt::format("migronaut-bench-{}-{}", getpid(), count)) {
    std::filesystem::create_directories(path_);
    for (int i = 0; i < count; ++i) {
      std::ofstream(path_ / fmt::format("{:014}-table-{}.sql", 20260101000000 + i, i))
          << fmt::format(
                 "-- migrate:up\nCREATE TABLE t{0} (id int);\n-- migrate:down\n"
                 "DROP TABLE t{0};\n",
                 i);
    }
  }
  ~MigrationsFolder() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void BM_LoadMigrations(benchmark::State& state) {
  const MigrationsFolder folder(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(load_migrations(folder.path(), ".sql"));
}
BENCHMARK(BM_LoadMigrations)->Arg(100);

// Half the migrations applied, so the plan has both records to match and pending entries.
void BM_MakePlan(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  std::vector<Migration> migrations;
  std::vector<ChangelogRecord> records;
  for (int i = 0; i < count; ++i) {
    Migration migration;
    migration.name = fmt::format("{:014}-m.sql", 20260101000000 + i);
    migration.checksum = checksum_hex(migration.name);
    if (i % 2 == 0) {
      ChangelogRecord record;
      record.name = migration.name;
      record.checksum = migration.checksum;
      record.batch = 1;
      records.push_back(std::move(record));
    }
    migrations.push_back(std::move(migration));
  }
  for (auto _ : state) benchmark::DoNotOptimize(make_plan(migrations, records));
}
BENCHMARK(BM_MakePlan)->Arg(10000);

}  // namespace
}  // namespace migronaut

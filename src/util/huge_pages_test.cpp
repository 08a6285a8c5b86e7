#include "util/huge_pages.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace migronaut {
namespace {

constexpr std::uintptr_t kHugePage = 2 << 20;

// Whether the kernel was asked for huge pages at `address`: the "hg" flag of the mapping that
// holds it in /proc/self/smaps (set by the advice, whether or not huge pages are to be had).
bool advised_huge(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    if (std::istringstream(line) >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= address && address < to;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

// Runs `body` on a thread of its own, which glibc gives an arena of its own.
template <typename Body>
void on_a_new_thread(Body body) {
  std::thread(body).join();
}

// Where the calling thread's allocations go, and where its arena's heap reaches past its first
// huge page (glibc aligns a thread arena's 64 MiB heap to its size).
struct ArenaSpots {
  std::uintptr_t first_huge_page = 0;
  std::uintptr_t beyond = 0;
};
ArenaSpots this_threads_arena() {
  void* volatile block = std::malloc(64);
  const auto address = reinterpret_cast<std::uintptr_t>(block);
  std::free(block);
  const std::uintptr_t heap = address & ~((std::uintptr_t{64} << 20) - 1);
  return {address, heap + 3 * kHugePage};
}

// In its own process under ctest; run whole, it must come before the test that opts in.
TEST(HugePagesTest, AThreadsArenaIsLeftAloneUnlessTheProcessOptedIn) {
  on_a_new_thread([] {
    prefer_huge_pages_in_this_thread();
    const ArenaSpots spots = this_threads_arena();
    EXPECT_FALSE(advised_huge(spots.beyond));
  });
}

TEST(HugePagesTest, OptingInAdvisesEveryHeapBeyondItsFirstHugePage) {
  const auto heap_start = reinterpret_cast<std::uintptr_t>(sbrk(0));
  prefer_huge_pages();
  const auto heap_end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  ASSERT_GT(heap_end, heap_start + 8 * kHugePage) << "the heap grew by its reserve";
  EXPECT_FALSE(advised_huge(heap_start)) << "a small process keeps 4 KiB pages";
  EXPECT_TRUE(advised_huge(heap_start + 4 * kHugePage));
  on_a_new_thread([] {
    prefer_huge_pages_in_this_thread();
    const ArenaSpots spots = this_threads_arena();
    EXPECT_FALSE(advised_huge(spots.first_huge_page)) << "a small thread keeps 4 KiB pages";
    EXPECT_TRUE(advised_huge(spots.beyond));
  });
}

}  // namespace
}  // namespace migronaut

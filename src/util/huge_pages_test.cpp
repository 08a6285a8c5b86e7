#include "util/huge_pages.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

namespace migronaut {
namespace {

constexpr std::uintptr_t kHugePage = 2 << 20;

// The mapping of /proc/self/smaps that holds an address: where it starts and its VmFlags ("hg":
// huge pages advised, "nh": advised against; set by the advice whether or not the kernel has
// huge pages to give).
struct Mapping {
  std::uintptr_t from = 0;
  std::string flags;
};
std::optional<Mapping> mapping_of(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::optional<Mapping> found;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    if (std::istringstream(line) >> std::hex >> from >> dash >> to && dash == '-') {
      if (found) return found;
      if (from <= address && address < to) found = Mapping{from, ""};
    } else if (found && line.starts_with("VmFlags:")) {
      found->flags = line.substr(8) + " ";
    }
  }
  return found;
}

// Where the calling thread's allocations go, and the glibc heap of its arena (a thread arena's
// 64 MiB heap is aligned to its size).
struct Arena {
  std::uintptr_t allocation = 0;
  std::uintptr_t heap = 0;
};
Arena this_threads_arena() {
  void* volatile block = std::malloc(64);
  const auto address = reinterpret_cast<std::uintptr_t>(block);
  std::free(block);
  return {address, address & ~((std::uintptr_t{64} << 20) - 1)};
}

// What the advice made of the mapping at `address`: "huge", "small" (huge pages advised against),
// "none", or "unmapped".
std::string advice_of(std::uintptr_t address) {
  const std::optional<Mapping> mapping = mapping_of(address);
  if (!mapping) return "unmapped";
  if (mapping->flags.find(" hg ") != std::string::npos) return "huge";
  if (mapping->flags.find(" nh ") != std::string::npos) return "small";
  return "none";
}

// Runs `body` on a thread of its own, which glibc gives an arena of its own.
template <typename Body>
void on_a_new_thread(Body body) {
  std::thread(body).join();
}

TEST(HugePagesTest, AThreadsArenaIsLeftAloneUnlessTheProcessOptedIn) {
  on_a_new_thread([] {
    prefer_huge_pages_in_this_thread();
    const Arena arena = this_threads_arena();
    EXPECT_EQ(advice_of(arena.heap + 3 * kHugePage), "none");
  });
}

// Opting in changes the process for good: the test runs in a child process of its own, which
// prints what it found and exits 0 when all was as expected.
void opt_in_and_report() {
  const auto heap_start = reinterpret_cast<std::uintptr_t>(sbrk(0));
  prefer_huge_pages();
  const auto heap_end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  std::string found = "main heap grew: " + std::to_string(heap_end > heap_start + 8 * kHugePage) +
                      ", first " + advice_of(heap_start) + ", past " +
                      advice_of(heap_start + 4 * kHugePage) + "; ";
  on_a_new_thread([&] {
    prefer_huge_pages_in_this_thread();
    const Arena arena = this_threads_arena();
    const std::optional<Mapping> first = mapping_of(arena.allocation);
    found += "thread heap mapped from its aligned start: " +
             std::to_string(first && first->from == arena.heap) + ", first " +
             advice_of(arena.allocation) + ", past " + advice_of(arena.heap + 3 * kHugePage);
  });
  std::cerr << found << "\n";
  std::exit(found == "main heap grew: 1, first small, past huge; thread heap mapped from its "
                     "aligned start: 1, first small, past huge"
                ? 0
                : 1);
}

TEST(HugePagesTest, OptingInAdvisesEveryHeapBeyondItsFirstStretch) {
  EXPECT_EXIT(opt_in_and_report(), ::testing::ExitedWithCode(0), "");
}

TEST(HugePagesTest, GlibcsOwnHugePagesTunableLeavesTheHeapsToGlibc) {
  EXPECT_EXIT(
      {
        setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);  // read by prefer_huge_pages
        const auto heap_start = reinterpret_cast<std::uintptr_t>(sbrk(0));
        prefer_huge_pages();
        std::cerr << "past the start: " << advice_of(heap_start + 4 * kHugePage) << "\n";
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "past the start: (none|unmapped)\n");
}

}  // namespace
}  // namespace migronaut

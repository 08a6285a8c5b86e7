#include "util/huge_pages.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace migronaut {
namespace {

constexpr std::uintptr_t kHugePage = 2 << 20;
// glibc reserves each thread arena's heap as one region of this size, aligned to it (twice the
// largest mmap threshold, on 64-bit systems).
constexpr std::uintptr_t kArenaHeap = 64 << 20;

std::atomic<bool> opted_in{false};

std::uintptr_t program_break() { return reinterpret_cast<std::uintptr_t>(sbrk(0)); }

// Advises [from, to) rounded in to whole huge pages; only advice: a failure changes nothing.
void advise(std::uintptr_t from, std::uintptr_t to) {
  from = (from + kHugePage - 1) & ~(kHugePage - 1);
  to &= ~(kHugePage - 1);
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}

}  // namespace

void prefer_huge_pages() {
  const std::uintptr_t start = program_break();
  // Each growth of a heap reserves this much more: a huge page needs a whole aligned 2 MiB
  // inside the mapping, which growth by glibc's default 128 KiB steps seldom leaves.
  mallopt(M_TOP_PAD, static_cast<int>(kArenaHeap));
  // Allocates until the heap grows (by that reserve), below any mmap threshold.
  std::array<void* volatile, 16> blocks{};  // volatile: the pairs are not optimised away
  for (std::size_t i = 0; i < blocks.size() && program_break() == start; ++i) {
    blocks[i] = malloc(64 << 10);
  }
  for (void* block : blocks) free(block);
  advise(start + kHugePage, program_break());
  opted_in = true;
}

void prefer_huge_pages_in_this_thread() {
  if (!opted_in) return;
  void* volatile probe = malloc(1);
  const auto address = reinterpret_cast<std::uintptr_t>(probe);
  free(probe);
  // The main arena lies in the program break's heap, below every mapping a thread arena has.
  if (address < program_break()) return;
  const std::uintptr_t heap = address & ~(kArenaHeap - 1);
  advise(heap + kHugePage, heap + kArenaHeap);
}

}  // namespace migronaut

#include "util/huge_pages.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace migronaut {
namespace {

static_assert(sizeof(void*) == 8, "the sizes below are glibc's on 64-bit systems");

constexpr std::uintptr_t kHugePage = 2 << 20;  // x86-64's and arm64's (4 KiB pages) PMD size
// glibc reserves each thread arena's heap as one mapping of this size, aligned to it (twice the
// largest mmap threshold), unless its hugetlb tunable changed that.
constexpr std::uintptr_t kArenaHeap = 64 << 20;

std::atomic<bool> opted_in{false};

std::uintptr_t program_break() { return reinterpret_cast<std::uintptr_t>(sbrk(0)); }

// Advice only: a failure changes nothing. The first stretch is marked as well, so that a kernel
// giving huge pages to everything (THP "always") does not give a small command's heap one.
void advise(std::uintptr_t small_from, std::uintptr_t to) {
  small_from &= ~(static_cast<std::uintptr_t>(getpagesize()) - 1);
  const std::uintptr_t huge_from = (small_from + 2 * kHugePage - 1) & ~(kHugePage - 1);
  to &= ~(kHugePage - 1);
  if (to <= huge_from) return;
  madvise(reinterpret_cast<void*>(small_from), huge_from - small_from, MADV_NOHUGEPAGE);
  madvise(reinterpret_cast<void*>(huge_from), to - huge_from, MADV_HUGEPAGE);
}

bool glibc_decides() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, "malloc.hugetlb") != nullptr;
}

}  // namespace

void prefer_huge_pages() {
  if (glibc_decides()) return;
  const std::uintptr_t start = program_break();
  // Each growth of a heap reserves this much more: a huge page needs a whole aligned 2 MiB
  // inside the mapping, which growth by glibc's default 128 KiB steps seldom leaves. Only
  // address space until touched.
  mallopt(M_TOP_PAD, static_cast<int>(kArenaHeap));
  // Allocates until the main heap grows by that reserve (blocks below any mmap threshold).
  std::array<void* volatile, 16> blocks{};  // volatile: the pairs are not optimised away
  for (std::size_t i = 0; i < blocks.size() && program_break() == start; ++i) {
    blocks[i] = malloc(64 << 10);
  }
  for (void* block : blocks) free(block);
  advise(start, program_break());
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
  // An arena's heap is mapped whole (what it does not use yet PROT_NONE); a hole means the
  // region is not one, and it is left alone. (msync with MS_ASYNC only checks the mapping.)
  if (msync(reinterpret_cast<void*>(heap), kArenaHeap, MS_ASYNC) != 0) return;
  advise(heap, heap + kArenaHeap);
}

}  // namespace migronaut

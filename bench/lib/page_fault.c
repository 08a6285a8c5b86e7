// What a page fault costs on this machine: the kernel zeroes and maps a fresh 4 KiB page on its
// first touch, and a command over a large folder touches thousands. Virtual machines differ by
// several times here, which moves every absolute number of the bench.
// Usage: page_fault — prints the microseconds of one fault, the median of five passes.
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

enum { kPages = 20000, kPasses = 5 };

static double one_pass(void) {
  char* memory =
      mmap(NULL, (size_t)kPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) exit(1);
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (size_t page = 0; page < kPages; ++page) memory[page * 4096] = 1;
  clock_gettime(CLOCK_MONOTONIC, &end);
  munmap(memory, (size_t)kPages * 4096);
  return ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / kPages;
}

static int ascending(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  double passes[kPasses];
  for (int i = 0; i < kPasses; ++i) passes[i] = one_pass();
  qsort(passes, kPasses, sizeof passes[0], ascending);
  printf("%.1f\n", passes[kPasses / 2]);
  return 0;
}

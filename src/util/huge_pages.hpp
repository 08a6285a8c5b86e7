// Huge pages for a short-lived process that reads a large folder: at 1.4–10 µs a page fault, the
// faults of fresh 4 KiB pages cost 10,000 migrations more than their files' system calls.
#pragma once

namespace migronaut {

// Opts the process in (the CLI's main calls it first; a service embedding the library keeps
// its own memory policy): the heap grows in large steps, and its first 64 MiB past the next
// 2 MiB are backed by 2 MiB pages where the kernel has them. A boot check of a small folder
// stays within that first stretch and keeps its 4 KiB pages. Does nothing where glibc was told
// to use huge pages itself (GLIBC_TUNABLES=glibc.malloc.hugetlb=…).
void prefer_huge_pages();

// The same for the glibc arena of the calling thread, when the process opted in: a thread that
// reads files allocates in an arena of its own.
void prefer_huge_pages_in_this_thread();

}  // namespace migronaut

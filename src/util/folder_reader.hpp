// Reading many files of one folder, many at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "util/file.hpp"

namespace migronaut {

// One file's whole content, or the errno of why it could not be read.
struct FileContent {
  std::string text;
  int error = 0;
};

// Reads files of one folder. Where the kernel offers io_uring, a batch of files costs one system
// call for all their opens, reads and closes instead of four each: a system call's entry and
// exit is most of a small file's cost, and a boot check reads every migration file
// (docs/DESIGN-NOTES.md, "Reading the folder"). Where it does not (an old kernel, a seccomp
// filter that refuses io_uring as container runtimes' default profiles do), it reads them one by
// one. A file the batch could not read whole is read again on its own, so the results are the
// same either way. One reader serves one thread at a time.
class FolderReader {
 public:
  enum class Mode { kBatched, kOneByOne };

  // `folder` must outlive the reader. kBatched falls back to kOneByOne where io_uring is refused.
  explicit FolderReader(const Descriptor& folder, Mode mode = Mode::kBatched);
  ~FolderReader();
  FolderReader(const FolderReader&) = delete;
  FolderReader& operator=(const FolderReader&) = delete;

  // Whether files are read in batches through io_uring.
  bool batched() const { return ring_ != nullptr; }

  // The content of each file of `names` (names in the folder), in their order.
  std::vector<FileContent> read(std::span<const char* const> names);

 private:
  class Ring;
  const Descriptor& folder_;
  std::unique_ptr<Ring> ring_;
};

}  // namespace migronaut

#include "util/folder_reader.hpp"

#include <fcntl.h>
#include <liburing.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace migronaut {
namespace {

// Files submitted at once; the ring holds four operations for each: open, read, a read that
// must find the end, close.
constexpr unsigned kBatchFiles = 32;
constexpr unsigned kOpsPerFile = 4;
// A file's first read. A migration nearly always fits; one that does not is read again on its
// own.
constexpr unsigned kSlotBytes = 16 * 1024;
// Read from the file's position, which the first read moves on for the second.
constexpr std::uint64_t kAtFilePosition = static_cast<std::uint64_t>(-1);

enum Op : std::uint64_t { kOpen, kRead, kEndRead, kClose };

// What a batch learnt of one file: each operation's result, by Op (a count, or a negative errno;
// -ECANCELED until its completion comes).
struct Outcome {
  std::array<int, kOpsPerFile> results = {-ECANCELED, -ECANCELED, -ECANCELED, -ECANCELED};
  int read() const { return results[kRead]; }
  // The batch holds the file's whole text only if it opened, read, and then read nothing more.
  bool whole() const { return results[kOpen] >= 0 && read() >= 0 && results[kEndRead] == 0; }
};

FileContent read_one(const Descriptor& folder, const char* name) {
  std::optional<std::string> text = read_whole_file_at(folder, name);
  if (!text) return {.text = {}, .error = errno != 0 ? errno : EIO};
  return {.text = std::move(*text)};
}

void read_one_by_one(const Descriptor& folder, std::span<const char* const> names,
                     std::span<FileContent> contents) {
  for (std::size_t i = 0; i < names.size(); ++i) contents[i] = read_one(folder, names[i]);
}

}  // namespace

// An io_uring whose fixed-file table has a slot for each file of a batch, and a buffer for each
// slot. A file's four operations are hard-linked, so they run in order and its close runs
// whatever became of the others; the files need no descriptor of the process's own.
class FolderReader::Ring {
 public:
  // A ring, or nullptr where the kernel refuses one: io_uring missing or disabled, or a kernel
  // older than the sparse fixed-file table (Linux 5.19), which has the direct opens and closes.
  static std::unique_ptr<Ring> open() {
    io_uring ring;
    if (io_uring_queue_init(kBatchFiles * kOpsPerFile, &ring, 0) < 0) return nullptr;
    if (io_uring_register_files_sparse(&ring, kBatchFiles) < 0) {
      io_uring_queue_exit(&ring);
      return nullptr;
    }
    return std::unique_ptr<Ring>(new Ring(ring));
  }
  ~Ring() { io_uring_queue_exit(&ring_); }

  // Reads up to kBatchFiles files into `contents`, those the batch could not read whole one by
  // one. False when the kernel did not take the whole batch (short of memory): the ring still
  // holds what it did not take, and is not to be used again.
  bool read(const Descriptor& folder, std::span<const char* const> names,
            std::span<FileContent> contents) {
    std::array<Outcome, kBatchFiles> outcomes;  // filled before anything is in flight
    const std::size_t ops = names.size() * kOpsPerFile;
    const bool queued = io_uring_sq_space_left(&ring_) >= ops;
    if (queued) {
      for (unsigned slot = 0; slot < names.size(); ++slot) queue(folder.get(), names[slot], slot);
    }
    const std::size_t taken = queued ? submit() : 0;
    collect(taken, outcomes);
    for (std::size_t slot = 0; slot < names.size(); ++slot) {
      const Outcome& outcome = outcomes[slot];
      contents[slot] = outcome.whole()
                           ? FileContent{.text = std::string(buffer(slot), outcome.read())}
                           : read_one(folder, names[slot]);
    }
    return queued && taken == ops;
  }

 private:
  explicit Ring(const io_uring& ring) : ring_(ring) {}

  char* buffer(std::size_t slot) { return buffers_.get() + slot * kSlotBytes; }

  // Tags an operation prepared in `sqe` (the prep functions clear its flags) with its file's
  // slot and what it is.
  void tag(io_uring_sqe* sqe, Op op, unsigned slot, unsigned flags) {
    io_uring_sqe_set_data64(sqe, slot * kOpsPerFile + op);
    io_uring_sqe_set_flags(sqe, flags);
  }

  void queue(int folder, const char* name, unsigned slot) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    io_uring_prep_openat_direct(sqe, folder, name, O_RDONLY, 0, slot);
    tag(sqe, kOpen, slot, IOSQE_IO_HARDLINK);
    constexpr unsigned kChained = IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
    sqe = io_uring_get_sqe(&ring_);
    io_uring_prep_read(sqe, slot, buffer(slot), kSlotBytes, kAtFilePosition);
    tag(sqe, kRead, slot, kChained);
    sqe = io_uring_get_sqe(&ring_);
    io_uring_prep_read(sqe, slot, &end_byte_, 1, kAtFilePosition);
    tag(sqe, kEndRead, slot, kChained);
    sqe = io_uring_get_sqe(&ring_);
    io_uring_prep_close_direct(sqe, slot);
    tag(sqe, kClose, slot, 0);
  }

  // Submits the batch once; how many operations the kernel took. Short of memory it may take
  // part: the rest is not submitted again, as a file's chain cut in two would lose its order.
  std::size_t submit() {
    int submitted;
    while ((submitted = io_uring_submit(&ring_)) == -EINTR) {
    }
    return submitted > 0 ? static_cast<std::size_t>(submitted) : 0;
  }

  // Waits for the completions of the `taken` operations (one each, those of a chain that failed
  // included) and notes their results.
  void collect(std::size_t taken, std::span<Outcome> outcomes) {
    for (std::size_t seen = 0; seen < taken; ++seen) {
      io_uring_cqe* cqe;
      int waited;
      while ((waited = io_uring_wait_cqe(&ring_, &cqe)) == -EINTR || waited == -EAGAIN) {
      }
      if (waited < 0) {
        // Operations still in flight write into the buffers: unwinding would free them first.
        std::fprintf(stderr, "migronaut: io_uring stopped completing reads (%s)\n",
                     std::strerror(-waited));
        std::abort();
      }
      const std::uint64_t op = io_uring_cqe_get_data64(cqe);
      outcomes[op / kOpsPerFile].results[op % kOpsPerFile] = cqe->res;
      io_uring_cqe_seen(&ring_, cqe);
    }
  }

  io_uring ring_;
  std::unique_ptr<char[]> buffers_ =
      std::make_unique_for_overwrite<char[]>(kBatchFiles * kSlotBytes);
  // Where each file's second read puts what the first left: it should find none. Shared by the
  // slots and never read: only the count matters.
  char end_byte_ = 0;
};

FolderReader::FolderReader(const Descriptor& folder, Mode mode)
    : folder_(folder), ring_(mode == Mode::kBatched ? Ring::open() : nullptr) {}

FolderReader::~FolderReader() = default;

std::vector<FileContent> FolderReader::read(std::span<const char* const> names) {
  std::vector<FileContent> contents(names.size());
  for (std::size_t begin = 0; begin < names.size(); begin += kBatchFiles) {
    const std::size_t count = std::min<std::size_t>(kBatchFiles, names.size() - begin);
    const auto batch = names.subspan(begin, count);
    const auto out = std::span(contents).subspan(begin, count);
    if (!ring_) {
      read_one_by_one(folder_, batch, out);
    } else if (!ring_->read(folder_, batch, out)) {
      ring_.reset();
    }
  }
  return contents;
}

}  // namespace migronaut

#include "util/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace migronaut {
namespace {

// Read at a time; a migration nearly always fits in one.
constexpr std::size_t kChunkBytes = 16 * 1024;

// Reads `file` until read() says the end, as a short read is no end (network file systems,
// pipes). No fstat to size the text: a file that fits in one chunk costs two reads, and its
// text is allocated once, at its size.
std::optional<std::string> read_to_end(const Descriptor& file) {
  if (file.get() < 0) return std::nullopt;
  std::string content;
  std::array<char, kChunkBytes> chunk;
  for (;;) {
    const ssize_t got = ::read(file.get(), chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;
    if (got == 0) return content;
    content.append(chunk.data(), static_cast<std::size_t>(got));
  }
}

}  // namespace

Descriptor::~Descriptor() {
  if (fd_ < 0) return;
  const int saved = errno;
  ::close(fd_);
  errno = saved;
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  return read_to_end(Descriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC)));
}

std::optional<std::string> read_whole_file_at(const Descriptor& folder, const char* name) {
  return read_to_end(Descriptor(::openat(folder.get(), name, O_RDONLY | O_CLOEXEC)));
}

}  // namespace migronaut

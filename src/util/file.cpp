#include "util/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace migronaut {
namespace {

// Closes the descriptor on every path out, keeping the errno of the failure being reported.
struct Descriptor {
  int fd;
  ~Descriptor() {
    const int saved = errno;
    ::close(fd);
    errno = saved;
  }
};

}  // namespace

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return std::nullopt;
  // Read until read() says the end, as a short read is no end (network file systems, pipes).
  // No fstat to size the text: a migration fits in one chunk, so it costs open, two reads and
  // close, and the text is allocated once, at its size.
  std::string content;
  std::array<char, 16 * 1024> chunk;
  for (;;) {
    const ssize_t got = ::read(file.fd, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;
    if (got == 0) return content;
    content.append(chunk.data(), static_cast<std::size_t>(got));
  }
}

}  // namespace migronaut

#include "util/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) return std::nullopt;
  // Sized by fstat, read until read() says the end: a short read is no end (network file
  // systems, reads over 2 GiB), and a file that grew meanwhile is read on.
  std::string content(static_cast<std::size_t>(info.st_size) + 1, '\0');
  std::size_t used = 0;
  for (;;) {
    if (used == content.size()) content.resize(content.size() * 2);
    const ssize_t got = ::read(file.fd, content.data() + used, content.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  content.resize(used);
  return content;
}

}  // namespace migronaut

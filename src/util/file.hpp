// Reading a file whole.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace migronaut {

// An open descriptor (or -1), closed when it goes, keeping the errno of a failure being
// reported.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor();
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// The whole content of the file at `path`, or nullopt when it cannot be opened or read (a
// missing file, a directory, no permission: errno says which). A boot check reads every
// migration file, so this is an open, reads and a close per file, without a stream's locale
// set-up.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// The same for the file `name` in the open folder `folder`: openat, so reading a folder's
// files walks the folder's path once, not once per file.
std::optional<std::string> read_whole_file_at(const Descriptor& folder, const char* name);

}  // namespace migronaut

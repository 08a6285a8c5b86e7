// A fresh directory under the system temp dir, removed with everything in it on destruction.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace migronaut::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "migronaut-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // `name` inside the directory (not created).
  std::filesystem::path file(std::string_view name) const { return path_ / name; }
  // Writes `content` to `name` (parent folders created) and returns its path.
  std::filesystem::path write(const std::filesystem::path& name, std::string_view content) const;
  // The bytes of `name` (empty when it cannot be read).
  std::string read(const std::filesystem::path& name) const;

 private:
  std::filesystem::path path_;
};

}  // namespace migronaut::testing

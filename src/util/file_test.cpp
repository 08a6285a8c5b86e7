#include "util/file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <thread>

namespace migronaut {
namespace {

namespace fs = std::filesystem;

class ReadWholeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("read_whole_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  fs::path dir_;
};

TEST_F(ReadWholeFileTest, ReadsEveryByte) {
  const std::string text = std::string("a\0b\r\n", 5) + std::string(200000, 'x') + "end";
  EXPECT_EQ(read_whole_file(write("big.sql", text)), text);
  EXPECT_EQ(read_whole_file(write("empty.sql", "")), "");
}

TEST_F(ReadWholeFileTest, MissingFileIsNulloptWithErrno) {
  errno = 0;
  EXPECT_EQ(read_whole_file(dir_ / "absent.sql"), std::nullopt);
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(ReadWholeFileTest, DirectoryIsNulloptWithErrno) {
  fs::create_directory(dir_ / "folder.sql");
  errno = 0;
  EXPECT_EQ(read_whole_file(dir_ / "folder.sql"), std::nullopt);
  EXPECT_EQ(errno, EISDIR);
}

TEST_F(ReadWholeFileTest, ReadsAFifoToItsEnd) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo) << std::string(70000, 'y'); });
  const std::optional<std::string> text = read_whole_file(fifo);
  writer.join();
  EXPECT_EQ(text, std::string(70000, 'y'));
}

}  // namespace
}  // namespace migronaut

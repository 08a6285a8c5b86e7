#include "util/folder_reader.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <liburing.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace migronaut {
namespace {

namespace fs = std::filesystem;

using Mode = FolderReader::Mode;

class FolderReaderTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("folder_reader_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(static_cast<int>(GetParam())));
    fs::create_directories(dir_);
    folder_ = std::make_unique<Descriptor>(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY));
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  std::vector<FileContent> read(const std::vector<std::string>& names) {
    std::vector<const char*> pointers;
    for (const std::string& name : names) pointers.push_back(name.c_str());
    FolderReader reader(*folder_, GetParam());
    return reader.read(pointers);
  }
  fs::path dir_;
  std::unique_ptr<Descriptor> folder_;
};

// Sizes about the batch's 16 KiB first read: those that fit, fill it, and overflow it.
TEST_P(FolderReaderTest, ReadsEveryByteOfEveryFileWhateverItsSize) {
  std::vector<std::string> names, texts;
  for (const std::size_t size : {0, 1, 770, 16383, 16384, 16385, 200000}) {
    std::string text(size, 'x');
    for (std::size_t i = 0; i < size; i += 97) text[i] = static_cast<char>('a' + i % 26);
    if (size > 2) text[1] = '\0';
    names.push_back("file_" + std::to_string(size) + ".sql");
    texts.push_back(text);
    write(names.back(), text);
  }
  const std::vector<FileContent> contents = read(names);
  ASSERT_EQ(contents.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(contents[i].error, 0) << names[i];
    EXPECT_EQ(contents[i].text, texts[i]) << names[i];
  }
}

// More files than one batch, in the order asked, each its own.
TEST_P(FolderReaderTest, ReadsManyFilesInTheOrderAsked) {
  std::vector<std::string> names;
  for (int i = 0; i < 100; ++i) {
    names.push_back(std::to_string(i) + ".sql");
    write(names.back(), "SELECT " + std::to_string(i) + ";");
  }
  std::reverse(names.begin(), names.end());
  const std::vector<FileContent> contents = read(names);
  ASSERT_EQ(contents.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(contents[i].text, "SELECT " + names[i].substr(0, names[i].find('.')) + ";");
  }
}

// A file that cannot be read gives its errno, and its neighbours are read all the same.
TEST_P(FolderReaderTest, AnUnreadableFileGivesItsErrnoBesideTheOthers) {
  write("before.sql", "a");
  fs::create_directory(dir_ / "folder.sql");
  write("after.sql", "b");
  const std::vector<FileContent> contents =
      read({"before.sql", "absent.sql", "folder.sql", "after.sql"});
  ASSERT_EQ(contents.size(), 4u);
  EXPECT_EQ(contents[0].text, "a");
  EXPECT_EQ(contents[1].error, ENOENT);
  EXPECT_EQ(contents[2].error, EISDIR);
  EXPECT_EQ(contents[3].text, "b");
  EXPECT_EQ(contents[3].error, 0);
}

INSTANTIATE_TEST_SUITE_P(BothModes, FolderReaderTest,
                         ::testing::Values(Mode::kBatched, Mode::kOneByOne), [](const auto& info) {
                           return info.param == Mode::kBatched ? "Batched" : "OneByOne";
                         });

// Where this process may set up an io_uring with a sparse file table, the reader batches; asked
// not to, it does not.
TEST(FolderReaderModeTest, BatchesWhereTheKernelAllowsIt) {
  const Descriptor folder(::open(fs::temp_directory_path().c_str(), O_RDONLY | O_DIRECTORY));
  EXPECT_FALSE(FolderReader(folder, Mode::kOneByOne).batched());
  io_uring ring;
  if (const int refused = io_uring_queue_init(8, &ring, 0); refused < 0) {
    GTEST_SKIP() << "io_uring is refused here: " << std::strerror(-refused);
  }
  const int sparse = io_uring_register_files_sparse(&ring, 8);
  io_uring_queue_exit(&ring);
  if (sparse < 0) GTEST_SKIP() << "no sparse file table (Linux 5.19): " << std::strerror(-sparse);
  EXPECT_TRUE(FolderReader(folder).batched());
}

}  // namespace
}  // namespace migronaut

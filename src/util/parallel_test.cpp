#include "util/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace migronaut {
namespace {

TEST(ForEachIndexTest, CallsEveryIndexOnce) {
  for (const std::size_t count : {0u, 1u, 31u, 32u, 33u, 10000u}) {
    std::vector<std::atomic<int>> calls(count);
    for_each_index(count, Spread{16, 8}, [&](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(calls[i], 1) << i << " of " << count;
  }
}

TEST(ForEachIndexTest, ASmallCountRunsOnTheCallingThread) {
  std::vector<std::thread::id> threads(255);
  for_each_index(threads.size(), Spread{256, 8},
                 [&](std::size_t i) { threads[i] = std::this_thread::get_id(); });
  for (const std::thread::id& thread : threads) EXPECT_EQ(thread, std::this_thread::get_id());
}

TEST(ForEachIndexTest, RethrowsWhatTheWorkThrows) {
  std::atomic<int> calls = 0;
  EXPECT_THROW(for_each_index(5000, Spread{16, 8},
                              [&](std::size_t i) {
                                ++calls;
                                if (i == 777) throw std::runtime_error("bad item");
                              }),
               std::runtime_error);
  EXPECT_GT(calls, 0);
}

TEST(ThreadsForTest, OneUnlessEachThreadHasItsShareAndNeverMoreThanAllowed) {
  EXPECT_EQ(threads_for(0, Spread{256, 8}), 1u);
  EXPECT_EQ(threads_for(511, Spread{256, 8}), 1u);
  EXPECT_EQ(threads_for(1000000, Spread{256, 1}), 1u);
  const std::size_t cores = std::max(std::thread::hardware_concurrency(), 1u);
  EXPECT_EQ(threads_for(1000000, Spread{256, 3}), std::min<std::size_t>(cores, 3));
  EXPECT_EQ(threads_for(1024, Spread{256, 8}), std::min<std::size_t>(cores, 4));
}

// The first item holds its thread until every item outside its block is done: that ends only
// if the other threads take those items, as they would not if each thread had a fixed half.
TEST(ForEachIndexTest, ASlowItemHoldsUpNoneOfTheOtherThreadsItems) {
  if (threads_for(4096, Spread{16, 2}) < 2) GTEST_SKIP() << "one core: no other thread to take any";
  constexpr std::size_t kCount = 4096;
  constexpr std::size_t kFirstBlock = kIndexBlock;  // what the slow item's thread took with it
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t others_done = 0;
  bool waited_out = false;
  for_each_index(kCount, Spread{16, 2}, [&](std::size_t i) {
    std::unique_lock lock(mutex);
    if (i != 0) {
      if (i >= kFirstBlock && ++others_done == kCount - kFirstBlock) changed.notify_all();
      return;
    }
    waited_out = !changed.wait_for(lock, std::chrono::seconds(30),
                                   [&] { return others_done == kCount - kFirstBlock; });
  });
  EXPECT_FALSE(waited_out);
}

}  // namespace
}  // namespace migronaut

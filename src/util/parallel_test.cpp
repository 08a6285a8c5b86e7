#include "util/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace migronaut {
namespace {

// Calls `work(i)` for every index of every block.
void for_each_index(std::size_t count, Spread spread,
                    const std::function<void(std::size_t)>& work) {
  for_each_block(count, spread, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) work(i);
  });
}

TEST(ForEachBlockTest, CallsEveryIndexOnce) {
  for (const std::size_t count : {0u, 1u, 31u, 32u, 33u, 10000u}) {
    std::vector<std::atomic<int>> calls(count);
    for_each_index(count, Spread{16, 8}, [&](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(calls[i], 1) << i << " of " << count;
  }
}

// Work keeps state for each thread by its number: no two threads may share one.
TEST(ForEachBlockTest, EachThreadHasItsOwnNumberBelowTheThreadCount) {
  constexpr std::size_t kCount = 10000;
  const Spread spread{16, 8};
  const std::size_t threads = threads_for(kCount, spread);
  std::vector<std::thread::id> owners(threads);
  owners[0] = std::this_thread::get_id();  // the calling thread is 0
  std::mutex mutex;
  bool shared = false;
  for_each_block(kCount, spread, [&](std::size_t thread, std::size_t begin, std::size_t end) {
    ASSERT_LT(thread, threads);
    EXPECT_LE(end - begin, kIndexBlock);
    std::lock_guard lock(mutex);
    if (owners[thread] == std::thread::id()) owners[thread] = std::this_thread::get_id();
    shared |= owners[thread] != std::this_thread::get_id();
  });
  EXPECT_FALSE(shared);
}

TEST(ForEachBlockTest, ASmallCountRunsOnTheCallingThread) {
  std::vector<std::thread::id> threads(255);
  for_each_index(threads.size(), Spread{256, 8},
                 [&](std::size_t i) { threads[i] = std::this_thread::get_id(); });
  for (const std::thread::id& thread : threads) EXPECT_EQ(thread, std::this_thread::get_id());
}

TEST(ForEachBlockTest, RethrowsWhatTheWorkThrows) {
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
TEST(ForEachBlockTest, ASlowItemHoldsUpNoneOfTheOtherThreadsItems) {
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

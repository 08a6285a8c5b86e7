#include "util/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

#include "util/huge_pages.hpp"

namespace migronaut {

std::size_t threads_for(std::size_t count, Spread spread) {
  const std::size_t wanted = count / std::max<std::size_t>(spread.items_per_thread, 1);
  if (wanted < 2 || spread.max_threads < 2) return 1;
  const std::size_t cores = std::max(std::thread::hardware_concurrency(), 1u);
  return std::min({cores, wanted, spread.max_threads});
}

void for_each_block(
    std::size_t count, Spread spread,
    const std::function<void(std::size_t thread, std::size_t begin, std::size_t end)>& work) {
  const std::size_t threads = threads_for(count, spread);
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> failures(threads);
  const auto drain = [&](std::size_t thread) {
    // The threads started here advise their arenas; the calling thread's is its caller's (the
    // boot check's file reader advises before it lists the folder).
    if (thread > 0) prefer_huge_pages_in_this_thread();
    try {
      for (std::size_t begin; (begin = next.fetch_add(kIndexBlock)) < count;) {
        work(thread, begin, std::min(count, begin + kIndexBlock));
      }
    } catch (...) {
      failures[thread] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> helpers;
    helpers.reserve(threads);
    for (std::size_t thread = 1; thread < threads; ++thread) {
      try {
        helpers.emplace_back(drain, thread);
      } catch (const std::system_error&) {
        break;  // no thread to be had: the started ones take its share
      }
    }
    drain(0);
  }
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace migronaut

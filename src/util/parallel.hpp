// Work over many independent items, side by side on the machine's cores.
#pragma once

#include <cstddef>
#include <functional>

namespace migronaut {

// How far a piece of work may spread: a thread for every `items_per_thread` items, at most
// one per core and at most `max_threads`.
struct Spread {
  std::size_t items_per_thread = 1;
  std::size_t max_threads = 1;
};

// How many indexes a thread of for_each_block() takes at once: enough that the shared counter
// is seldom touched, few enough that the threads finish close together.
inline constexpr std::size_t kIndexBlock = 32;

// How many threads `count` items get under `spread`; a small count gets one, without asking
// how many cores there are.
std::size_t threads_for(std::size_t count, Spread spread);

// Calls `work(thread, begin, end)` for blocks of indexes [begin, end), of kIndexBlock but the
// last, that together cover every index below `count` once, on threads_for(count, spread)
// threads, the calling one among them. `thread` numbers the thread making the call (the calling
// one is 0), so that work can keep state of its own for each. A thread takes the next block
// when it is done with one, so a thread slowed by a neighbour holds up none of the others. What
// `work` throws is rethrown once every thread has stopped; where one thread cannot be started
// the others take its share.
void for_each_block(
    std::size_t count, Spread spread,
    const std::function<void(std::size_t thread, std::size_t begin, std::size_t end)>& work);

}  // namespace migronaut

#include "ctwin/network/drain_queue.hpp"

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ctwin/core/error.hpp"

namespace ctwin::network {
namespace {

TEST(DrainQueue, BreaksTiesOnTheLowerFlowId) {
  DrainQueue queue;
  queue.set(7, SimTime::from_ps(100));
  queue.set(3, SimTime::from_ps(100));
  queue.set(5, SimTime::from_ps(200));
  EXPECT_EQ(queue.top(), 3u);
  queue.pop();
  EXPECT_EQ(queue.top(), 7u);
  queue.set(7, SimTime::from_ps(300));  // moved later: 5 comes first now
  EXPECT_EQ(queue.top(), 5u);
  EXPECT_EQ(queue.top_time(), SimTime::from_ps(200));
  queue.set(9, SimTime::from_ps(100));  // at the last pop's time: still allowed, and first
  EXPECT_EQ(queue.top(), 9u);
  queue.erase(9);
  queue.erase(9);  // gone already: nothing happens
  EXPECT_EQ(queue.top(), 5u);
}

TEST(DrainQueue, RefusesANegativeTime) {
  DrainQueue queue;
  EXPECT_THROW(queue.set(2, SimTime::from_ps(-1)), InternalError);
}

TEST(DrainQueue, HoldsTheLatestTimes) {
  DrainQueue queue;
  const std::int64_t last = std::numeric_limits<std::int64_t>::max();
  queue.set(4, SimTime::from_ps(last));
  queue.set(2, SimTime::from_ps(last));
  queue.set(3, SimTime::from_ps(last - 1));
  for (const std::uint32_t flow : {3U, 2U, 4U}) {
    ASSERT_FALSE(queue.empty());
    EXPECT_EQ(queue.top(), flow);
    queue.pop();
  }
  EXPECT_TRUE(queue.empty());
}

// Random moves, inserts, removals and pops against an ordered set of (time, flow). Times are
// drawn ahead of the last pop (as a simulation sets them) over ranges from a few picoseconds
// to a second, so the heap refills often and with stretches of every length, ties pile up,
// and now and then a time before the last pop comes in too.
TEST(DrainQueue, MatchesAnOrderedSetUnderRandomChanges) {
  std::mt19937_64 random(2024);
  for (const std::int64_t spread : {std::int64_t{4}, std::int64_t{1000}, std::int64_t{1'000'000'000'000}}) {
    DrainQueue queue;
    std::set<std::pair<std::int64_t, std::uint32_t>> reference;
    std::vector<std::int64_t> time_of(300, -1);
    std::int64_t floor = 0;
    for (int step = 0; step < 30000; ++step) {
      const auto flow = static_cast<std::uint32_t>(random() % time_of.size());
      const auto action = random() % 8;
      if (action == 0) {
        queue.erase(flow);
        if (time_of[flow] >= 0) reference.erase({time_of[flow], flow});
        time_of[flow] = -1;
      } else if (action <= 2 && !reference.empty()) {
        const auto [at, first] = *reference.begin();
        ASSERT_EQ(queue.top(), first) << "step " << step;
        queue.pop();
        reference.erase(reference.begin());
        time_of[first] = -1;
        floor = at;
      } else {
        const std::int64_t ahead = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(spread));
        const std::int64_t at = random() % 16 == 0 ? std::max<std::int64_t>(0, floor - ahead) : floor + ahead;
        queue.set(flow, SimTime::from_ps(at));
        if (time_of[flow] >= 0) reference.erase({time_of[flow], flow});
        reference.insert({at, flow});
        time_of[flow] = at;
      }
      ASSERT_EQ(queue.empty(), reference.empty());
      if (!reference.empty()) {
        ASSERT_EQ(queue.top(), reference.begin()->second) << "step " << step;
        ASSERT_EQ(queue.top_time(), SimTime::from_ps(reference.begin()->first));
      }
    }
  }
}

}  // namespace
}  // namespace ctwin::network

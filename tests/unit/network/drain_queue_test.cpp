#include "ctwin/network/drain_queue.hpp"

#include <random>
#include <set>
#include <utility>

#include <gtest/gtest.h>

namespace ctwin::network {
namespace {

TEST(DrainQueue, BreaksTiesOnTheLowerFlowId) {
  DrainQueue queue;
  queue.set(7, SimTime::from_ps(100));
  queue.set(3, SimTime::from_ps(100));
  queue.set(5, SimTime::from_ps(200));
  EXPECT_EQ(queue.top(), 3u);
  queue.erase(3);
  EXPECT_EQ(queue.top(), 7u);
  queue.set(7, SimTime::from_ps(300));  // moved later: 5 comes first now
  EXPECT_EQ(queue.top(), 5u);
  EXPECT_EQ(queue.top_time(), SimTime::from_ps(200));
}

// Random moves, inserts and removals against an ordered set of (time, flow).
TEST(DrainQueue, MatchesAnOrderedSetUnderRandomChanges) {
  std::mt19937 random(2024);
  DrainQueue queue;
  std::set<std::pair<std::int64_t, std::uint32_t>> reference;
  std::vector<std::int64_t> time_of(200, -1);
  for (int step = 0; step < 20000; ++step) {
    const auto flow = static_cast<std::uint32_t>(random() % time_of.size());
    if (random() % 4 == 0) {
      queue.erase(flow);
      if (time_of[flow] >= 0) reference.erase({time_of[flow], flow});
      time_of[flow] = -1;
    } else {
      const auto at = static_cast<std::int64_t>(random() % 1000);
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

}  // namespace
}  // namespace ctwin::network

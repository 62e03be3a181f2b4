// The discrete-event kernel (engine/simulator.hpp): order = (time, insertion sequence), cancel,
// run_until, no hidden global state.

#include "ctwin/engine/simulator.hpp"

#include "ctwin/core/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace ctwin::engine {
namespace {

using namespace ctwin::literals;

TEST(Simulator, EqualTimesRunInInsertionOrder) {
  Simulator sim;
  std::vector<int> order;
  for (int i = 0; i < 10; ++i) sim.schedule_at(5_ns, [&order, i] { order.push_back(i); });
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(sim.now(), 5_ns);
}

TEST(Simulator, EarlierTimeRunsFirstRegardlessOfInsertion) {
  Simulator sim;
  std::vector<int> order;
  std::vector<SimTime> seen;
  sim.schedule_at(30_ns, [&] { order.push_back(30); seen.push_back(sim.now()); });
  sim.schedule_at(10_ns, [&] { order.push_back(10); seen.push_back(sim.now()); });
  sim.schedule_at(20_ns, [&] { order.push_back(20); seen.push_back(sim.now()); });
  sim.schedule_at(1_ps, [&] { order.push_back(0); seen.push_back(sim.now()); });
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{0, 10, 20, 30}));
  EXPECT_EQ(seen, (std::vector<SimTime>{1_ps, 10_ns, 20_ns, 30_ns}));
}

TEST(Simulator, EventScheduledNowRunsAfterThoseAlreadyQueuedAtNow) {
  Simulator sim;
  std::vector<char> order;
  sim.schedule_at(5_ns, [&] {
    order.push_back('a');
    sim.schedule_in(SimTime(), [&] { order.push_back('c'); });
  });
  sim.schedule_at(5_ns, [&] { order.push_back('b'); });
  sim.run();
  EXPECT_EQ(order, (std::vector<char>{'a', 'b', 'c'}));
}

TEST(Simulator, ScheduleInIsRelativeToNow) {
  Simulator sim;
  SimTime fired;
  sim.schedule_at(10_ns, [&] { sim.schedule_in(5_ns, [&] { fired = sim.now(); }); });
  sim.run();
  EXPECT_EQ(fired, 15_ns);
}

TEST(Simulator, CancelPreventsRunningAndIsIdempotent) {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(1_ns, [&] { order.push_back(1); });
  const EventId id = sim.schedule_at(2_ns, [&] { order.push_back(2); });
  sim.schedule_at(3_ns, [&] { order.push_back(3); });
  EXPECT_EQ(sim.pending_events(), 3U);
  EXPECT_TRUE(sim.cancel(id));
  EXPECT_FALSE(sim.cancel(id));
  EXPECT_EQ(sim.pending_events(), 2U);
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{1, 3}));
  EXPECT_EQ(sim.events_processed(), 2U);
  EXPECT_FALSE(sim.cancel(id));
}

TEST(Simulator, CancelAfterRunningReturnsFalse) {
  Simulator sim;
  int runs = 0;
  const EventId id = sim.schedule_at(1_ns, [&] { ++runs; });
  sim.run();
  EXPECT_FALSE(sim.cancel(id));
  EXPECT_EQ(runs, 1);
}

TEST(Simulator, StaleIdDoesNotCancelTheEventThatReusedItsSlot) {
  Simulator sim;
  int later_runs = 0;
  const EventId first = sim.schedule_at(1_ns, [] {});
  sim.run();  // frees the first event's slot
  sim.schedule_at(2_ns, [&] { ++later_runs; });
  EXPECT_FALSE(sim.cancel(first));
  sim.run();
  EXPECT_EQ(later_runs, 1);
}

TEST(Simulator, CancelledEarliestEventIsSkipped) {
  Simulator sim;
  const EventId early = sim.schedule_at(1_ns, [] {});
  sim.schedule_at(7_ns, [] {});
  ASSERT_TRUE(sim.cancel(early));
  EXPECT_EQ(sim.next_event_time(), std::optional<SimTime>(7_ns));
  EXPECT_TRUE(sim.step());
  EXPECT_EQ(sim.now(), 7_ns);
  EXPECT_FALSE(sim.step());
  EXPECT_EQ(sim.next_event_time(), std::nullopt);
}

TEST(Simulator, EventCanCancelALaterOne) {
  Simulator sim;
  bool ran = false;
  EventId victim;
  sim.schedule_at(1_ns, [&] { EXPECT_TRUE(sim.cancel(victim)); });
  victim = sim.schedule_at(2_ns, [&] { ran = true; });
  sim.run();
  EXPECT_FALSE(ran);
  EXPECT_EQ(sim.events_processed(), 1U);
}

TEST(Simulator, RunUntilRunsEventsUpToAndIncludingTheLimit) {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(5_ns, [&] { order.push_back(5); });
  sim.schedule_at(10_ns, [&] { order.push_back(10); });
  sim.schedule_at(15_ns, [&] { order.push_back(15); });
  sim.run_until(10_ns);
  EXPECT_EQ(order, (std::vector<int>{5, 10}));
  EXPECT_EQ(sim.now(), 10_ns);
  EXPECT_EQ(sim.pending_events(), 1U);
  EXPECT_EQ(sim.next_event_time(), std::optional<SimTime>(15_ns));
  sim.run_until(12_ns);  // nothing due: the clock still advances
  EXPECT_EQ(sim.now(), 12_ns);
  EXPECT_EQ(order.size(), 2U);
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{5, 10, 15}));
  EXPECT_EQ(sim.now(), 15_ns);
}

TEST(Simulator, RunUntilRunsEventsScheduledDuringItWithinTheLimit) {
  Simulator sim;
  std::vector<SimTime> fired;
  sim.schedule_at(1_ns, [&] {
    fired.push_back(sim.now());
    sim.schedule_in(2_ns, [&] { fired.push_back(sim.now()); });   // 3 ns: inside
    sim.schedule_in(20_ns, [&] { fired.push_back(sim.now()); });  // 21 ns: outside
  });
  sim.run_until(10_ns);
  EXPECT_EQ(fired, (std::vector<SimTime>{1_ns, 3_ns}));
  EXPECT_EQ(sim.pending_events(), 1U);
}

TEST(Simulator, SchedulingInThePastThrowsInternalError) {
  Simulator sim;
  sim.run_until(10_ns);
  EXPECT_THROW(sim.schedule_at(5_ns, [] {}), InternalError);
  EXPECT_THROW(sim.schedule_in(SimTime::from_ps(-1), [] {}), InternalError);
  EXPECT_THROW(sim.run_until(9_ns), InternalError);
  EXPECT_THROW(sim.schedule_at(10_ns, Simulator::Action{}), InternalError);  // no action
  EXPECT_NO_THROW(sim.schedule_at(10_ns, [] {}));
  EXPECT_EQ(sim.pending_events(), 1U);
}

TEST(Simulator, EventsProcessedCountsOnlyExecutedEvents) {
  Simulator sim;
  EXPECT_EQ(sim.events_processed(), 0U);
  EXPECT_FALSE(sim.step());
  std::vector<EventId> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(sim.schedule_at(SimTime::from_ps(i), [] {}));
  for (int i = 0; i < 100; i += 4) ASSERT_TRUE(sim.cancel(ids[static_cast<std::size_t>(i)]));
  sim.run();
  EXPECT_EQ(sim.events_processed(), 75U);
  EXPECT_EQ(sim.pending_events(), 0U);
}

TEST(Simulator, TwoSimulatorsAreIndependent) {
  Simulator a;
  Simulator b;
  int a_runs = 0;
  int b_runs = 0;
  a.schedule_at(5_ns, [&] { ++a_runs; });
  b.schedule_at(50_ns, [&] { ++b_runs; });
  b.schedule_at(60_ns, [&] { ++b_runs; });
  a.run();
  EXPECT_EQ(a_runs, 1);
  EXPECT_EQ(b_runs, 0);
  EXPECT_EQ(a.now(), 5_ns);
  EXPECT_EQ(b.now(), SimTime());
  EXPECT_EQ(b.pending_events(), 2U);
  b.run();
  EXPECT_EQ(b_runs, 2);
  EXPECT_EQ(b.events_processed(), 2U);
  EXPECT_EQ(a.events_processed(), 1U);
  // No state is shared through statics: a third simulator starts empty.
  Simulator c;
  EXPECT_EQ(c.pending_events(), 0U);
  EXPECT_EQ(c.now(), SimTime());
}

// Schedules a seeded random mix of times (many ties), cancellations and events that schedule
// more events; returns the ids in execution order.
std::vector<int> run_random_schedule(std::uint32_t seed) {
  Simulator sim;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> time(0, 50);
  std::vector<int> order;
  std::vector<EventId> ids;
  int next_id = 0;
  for (int i = 0; i < 500; ++i) {
    const int id = next_id++;
    const int delay = time(rng);
    const bool spawns = i % 7 == 0;
    ids.push_back(sim.schedule_at(SimTime::from_ps(time(rng)), [&, id, delay, spawns] {
      order.push_back(id);
      if (spawns) sim.schedule_in(SimTime::from_ps(delay), [&order, id] { order.push_back(10000 + id); });
    }));
  }
  for (std::size_t i = 3; i < ids.size(); i += 11) sim.cancel(ids[i]);
  sim.run();
  return order;
}

TEST(Simulator, SameScheduleGivesIdenticalOrder) {
  const auto first = run_random_schedule(42);
  const auto second = run_random_schedule(42);
  EXPECT_EQ(first.size(), 500U - 46U + 72U - 7U);  // 46 cancelled; 72 spawners, 7 of them cancelled
  EXPECT_EQ(first, second);
}

// Zero-delay events take a queue of their own (simulator.hpp); with events at the same time
// still in the heap, spawned ones, timed ones and cancellations mixed in, every run must stay
// in (time, scheduling order), and no cancelled event may run.
TEST(Simulator, ZeroDelayEventsKeepTimeAndSchedulingOrder) {
  Simulator sim;
  std::mt19937 rng(99);
  std::vector<std::pair<std::int64_t, int>> ran;  // (time, scheduling order)
  std::vector<int> cancelled;
  int scheduled = 0;
  std::function<void(SimTime)> add = [&](SimTime delay) {
    const int label = scheduled++;
    const EventId id = sim.schedule_in(delay, [&, label] {
      ran.emplace_back(sim.now().ps(), label);
      if (scheduled < 3000) {
        for (int spawn = static_cast<int>(rng() % 3); spawn > 0; --spawn) {
          add(SimTime::from_ps(rng() % 2 == 0 ? 0 : rng() % 5));
        }
      }
    });
    if (rng() % 10 == 0) {
      sim.cancel(id);
      cancelled.push_back(label);
    }
  };
  for (int i = 0; i < 200; ++i) add(SimTime::from_ps(rng() % 20));
  sim.run();
  EXPECT_TRUE(std::is_sorted(ran.begin(), ran.end()));
  EXPECT_EQ(ran.size() + cancelled.size(), static_cast<std::size_t>(scheduled));
  for (int label : cancelled) {
    EXPECT_TRUE(std::none_of(ran.begin(), ran.end(), [label](const auto& run) { return run.second == label; }));
  }
}

TEST(Simulator, OrderMatchesStableSortByTime) {
  // Oracle: a stable sort of (time, insertion index) is the specified order.
  Simulator sim;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> time(0, 20);
  std::vector<std::pair<int, int>> expected;  // (time, id)
  std::vector<int> order;
  for (int id = 0; id < 1000; ++id) {
    const int t = time(rng);
    expected.emplace_back(t, id);
    sim.schedule_at(SimTime::from_ps(t), [&order, id] { order.push_back(id); });
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  sim.run();
  ASSERT_EQ(order.size(), expected.size());
  for (std::size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], expected[i].second) << "position " << i;
}

}  // namespace
}  // namespace ctwin::engine

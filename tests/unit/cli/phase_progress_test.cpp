#include "ctwin/cli/phase_progress.hpp"
#include "ctwin/cli/progress_line.hpp"

#include <gtest/gtest.h>

namespace ctwin::cli {
namespace {

using namespace std::chrono_literals;

// Issue 35: a plan with --flow-top 0 left the analytical line open (the results' title was glued
// to it), counted 3,367 candidates when 16 were replayed, and opened at a rate of a billion a
// second (its phase timed from its own first candidate).
TEST(PhaseProgress, QuietForASecondThenTimedFromTheStart) {
  const auto start = PhaseProgress::Clock::time_point{};
  PhaseProgress line(start);
  EXPECT_FALSE(line.update("analytical", 1, 100, start + 500ms));
  const auto text = line.update("analytical", 2, 100, start + 2s);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "\r\033[K[analytical 2/100] 1.0 candidates/s, 98 s left");
  EXPECT_EQ(line.finish(), "\n");  // open: the plan's end closes it
  EXPECT_EQ(line.finish(), "");
}

TEST(PhaseProgress, AnUnknownTotalShowsWhatIsReplayed) {
  const auto start = PhaseProgress::Clock::time_point{};
  PhaseProgress line(start);
  const auto text = line.update("analytical", 16, 0, start + 4s);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "\r\033[K[analytical 16 replayed] 4.0 candidates/s (the bound prunes the rest)");
  EXPECT_EQ(line.finish(), "\n");
}

// The next phase closes the previous line and is timed from where that phase's work ended.
TEST(PhaseProgress, ANewPhaseClosesTheLastLine) {
  const auto start = PhaseProgress::Clock::time_point{};
  PhaseProgress line(start);
  (void)line.update("analytical", 16, 0, start + 3s);
  const auto text = line.update("flow", 1, 4, start + 5s);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "\n\r\033[K[flow 1/4] 0.5 candidates/s, 6 s left");
  const auto last = line.update("flow", 4, 4, start + 9s);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->back(), '\n');  // a finished phase ends its own line
  EXPECT_EQ(line.finish(), "");
}

// Issue 35: `run` showed events and seconds but no time left. With the step's tasks counted,
// the time left is the elapsed time scaled by the share still to do.
TEST(ProgressText, AStepShowsTheShareOfItsTasksAndTheTimeLeft) {
  const ProgressReading reading{.elapsed_s = 6, .events = 12'300'000, .tasks_done = 40, .tasks_total = 100};
  EXPECT_EQ(progress_text("simulating one step of s.json", false, reading),
            "simulating one step of s.json: 12.3 M events (2.0 M events/s), 6 s, 40 % of the step's tasks, "
            "about 9 s left");
}

TEST(ProgressText, NoTimeLeftBeforeTheFirstTaskOrAfterTheLast) {
  ProgressReading reading{.elapsed_s = 2, .events = 1000, .tasks_done = 0, .tasks_total = 64};
  EXPECT_EQ(progress_text("x", false, reading), "x: 1.0 k events (500 events/s), 2 s, 0 % of the step's tasks");
  reading.tasks_done = 64;
  EXPECT_EQ(progress_text("x", false, reading), "x: 1.0 k events (500 events/s), 2 s, 100 % of the step's tasks");
}

TEST(ProgressText, ItemsGiveTheTimeLeftWhenNoStepIsReplayed) {
  const ProgressReading reading{.elapsed_s = 10, .events = 0, .done = 1, .total = 5};
  EXPECT_EQ(progress_text("sizes", true, reading), "sizes: 1/5, 0 events (0 events/s), 10 s, about 40 s left");
  // Without items (a traffic pattern), nothing says how much is left.
  EXPECT_EQ(progress_text("traffic", false, reading), "traffic: 0 events (0 events/s), 10 s");
}

}  // namespace
}  // namespace ctwin::cli

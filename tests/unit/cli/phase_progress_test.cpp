#include "ctwin/cli/phase_progress.hpp"

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

}  // namespace
}  // namespace ctwin::cli

#include "ctwin/studies/size_front.hpp"

#include <gtest/gtest.h>

namespace ctwin::api {
namespace {

std::vector<int> groups_of(const std::vector<FrontMark>& marks) {
  std::vector<int> out;
  for (const auto& mark : marks) out.push_back(mark.tie_group);
  return out;
}

std::vector<bool> front_of(const std::vector<FrontMark>& marks) {
  std::vector<bool> out;
  for (const auto& mark : marks) out.push_back(mark.pareto);
  return out;
}

// Issue 35: twelve options 2e-6 apart on a model blind to the fabric made the cheapest the only
// choice "on noise"; within the tolerance they are one group, and the front holds the cheapest
// of it, the others being the same throughput for more.
TEST(SizeFront, NoiseIsOneTieGroup) {
  const std::vector<FrontPoint> points{{true, true, 300, 1.000002}, {true, true, 100, 1.0}, {true, true, 200, 1.000001}};
  const auto marks = mark_front(points, 0.01);
  EXPECT_EQ(groups_of(marks), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(front_of(marks), (std::vector<bool>{false, true, false}));
  // Without a tolerance the 2e-6 gaps count, and every option is a trade of cost for throughput.
  const auto exact = mark_front(points, 0);
  EXPECT_EQ(groups_of(exact), (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(front_of(exact), (std::vector<bool>{true, true, true}));
}

// A gap beyond the tolerance is a real difference: the faster, dearer option stays on the front,
// and an option slower and dearer than another leaves it.
TEST(SizeFront, RealGapsKeepTheTrade) {
  const std::vector<FrontPoint> points{{true, true, 100, 0.95}, {true, true, 150, 1.0}, {true, true, 160, 0.951}, {true, true, 90, 0.90}};
  const auto marks = mark_front(points, 0.01);
  EXPECT_EQ(groups_of(marks), (std::vector<int>{1, 0, 1, 2}));
  EXPECT_EQ(front_of(marks), (std::vector<bool>{true, true, false, true}));
}

// Groups are measured from their fastest member: a drift of steps each inside the tolerance does
// not chain into one group.
TEST(SizeFront, DriftDoesNotChain) {
  std::vector<FrontPoint> points;
  for (int i = 0; i < 10; ++i) points.push_back({true, true, 100.0 - i, 1.0 - 0.004 * i});
  const auto marks = mark_front(points, 0.01);
  EXPECT_EQ(groups_of(marks), (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3}));
}

// Issue 35: ranked on the mean over ECMP hash seeds, an option 2 % slower whose best seed beats the
// faster one's worst is not told apart from it; one 5 % slower whose every seed is below the
// other's is, however wide its own spread, and its own worst seed ties it with a steady option
// 5 % below it.
TEST(SizeFront, OverlappingSeedRangesTie) {
  const std::vector<FrontPoint> points{{true, true, 100, 1.0, 0.985, 1.01}, {true, true, 90, 0.98, 0.975, 0.99},
                                       {true, true, 80, 0.95, 0.85, 0.984}, {true, true, 70, 0.9, 0.9, 0.9}};
  const auto marks = mark_front(points, 0.006);
  EXPECT_EQ(groups_of(marks), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(front_of(marks), (std::vector<bool>{false, true, false, true}));
  // Without the ranges the floor alone decides.
  std::vector<FrontPoint> means = points;
  for (FrontPoint& point : means) point.lowest = point.highest = 0;
  EXPECT_EQ(groups_of(mark_front(means, 0.006)), (std::vector<int>{0, 1, 2, 3}));
}

// An option that did not run joins no group; one without a price joins its group but not the
// front, and prices none of the others out of it.
TEST(SizeFront, UnrunAndUnpricedOptionsStandAside) {
  const std::vector<FrontPoint> points{{false, false, 0, 0}, {true, true, 100, 1.0}, {true, false, 0, 5.0},
                                       {true, false, 0, 1.001}};
  const auto marks = mark_front(points, 0.01);
  EXPECT_EQ(groups_of(marks), (std::vector<int>{-1, 1, 0, 1}));
  EXPECT_EQ(front_of(marks), (std::vector<bool>{false, true, false, false}));
}

}  // namespace
}  // namespace ctwin::api

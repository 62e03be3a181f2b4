#include "ctwin/core/error_stats.hpp"

#include <gtest/gtest.h>

namespace ctwin {
namespace {

TEST(ErrorStats, MedianMeanAndMaxOfAbsoluteErrors) {
  const ErrorStats odd = error_stats({0.1, -0.3, 0.05});
  EXPECT_EQ(odd.count, 3u);
  EXPECT_DOUBLE_EQ(odd.median_abs, 0.1);
  EXPECT_DOUBLE_EQ(odd.mean_abs, 0.15);
  EXPECT_DOUBLE_EQ(odd.max_abs, 0.3);
}

TEST(ErrorStats, EvenCountTakesTheMeanOfTheMiddleTwo) {
  const ErrorStats even = error_stats({-0.4, 0.1, 0.2, -0.05});
  EXPECT_DOUBLE_EQ(even.median_abs, 0.15);
  EXPECT_DOUBLE_EQ(even.max_abs, 0.4);
}

TEST(ErrorStats, NoErrorsIsAllZeroNotNaN) {
  const ErrorStats none = error_stats({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.median_abs, 0);
  EXPECT_EQ(none.mean_abs, 0);
  EXPECT_EQ(none.max_abs, 0);
}

// The sign of an error is which way the prediction missed; the summary is about how far.
TEST(ErrorStats, SignDoesNotMatter) {
  const ErrorStats plus = error_stats({0.2, 0.1, 0.3});
  const ErrorStats mixed = error_stats({-0.2, 0.1, -0.3});
  EXPECT_EQ(plus.median_abs, mixed.median_abs);
  EXPECT_EQ(plus.mean_abs, mixed.mean_abs);
  EXPECT_EQ(plus.max_abs, mixed.max_abs);
}

}  // namespace
}  // namespace ctwin

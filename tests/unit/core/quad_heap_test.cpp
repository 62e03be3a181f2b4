#include "ctwin/core/quad_heap.hpp"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

namespace ctwin {
namespace {

TEST(QuadHeap, PopsInOrderWhetherPushedOrMade) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> value(0, 50);  // many ties
  const auto less = [](int a, int b) { return a < b; };
  for (int size : {0, 1, 2, 5, 17, 1000}) {
    std::vector<int> values(static_cast<std::size_t>(size));
    for (int& v : values) v = value(random);
    std::vector<int> pushed;
    for (int v : values) quad_heap_push(pushed, v, less);
    std::vector<int> made = values;
    quad_heap_make(made, less);
    std::sort(values.begin(), values.end());
    for (int expected : values) {
      EXPECT_EQ(quad_heap_pop(pushed, less), expected);
      EXPECT_EQ(quad_heap_pop(made, less), expected);
    }
    EXPECT_TRUE(pushed.empty());
    EXPECT_TRUE(made.empty());
  }
}

}  // namespace
}  // namespace ctwin

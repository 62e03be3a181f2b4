#include "ctwin/network/detail/huge_page_allocator.hpp"

#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

namespace ctwin::network::detail {
namespace {

// Small and huge-page-sized arrays alike hold what is put in them, aligned for their type,
// across the reallocations of a growing vector.
TEST(HugePageAllocator, HoldsSmallAndLargeArrays) {
  struct alignas(64) Line {
    std::uint64_t value = 0;
  };
  std::vector<Line, HugePageAllocator<Line>> lines;
  for (std::uint64_t i = 0; i < 100'000; ++i) {  // 6.4 MB at the end, small at the start
    lines.push_back({i});
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(lines.data()) % alignof(Line), 0u);
  }
  std::uint64_t sum = 0;
  for (const Line& line : lines) sum += line.value;
  EXPECT_EQ(sum, std::uint64_t{100'000} * 99'999 / 2);
  std::vector<int, HugePageAllocator<int>> small(10);
  std::iota(small.begin(), small.end(), 1);
  EXPECT_EQ(std::accumulate(small.begin(), small.end(), 0), 55);
}

}  // namespace
}  // namespace ctwin::network::detail

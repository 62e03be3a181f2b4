#include "ctwin/cli/peak_rss.hpp"

#include <cstring>
#include <memory>

#include <gtest/gtest.h>

namespace ctwin::cli {
namespace {

TEST(PeakRss, RestartForgetsWhatAnEarlierCaseHeld) {
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  {
    const auto block = std::make_unique<char[]>(kBytes);
    std::memset(block.get(), 1, kBytes);  // resident, not only reserved
    EXPECT_GT(peak_rss_gib(), 0.25);
  }
  if (!restart_peak_rss()) GTEST_SKIP() << "this system refuses to restart the peak (/proc/self/clear_refs)";
  // The test binary itself holds far less than the block it freed.
  EXPECT_LT(peak_rss_gib(), 0.2);
}

}  // namespace
}  // namespace ctwin::cli

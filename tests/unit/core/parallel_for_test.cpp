// parallel_for: every index runs exactly once whatever the threads, and the failure a caller sees
// is the first in index order, not the first in time.

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "ctwin/core/parallel_for.hpp"

namespace ctwin {
namespace {

TEST(ParallelFor, EveryIndexRunsOnce) {
  for (unsigned threads : {0u, 1u, 3u, 64u}) {
    std::vector<std::atomic<int>> runs(100);
    parallel_for(runs.size(), threads, [&](std::size_t i) { ++runs[i]; });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1) << threads;
  }
  parallel_for(0, 4, [](std::size_t) { FAIL() << "no index to run"; });
}

TEST(ParallelFor, RethrowsTheFirstFailureInIndexOrderAfterAllJobs) {
  std::atomic<int> finished{0};
  try {
    parallel_for(50, 4, [&](std::size_t i) {
      ++finished;
      if (i == 7 || i == 31) throw std::runtime_error("job " + std::to_string(i));
    });
    ADD_FAILURE() << "no failure surfaced";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "job 7");
  }
  EXPECT_EQ(finished.load(), 50);
}

}  // namespace
}  // namespace ctwin

// parallel_for: every index runs exactly once whatever the threads, never more jobs at once than
// threads, the caller's interrupt reaches the workers, and the failure a caller sees is the first in
// index order, not the first in time.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ctwin/core/interrupt.hpp"
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

TEST(ParallelFor, NeverRunsMoreJobsAtOnceThanThreads) {
  for (unsigned threads : {1u, 2u, 3u}) {
    std::atomic<int> running{0}, most{0};
    parallel_for(60, threads, [&](std::size_t) {
      const int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      --running;
    });
    EXPECT_GE(most.load(), 1);
    EXPECT_LE(most.load(), static_cast<int>(threads));
  }
}

// Results written by index slot are the same whatever the threads (the planner's and the
// sweep's determinism rests on it).
TEST(ParallelFor, SlotResultsAreTheSameAtOneTwoAndThreeThreads) {
  const auto results = [](unsigned threads) {
    std::vector<double> out(257);
    parallel_for(out.size(), threads, [&](std::size_t i) {
      double x = 1.0 + static_cast<double>(i);
      for (int k = 0; k < 1000; ++k) x = x * 1.0000001 + 1.0 / (x + static_cast<double>(k));
      out[i] = x;
    });
    return out;
  };
  const auto one = results(1);
  EXPECT_EQ(one, results(2));
  EXPECT_EQ(one, results(3));
}

// The caller's interrupt flag reaches every worker: once it is set, jobs that check it stop.
TEST(ParallelFor, WorkersSeeTheCallersInterrupt) {
  for (unsigned threads : {1u, 3u}) {
    std::atomic<bool> flag{false};
    const InterruptScope scope(&flag);
    std::atomic<int> interrupted{0};
    try {
      parallel_for(40, threads, [&](std::size_t i) {
        if (i == 0) flag = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        try {
          interruption_point();
        } catch (const Interrupted&) {
          ++interrupted;
          throw;
        }
      });
      ADD_FAILURE() << "no interruption surfaced";
    } catch (const Interrupted&) {
    }
    EXPECT_GE(interrupted.load(), 30) << threads;  // all but those already past their check
  }
}

}  // namespace
}  // namespace ctwin

#pragma once
// Independent jobs on a few threads (oneTBB): each index runs once, on whichever thread takes it
// next, so results must be written to the index's own slot. The first failure in index order is
// rethrown after every job has finished, so which error a caller sees does not depend on
// scheduling.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include "ctwin/core/interrupt.hpp"
#include "ctwin/core/progress.hpp"

namespace ctwin {

template <typename Job>
void parallel_for(std::size_t count, unsigned threads, Job&& job) {
  std::vector<std::exception_ptr> failures(count);
  const std::atomic<bool>* interrupt = interrupt_flag();
  Progress* progress = installed_progress();
  const auto run = [&](std::size_t i) {
    try {
      job(i);
    } catch (...) {
      failures[i] = std::current_exception();
    }
  };
  // More threads than cores buy nothing (and TBB warns on stderr when asked for them).
  const auto wanted = std::min(static_cast<int>(std::min<std::size_t>(std::max(1u, threads), std::max<std::size_t>(count, 1))),
                               std::max(1, tbb::info::default_concurrency()));
  if (wanted == 1) {
    for (std::size_t i = 0; i < count; ++i) run(i);
  } else {
    // An arena of `wanted` slots caps the threads at what was asked, whatever TBB's default.
    tbb::task_arena arena(wanted);
    arena.execute([&] {
      // One index per task: jobs (candidates, grid points) differ in cost by orders of magnitude.
      tbb::parallel_for(
          tbb::blocked_range<std::size_t>(0, count, 1),
          [&](const tbb::blocked_range<std::size_t>& range) {
            const InterruptScope scope(interrupt);  // workers stop when their caller is interrupted
            const ProgressScope counted(progress);  // and count towards their caller's progress
            for (std::size_t i = range.begin(); i != range.end(); ++i) run(i);
          },
          tbb::simple_partitioner());
    });
  }
  for (const auto& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

/// One job per core, at least one.
[[nodiscard]] inline unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace ctwin

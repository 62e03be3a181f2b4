#pragma once
// Independent jobs on a few threads: each index runs once, on whichever thread takes it next, so
// results must be written to the index's own slot. The first failure in index order is rethrown
// after every job has finished, so which error a caller sees does not depend on scheduling.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

#include "ctwin/core/interrupt.hpp"
#include "ctwin/core/progress.hpp"

namespace ctwin {

template <typename Job>
void parallel_for(std::size_t count, unsigned threads, Job&& job) {
  std::vector<std::exception_ptr> failures(count);
  std::atomic<std::size_t> next{0};
  const std::atomic<bool>* interrupt = interrupt_flag();
  Progress* progress = installed_progress();
  const auto work = [&] {
    const InterruptScope scope(interrupt);  // helpers stop when their caller is interrupted
    const ProgressScope counted(progress);  // and count towards their caller's progress
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        job(i);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  const auto wanted = static_cast<std::size_t>(std::max(1u, threads));
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < std::min(wanted, count); ++t) helpers.emplace_back(work);
  work();
  for (auto& helper : helpers) helper.join();
  for (const auto& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

/// One job per core, at least one.
[[nodiscard]] inline unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace ctwin

#pragma once
// The planner's progress as `--progress` shows it: phases ("bound", "analytical", "flow") run one
// after another, each over many candidates in parallel. `plan` and `plan --rank` report through one
// counter, so that they count alike.

#include <cstddef>
#include <functional>
#include <mutex>

namespace ctwin::api {

class PlanProgress {
 public:
  /// `sink`: PlanOptions::progress or RankOptions::progress (phase, done, total); may be empty.
  explicit PlanProgress(const std::function<void(const char*, std::size_t, std::size_t)>& sink) : sink_(sink) {}

  /// One more candidate of `phase` (of `total`) done. Thread-safe; the sink is called one call at a
  /// time, and the count starts again at 1 when the phase changes.
  void operator()(const char* phase, std::size_t total) const {
    if (!sink_) return;
    const std::lock_guard lock(mutex_);
    if (phase != counting_) {
      counting_ = phase;
      done_ = 0;
    }
    sink_(phase, ++done_, total);
  }

 private:
  const std::function<void(const char*, std::size_t, std::size_t)>& sink_;
  mutable std::mutex mutex_;
  mutable std::size_t done_ = 0;
  mutable const char* counting_ = nullptr;  ///< the phase done_ counts (phases are string literals)
};

}  // namespace ctwin::api

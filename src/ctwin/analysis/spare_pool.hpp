#pragma once
// Spare nodes kept beside a job. Hot spares are booted, health-checked and in the scheduler's
// pool: a switchover takes about 30 s (the 2K+X practice of the seeds: X spare nodes, typically
// 5-10 % of the K working ones). Cold spares are powered off or unprovisioned and take a swap
// time (boot, burn-in, image). A repaired node returns to the hot pool. When both pools are
// empty the job either waits for the first repair or, if allowed, continues with fewer
// data-parallel replicas (the healthy nodes of a dropped replica join the pool, and the job
// grows back at a later restart once the pool holds a whole replica).

#include <string>

namespace ctwin::analysis {

enum class OnEmptyPool { kWait, kShrink };

struct SparePolicy {
  long long hot = 0;
  long long cold = 0;
  double hot_swap_s = 30;
  double cold_swap_s = 2 * 3600.0;
  OnEmptyPool on_empty = OnEmptyPool::kWait;
};

/// A spare count given as "16" (nodes), "5%" (of the job's nodes, rounded up) or "2/su" (per
/// scalable unit the job spans). InputError naming `flag` when the text is malformed or the pool
/// is larger than the job's build it protects.
[[nodiscard]] long long parse_spare_count(const std::string& text, const std::string& flag, long long job_nodes,
                                          long long scalable_units);

[[nodiscard]] const char* to_string(OnEmptyPool mode);

}  // namespace ctwin::analysis

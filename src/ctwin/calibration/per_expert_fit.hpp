#pragma once
// Does a grouped expert GEMM carry a cost per expert beyond the rows model? Fits the rows model's r0
// together with a fixed time per local expert and expert GEMM (a stack's per_expert_overhead,
// replay/stack_profile.hpp) on a kernel profile's expert blocks, and judges both on rows the fit did
// not see:
//   grouped block = rows model (dense × (1 + r0 / R), calibration/kernel_profile.hpp) + 6 · L · c
// (six GEMMs per block: fc1 and fc2 forward, their data and weight gradients; L local experts).
// The profile times torch._grouped_mm, one grouped kernel; Transformer Engine's grouped linear, which
// the Megatron stacks run, issues one cuBLAS GEMM per expert instead, which no profile here measures.
// So this says whether the cost is in a grouped kernel's schedule, not what TE's loop costs.

#include <vector>

#include "ctwin/calibration/kernel_profile.hpp"
#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::calibration {

struct PerExpertFit {
  double half_speed_rows = 0;   ///< r0, rows
  double per_expert_us = 0;     ///< c, µs per local expert and expert GEMM
  double fit_squared_log = 0;   ///< Σ log(predicted / measured)² over the fit rows
};

/// The block's grouped time with r0 and c.
[[nodiscard]] double predict_grouped_with_per_expert(const compute::GpuSpec& gpu, const ExpertBlockRow& row,
                                                     double half_speed_rows, double per_expert_us);

/// Least squares on the log of the grouped time over `rows`, r0 in [0, 4000] rows and c in [0, 100] µs
/// (0.5 rows and 0.05 µs resolution); with `per_expert` false, c stays 0 (the rows model alone).
/// InputError without rows.
[[nodiscard]] PerExpertFit fit_rows_and_per_expert(const compute::GpuSpec& gpu, const std::vector<ExpertBlockRow>& rows,
                                                   bool per_expert = true);

}  // namespace ctwin::calibration

#pragma once
// Fitting a GEMM efficiency table to a measured sweep, and measuring a model's error on one.
//
// Per dtype, the grid axes are the distinct M, N and K of the sweep. A grid point that was
// measured gets its efficiency (ideal roofline time / measured time; the geometric mean when a
// shape was measured more than once). Points that were not are filled from their measured
// neighbours: each round gives every unfilled point the mean log efficiency of its filled
// neighbours along the three axes, until none is left. Sweeps are grids with holes (held-out
// shapes, shapes the collector skipped), so the fill is what predicts the held-out shapes.

#include <cstddef>
#include <map>

#include "ctwin/calibration/gemm_csv.hpp"
#include "ctwin/core/error_stats.hpp"
#include "ctwin/compute/gemm_table.hpp"
#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::calibration {

/// Every row must carry a measurement, and `gpu` must have a rate for each dtype in the sweep
/// (InputError naming the file and line otherwise).
[[nodiscard]] compute::GemmEfficiencyTable fit_gemm_table(const compute::GpuSpec& gpu, const GemmSweep& sweep);

/// M·N·K at and above which a GEMM counts as large (2^30): the acceptance threshold.
inline constexpr double kLargeGemmVolume = 1073741824.0;

struct GemmErrorReport {
  ErrorStats overall;
  std::map<compute::Dtype, ErrorStats> per_dtype;
  std::map<compute::Dtype, ErrorStats> large_per_dtype;  ///< shapes with M·N·K ≥ 2^30
};

/// The error of ctwin's GEMM estimate (compute::estimate_gemm) against each measured row.
[[nodiscard]] GemmErrorReport gemm_errors(const compute::GpuSpec& gpu, const GemmSweep& sweep);

}  // namespace ctwin::calibration

#pragma once
// GEMM kernel time: a calibrated efficiency table for the dtypes it has (clamped to its edges
// beyond the measured sizes; fp16 and bf16 share a table when their peaks agree), the roofline
// with default efficiencies for the others.
//
// Calibrated:   time = ideal_roofline_time / table_efficiency(M, N, K, dtype)
// Uncalibrated: time = launch + max(compute / gemm_efficiency, memory / hbm_efficiency)
// The table is relative to the ideal roofline (not to raw peak) so that what it interpolates is
// smooth: the tile and wave steps stay in the roofline and the table carries what the roofline
// does not know (kernel choice, pipeline fill, clocks under load).

#include <string>

#include "ctwin/compute/gemm_roofline.hpp"
#include "ctwin/compute/gemm_shape.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::compute {

/// kTableEdge: the shape lies beyond the table's measured sizes, so the edge's efficiency is used.
enum class GemmSource { kTable, kTableEdge, kRoofline };

struct GemmEstimate {
  SimTime time;
  FlopCount flops;
  GemmSource source = GemmSource::kRoofline;
  GemmRoofline roofline;  ///< the ideal roofline the estimate started from

  /// Achieved rate: flops over time.
  [[nodiscard]] FlopRate rate() const { return FlopRate::per_second(flops.count() / time.seconds()); }
};

/// Throws InputError for non-positive sizes or a dtype the GPU lacks.
[[nodiscard]] GemmEstimate estimate_gemm(const GpuSpec& gpu, const GemmShape& shape);

[[nodiscard]] std::string gemm_source_name(GemmSource source);

}  // namespace ctwin::compute

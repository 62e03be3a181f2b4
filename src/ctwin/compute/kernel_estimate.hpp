#pragma once
// The result every non-GEMM kernel model returns, and the one roofline they share.

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::compute {

struct KernelEstimate {
  SimTime time;
  FlopCount flops;
  Bytes bytes;  ///< HBM traffic
  bool memory_bound = false;
};

/// launches · launch_overhead + max(flops / (rate · compute_efficiency), bytes / (HBM · hbm_efficiency)).
[[nodiscard]] KernelEstimate roofline_kernel(const GpuSpec& gpu, FlopCount flops, FlopRate rate,
                                             double compute_efficiency, Bytes bytes, int launches = 1);
/// fixed + max(flops / (rate · compute_efficiency), bytes / (HBM · hbm_efficiency)): the same roofline
/// with its efficiencies and fixed cost given (a kernel class measured on the GPU, GpuSpec::non_gemm).
[[nodiscard]] KernelEstimate roofline_kernel(const GpuSpec& gpu, FlopCount flops, FlopRate rate,
                                             double compute_efficiency, Bytes bytes, double hbm_efficiency,
                                             SimTime fixed);

}  // namespace ctwin::compute

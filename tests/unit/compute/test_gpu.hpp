#pragma once
// A made-up GPU with round numbers, so that oracle tests can compute expected times by hand.

#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::compute::testing {

inline GpuSpec round_gpu() {
  GpuSpec gpu;
  gpu.name = "round";
  gpu.peak_dense[Dtype::kBf16] = FlopRate::per_second(1e15);
  gpu.peak_dense[Dtype::kFp8] = FlopRate::per_second(2e15);
  gpu.hbm_capacity = Bytes(80'000'000'000);
  gpu.hbm_bandwidth = Bandwidth::bytes_per_second(1e12);
  gpu.l2_size = Bytes(50'000'000);
  gpu.sm_count = 100;
  gpu.boost_clock_mhz = 1000;
  gpu.launch_overhead = SimTime::from_ps(2'000'000);  // 2 us
  gpu.gemm_tiles = {{128, 128}};
  gpu.efficiency = {0.8, 0.5, 0.6, 0.4};
  return gpu;
}

}  // namespace ctwin::compute::testing

#include "ctwin/compute/kernel_estimate.hpp"

#include <algorithm>

namespace ctwin::compute {

KernelEstimate roofline_kernel(const GpuSpec& gpu, FlopCount flops, FlopRate rate, double compute_efficiency,
                               Bytes bytes, int launches) {
  const double compute_s = flops.count() > 0 ? flops.count() / (rate.per_second() * compute_efficiency) : 0.0;
  const double memory_s =
      static_cast<double>(bytes.count()) / (gpu.hbm_bandwidth.bytes_per_second() * gpu.efficiency.hbm);
  KernelEstimate out;
  out.flops = flops;
  out.bytes = bytes;
  out.memory_bound = memory_s >= compute_s;
  out.time = gpu.launch_overhead * launches + SimTime::from_seconds(std::max(compute_s, memory_s));
  return out;
}

}  // namespace ctwin::compute

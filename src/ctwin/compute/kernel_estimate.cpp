#include "ctwin/compute/kernel_estimate.hpp"

#include <algorithm>

namespace ctwin::compute {

KernelEstimate roofline_kernel(const GpuSpec& gpu, FlopCount flops, FlopRate rate, double compute_efficiency,
                               Bytes bytes, int launches) {
  return roofline_kernel(gpu, flops, rate, compute_efficiency, bytes, gpu.efficiency.hbm, gpu.launch_overhead * launches);
}

KernelEstimate roofline_kernel(const GpuSpec& gpu, FlopCount flops, FlopRate rate, double compute_efficiency,
                               Bytes bytes, double hbm_efficiency, SimTime fixed) {
  const double compute_s = flops.count() > 0 ? flops.count() / (rate.per_second() * compute_efficiency) : 0.0;
  const double memory_s = static_cast<double>(bytes.count()) / (gpu.hbm_bandwidth.bytes_per_second() * hbm_efficiency);
  KernelEstimate out;
  out.flops = flops;
  out.bytes = bytes;
  out.memory_bound = memory_s >= compute_s;
  out.time = fixed + SimTime::from_seconds(std::max(compute_s, memory_s));
  return out;
}

}  // namespace ctwin::compute

#include "ctwin/compute/moe_kernels.hpp"

#include <string>

#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::compute {
namespace {

// Bytes per routed element in units of e, and launches, per pass (see the header). The unfused path's
// 24e is the H200 profile's measured total; its split over the passes follows the forward and
// backward kernels' counts (forward 10e in 6 launches, backward 14e in 8).
struct PassCost {
  double elements = 0;
  int launches = 1;
};

PassCost pass_cost(const PermuteShape& s) {
  const double inv_k = 1.0 / static_cast<double>(s.top_k);
  if (s.path == PermutePath::kUnfused) {
    switch (s.pass) {
      case PermutePass::kPermute: return {4, 2};             // argsort's index and the gather
      case PermutePass::kUnpermute: return {6, 4};           // zeros, product, index_add
      case PermutePass::kUnpermuteBackward: return {10, 5};  // gather, two products, reduction
      case PermutePass::kPermuteBackward: return {4, 3};     // zeros, index_add
    }
  }
  switch (s.pass) {
    case PermutePass::kPermute: return {2, 1};
    case PermutePass::kUnpermute: return {1 + inv_k, 1};
    case PermutePass::kUnpermuteBackward: return {2 + inv_k, 1};
    case PermutePass::kPermuteBackward: return {1 + inv_k, 1};
  }
  return {};
}

}  // namespace

SimTime estimate_grouped_gemm_rows(const GpuSpec& gpu, const GroupedGemmShape& shape, double half_speed_rows) {
  if (shape.n <= 0 || shape.k <= 0) throw InputError("grouped_gemm", "", "N and K must be positive");
  std::int64_t rows = 0, active = 0;
  for (const std::int64_t tokens : shape.tokens_per_expert) {
    if (tokens < 0) throw InputError("grouped_gemm", "tokens_per_expert", "must not be negative, got " + std::to_string(tokens));
    rows += tokens;
    active += tokens > 0 ? 1 : 0;
  }
  if (rows == 0) return SimTime();
  const GemmShape dense = shape.tokens_along == GroupedTokens::kM ? GemmShape{rows, shape.n, shape.k, shape.dtype}
                                                                  : GemmShape{shape.k, shape.n, rows, shape.dtype};
  const double mean_rows = static_cast<double>(rows) / static_cast<double>(active);
  return SimTime::from_seconds(estimate_gemm(gpu, dense).time.seconds() * (1 + half_speed_rows / mean_rows));
}

SimTime estimate_grouped_gemm_rows(const GpuSpec& gpu, const GroupedGemmShape& shape) {
  return estimate_grouped_gemm_rows(gpu, shape, gpu.grouped_gemm_half_speed_rows);
}

Bytes permute_bytes(const PermuteShape& shape) {
  if (shape.routed_rows < 0 || shape.hidden <= 0 || shape.top_k <= 0 || shape.element_bytes <= 0) {
    throw InputError("permute", "", "routed rows must not be negative; hidden, top_k and element bytes must be positive");
  }
  const double elements = static_cast<double>(shape.routed_rows) * static_cast<double>(shape.hidden);
  return Bytes(static_cast<std::int64_t>(pass_cost(shape).elements * shape.element_bytes * elements + 0.5));
}

int permute_launches(const PermuteShape& shape) { return pass_cost(shape).launches; }

KernelEstimate estimate_permute(const GpuSpec& gpu, const PermuteShape& shape, double hbm_efficiency) {
  if (!(hbm_efficiency > 0 && hbm_efficiency <= 1)) {
    throw InputError("permute", "hbm_efficiency", "must be in (0, 1], got " + std::to_string(hbm_efficiency));
  }
  KernelEstimate out;
  out.bytes = permute_bytes(shape);
  out.memory_bound = true;
  out.time = SimTime::from_seconds(permute_launches(shape) * gpu.launch_overhead.seconds() +
                                   static_cast<double>(out.bytes.count()) /
                                       (gpu.hbm_bandwidth.bytes_per_second() * hbm_efficiency));
  return out;
}

KernelEstimate estimate_permute(const GpuSpec& gpu, const PermuteShape& shape) {
  return estimate_permute(gpu, shape, shape.path == PermutePath::kUnfused ? gpu.permute_hbm_efficiency : gpu.efficiency.hbm);
}

}  // namespace ctwin::compute

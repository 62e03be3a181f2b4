#pragma once
// Grouped GEMM for MoE experts: one launch runs every expert's GEMM (tokens_e x K) · (K x N), or,
// for weight gradients, (M x tokens_e) · (tokens_e x N) with the tokens as the reduction.
// Time = one launch + Σ_e (GEMM time of expert e − launch), each expert's GEMM estimated by
// estimate_gemm (table or roofline). Experts that received no token cost nothing. This ignores
// that a grouped kernel can fill one expert's partial last wave with another's tiles, so it is
// pessimistic by at most one wave per expert.

#include <cstdint>
#include <vector>

#include "ctwin/compute/dtype.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::compute {

/// Which GEMM dimension holds each expert's tokens.
enum class GroupedTokens { kM, kK };

struct GroupedGemmShape {
  std::vector<std::int64_t> tokens_per_expert;  ///< each expert's M (or K); zero allowed
  std::int64_t n = 0;
  std::int64_t k = 0;  ///< with GroupedTokens::kK: the fixed M instead
  Dtype dtype = Dtype::kBf16;
  GroupedTokens tokens_along = GroupedTokens::kM;
};

struct GroupedGemmEstimate {
  SimTime time;
  FlopCount flops;
  std::int64_t active_experts = 0;
};

/// InputError for negative token counts or non-positive N, K.
[[nodiscard]] GroupedGemmEstimate estimate_grouped_gemm(const GpuSpec& gpu, const GroupedGemmShape& shape);

}  // namespace ctwin::compute

#include "ctwin/compute/grouped_gemm.hpp"

#include <string>

#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::compute {

GroupedGemmEstimate estimate_grouped_gemm(const GpuSpec& gpu, const GroupedGemmShape& shape) {
  if (shape.n <= 0 || shape.k <= 0) throw InputError("grouped_gemm", "", "N and K must be positive");
  GroupedGemmEstimate out;
  out.time = gpu.launch_overhead;
  for (const std::int64_t tokens : shape.tokens_per_expert) {
    if (tokens < 0) throw InputError("grouped_gemm", "tokens_per_expert", "must not be negative, got " + std::to_string(tokens));
    if (tokens == 0) continue;
    const GemmShape gemm = shape.tokens_along == GroupedTokens::kM ? GemmShape{tokens, shape.n, shape.k, shape.dtype}
                                                                   : GemmShape{shape.k, shape.n, tokens, shape.dtype};
    const GemmEstimate expert = estimate_gemm(gpu, gemm);
    out.time += expert.time > gpu.launch_overhead ? expert.time - gpu.launch_overhead : SimTime();
    out.flops = out.flops + expert.flops;
    ++out.active_experts;
  }
  return out;
}

}  // namespace ctwin::compute

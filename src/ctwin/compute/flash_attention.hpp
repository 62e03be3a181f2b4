#pragma once
// FlashAttention forward and backward kernels.
//
// FLOPs are counted as the FlashAttention papers do (Dao 2023, FlashAttention-2, section 4.1):
// the forward pass is two matmuls, S = Q·Kᵀ and O = P·V, each 2 · S_q · S_kv · D per head, so
//     forward  = 4 · batch · heads_q · S_q · S_kv · D
//     backward = 2.5 · forward   (five matmuls: S recomputed, dV, dP, dQ, dK)
// and a causal mask halves both (only the lower triangle is computed). With S_q ≠ S_kv the causal
// mask is aligned to the bottom-right corner, as FlashAttention ≥ 2.1 and cuDNN do (the last
// query sees every key): S_q ≤ S_kv computes S_q·S_kv − S_q²/2 pairs, S_q > S_kv only S_kv²/2
// (the first S_q − S_kv query rows see no key). Context parallelism's chunks need this. A sliding
// window of W keys (Mistral, Gemma 2, GPT-OSS: each query sees itself and the W − 1 keys before
// it) computes S·W − W²/2 pairs with the causal mask, in the same continuous count as S²/2, and
// S·W without it (S_q = S_kv = S ≥ W; a window at least S long changes nothing). GQA shares K and V among
// query heads: it changes bytes, not FLOPs. Bytes are what the fused kernel moves through HBM:
// Q, K, V and O once (forward); Q, K, V, O, dO read and dQ, dK, dV written (backward); plus the
// fp32 log-sum-exp per query row. Time is the roofline with the attention efficiencies of the
// GPU profile, or its measured attention classes and fixed costs (GpuSpec::non_gemm) when it has them.

#include <cstdint>

#include "ctwin/compute/dtype.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/compute/kernel_estimate.hpp"

namespace ctwin::compute {

struct AttentionShape {
  std::int64_t batch = 1;
  std::int64_t seq_q = 0;
  std::int64_t seq_kv = 0;
  std::int64_t heads_q = 0;
  std::int64_t heads_kv = 0;  ///< equal to heads_q for MHA, fewer for GQA, 1 for MQA
  std::int64_t head_dim = 0;
  bool causal = true;
  Dtype dtype = Dtype::kBf16;
  std::int64_t window = 0;  ///< sliding window in keys; 0: every key (needs seq_q == seq_kv when set)
};

[[nodiscard]] FlopCount flash_attention_forward_flops(const AttentionShape& shape);
[[nodiscard]] FlopCount flash_attention_backward_flops(const AttentionShape& shape);
[[nodiscard]] Bytes flash_attention_forward_bytes(const AttentionShape& shape);
[[nodiscard]] Bytes flash_attention_backward_bytes(const AttentionShape& shape);

/// InputError for non-positive sizes or heads_q not a multiple of heads_kv.
[[nodiscard]] KernelEstimate estimate_flash_attention_forward(const GpuSpec& gpu, const AttentionShape& shape);
[[nodiscard]] KernelEstimate estimate_flash_attention_backward(const GpuSpec& gpu, const AttentionShape& shape);

}  // namespace ctwin::compute

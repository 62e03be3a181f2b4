#pragma once
// The GEMMs that project a layer's normed hidden state to queries, keys and values on one TP rank,
// and the widths the kernels around them use.
//
// MHA / GQA: one fused column-parallel QKV GEMM, h → (heads + 2·kv_heads)·head_dim / t.
// MLA (DeepSeek-V2/V3; Megatron-Core MLASelfAttention, our reading of multi_latent_attention.py):
//   q down   h → q_lora_rank                        replicated on every TP rank (not split)
//   kv down  h → kv_lora_rank + qk_rope_head_dim    replicated (the rope key part is shared by heads)
//   q up     q_lora_rank → heads·(nope + rope) / t  column parallel, after the q latent norm
//   kv up    kv_lora_rank → heads·(nope + v) / t    column parallel, after the kv latent norm
//   (q_lora_rank 0: q is projected directly, h → heads·(nope + rope) / t.)
// The down projections run on the TP-gathered tokens, as every TP rank needs the whole latent.
// The attention kernel then sees per-head query/key width nope + rope and value width v; the
// flash kernel is given head_dim (qk + v)/2, which keeps its FLOPs, 2·s²·(qk + v) per head,
// equal to the two matmuls' (its bytes are off by the difference of the widths, a few percent).
// Approximation: the TP communication of the block is that of one column-parallel layer (the
// hidden state's all-gather and its gradient's reduce-scatter); the latent gradient's TP
// all-reduce (tokens·(q_lora + kv_lora) elements, ~1/8 of the hidden's for DeepSeek-V3) is left out.

#include <cstdint>
#include <vector>

#include "ctwin/workload/model_spec.hpp"

namespace ctwin::replay {

/// y[tokens × n] = x[tokens × k] · W[k × n].
struct ProjectionGemm {
  const char* name = "";
  const char* dgrad = "";
  const char* wgrad = "";
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t input_norm = 0;  ///< width of a norm applied to this GEMM's input (MLA latents), 0: none
  const char* norm_name = "";
};

[[nodiscard]] std::vector<ProjectionGemm> qkv_projections(const workload::ModelSpec& model, std::int64_t tp);
/// Elements per token the rotary kernel touches on one rank.
[[nodiscard]] std::int64_t rotary_width(const workload::ModelSpec& model, std::int64_t tp);
/// Head dim the flash-attention kernel is given (see the file comment for MLA).
[[nodiscard]] std::int64_t flash_head_dim(const workload::ModelSpec& model);
/// KV heads per rank the attention kernel reads (MLA expands per-head keys and values).
[[nodiscard]] std::int64_t attention_kv_heads(const workload::ModelSpec& model, std::int64_t tp);

}  // namespace ctwin::replay

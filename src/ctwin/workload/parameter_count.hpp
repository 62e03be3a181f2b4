#pragma once
// Parameter counts of a ModelSpec, split the way parallelism shards them: per transformer layer
// (attention, dense MLP, MoE experts, norms), embeddings and the output projection.
//
// Conventions: a SwiGLU MLP has three hidden×ffn matrices, GeLU two; LayerNorm has a weight and
// a bias, RMSNorm a weight; each layer has two norms and the model one final norm; MLA's
// latent norms count (q_lora_rank and kv_lora_rank weights); an MoE router is hidden×experts.
// Small extras that change no total by 0.01% (Qwen3's per-head q/k norms, DeepSeek's router
// bias, MTP modules) are left out.

#include <cstdint>

#include "ctwin/workload/model_spec.hpp"

namespace ctwin::workload {

/// Per-layer counts (one layer of each kind).
struct LayerParameters {
  std::int64_t attention = 0;        ///< projections, their biases
  std::int64_t attention_matmul = 0; ///< the part that is GEMM weights (FLOPs count only these)
  std::int64_t norms = 0;            ///< the two norms of a layer (MLA latent norms are in attention)
  std::int64_t dense_mlp = 0;        ///< a dense layer's MLP (with biases)
  std::int64_t dense_mlp_matmul = 0;
  std::int64_t expert = 0;           ///< one expert's MLP (routed or shared)
  std::int64_t router = 0;
};

struct ParameterCount {
  LayerParameters layer;
  std::int64_t embedding = 0;  ///< token table plus learned position table
  std::int64_t output = 0;     ///< output projection; 0 when tied to the embedding
  std::int64_t final_norm = 0;
  std::int64_t total = 0;
  std::int64_t active = 0;     ///< used per token: shared and top_k routed experts only
  std::int64_t expert_total = 0;  ///< all routed and shared expert parameters (sharded by EP)
  std::int64_t non_expert = 0;    ///< total - expert_total (sharded by TP and PP)
};

[[nodiscard]] ParameterCount count_parameters(const ModelSpec& model);

}  // namespace ctwin::workload

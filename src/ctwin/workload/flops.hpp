#pragma once
// Floating-point operations of one training step, counted as Megatron-LM does (Narayanan et al.,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", SC'21,
// section 5.1 and appendix): only matrix multiplications, 2 FLOPs per multiply-add, the backward
// pass twice the forward pass.
//
// Forward, per token: 2 × (attention and MLP GEMM weights of every layer, MoE layers with only
// the shared and top_k routed experts, the router) + 2·h·V for the logits + the attention core,
// 2·s·heads·(qk_head_dim + v_head_dim) per layer for QKᵀ and attention·V.
//
// Attention mask convention: kFull counts the whole s×s score matrix, as the SC'21 formula,
// Megatron-LM's num_floating_point_operations, NeMo's and PaLM's MFU do, so MFU figures are
// comparable with theirs; kCausal halves the attention core, counting only the work a causal
// FlashAttention kernel does.
//
// For a GPT (h-wide, 4h MLP, GeLU, MHA) this is, per step of B sequences of s tokens, l layers:
//   model FLOPs        72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h))
//   full recompute     96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))    (SC'21 eq. 3: layers run forward twice)
//   selective          model + 4·B·s²·h·l                        (attention core run forward again)

#include "ctwin/core/units.hpp"
#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::workload {

enum class AttentionMask { kFull, kCausal };

struct StepFlops {
  FlopCount model;     ///< forward + backward, no recompute: what MFU is computed from
  FlopCount hardware;  ///< model plus the recomputed forward work
  FlopCount forward;   ///< one forward pass of the whole batch
  double model_per_token = 0;     ///< FLOPs per trained token (model)
  double hardware_per_token = 0;
  std::int64_t tokens = 0;        ///< global_batch · seq_len
};

/// Forward FLOPs of one token through the model at context length `seq_len`.
struct ForwardPerToken {
  double layer_gemm = 0;       ///< all layers' GEMMs (MoE: active experts only)
  double attention_core = 0;   ///< all layers' QKᵀ and attention·V
  double logits = 0;
  [[nodiscard]] double total() const { return layer_gemm + attention_core + logits; }
};

[[nodiscard]] ForwardPerToken forward_flops_per_token(const ModelSpec& model, std::int64_t seq_len,
                                                      AttentionMask mask = AttentionMask::kFull);

/// FLOPs of one step of `split.global_batch` sequences of `split.seq_len` tokens.
[[nodiscard]] StepFlops step_flops(const ModelSpec& model, const ParallelConfig& split,
                                   AttentionMask mask = AttentionMask::kFull);

}  // namespace ctwin::workload

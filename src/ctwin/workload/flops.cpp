#include "ctwin/workload/flops.hpp"

#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::workload {

ForwardPerToken forward_flops_per_token(const ModelSpec& model, std::int64_t seq_len, AttentionMask mask) {
  const ParameterCount params = count_parameters(model);
  const LayerParameters& layer = params.layer;
  const auto dense = static_cast<double>(model.dense_layers());
  const auto moe = static_cast<double>(model.moe_layers());
  ForwardPerToken out;
  // Expert weights are GEMM weights; their biases (GPT-style MoE) are too few to matter.
  const double active_experts = static_cast<double>(model.moe.top_k + model.moe.shared_experts);
  const double moe_mlp = active_experts * static_cast<double>(layer.expert) + static_cast<double>(layer.router);
  out.layer_gemm = 2.0 * (static_cast<double>(model.layers) * static_cast<double>(layer.attention_matmul) +
                          dense * static_cast<double>(layer.dense_mlp_matmul) + moe * moe_mlp);
  const double per_layer_core = 2.0 * static_cast<double>(seq_len) * static_cast<double>(model.heads) *
                                static_cast<double>(model.qk_head_dim() + model.v_head_dim());
  // The share of the s keys a query attends to: a sliding window of w < s keys sees w/s of them,
  // w/s − (w/s)²/2 on average under the causal mask (the flash_attention.hpp count).
  const double s = static_cast<double>(seq_len);
  for (std::int64_t layer = 0; layer < model.layers; ++layer) {
    const std::int64_t window = model.attention_window(layer);
    double share = mask == AttentionMask::kCausal ? 0.5 : 1.0;
    if (window > 0 && window < seq_len) {
      const double w = static_cast<double>(window) / s;
      share = mask == AttentionMask::kCausal ? w - w * w / 2 : w;
    }
    out.attention_core += per_layer_core * share;
  }
  out.logits = 2.0 * static_cast<double>(model.hidden) * static_cast<double>(model.vocab);
  return out;
}

StepFlops step_flops(const ModelSpec& model, const ParallelConfig& split, AttentionMask mask) {
  const ForwardPerToken f = forward_flops_per_token(model, split.seq_len, mask);
  StepFlops out;
  out.tokens = split.global_batch * split.seq_len;
  const double tokens = static_cast<double>(out.tokens);
  out.model_per_token = 3.0 * f.total();
  double recomputed = 0;  // forward work done again in the backward pass, per token
  if (split.recompute == Recompute::kFull) recomputed = f.layer_gemm + f.attention_core;  // logits are not recomputed
  if (split.recompute == Recompute::kSelective) recomputed = f.attention_core;
  out.hardware_per_token = out.model_per_token + recomputed;
  out.forward = FlopCount(f.total() * tokens);
  out.model = FlopCount(out.model_per_token * tokens);
  out.hardware = FlopCount(out.hardware_per_token * tokens);
  return out;
}

}  // namespace ctwin::workload

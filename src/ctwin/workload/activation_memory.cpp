#include "ctwin/workload/activation_memory.hpp"

namespace ctwin::workload {
namespace {

constexpr double kHalf = 2;  // bytes of a 16-bit activation
constexpr double kMask = 1;  // bytes of a dropout mask element

// Bytes of a saved GEMM input: with fp8 GEMMs Transformer Engine keeps the fp8 copy it made for
// the forward GEMM (its wgrad GEMM reads it), not the 16-bit tensor.
double gemm_input_bytes(const ParallelConfig& split) { return split.precision == Precision::kFp8 ? 1 : kHalf; }

struct Parts {
  double replicated = 0;  // per token; sharded only by sequence parallelism
  double sharded = 0;     // per token; sharded by tensor parallelism
};

// MLP of width `ffn` for every token: activation input (gate and up for SwiGLU) and second-GEMM input.
double mlp_inner(const ModelSpec& model, const ParallelConfig& split, double ffn) {
  return kHalf * ffn * (model.activation == Activation::kSwiglu ? 2 : 1) + gemm_input_bytes(split) * ffn;
}

Parts attention_parts(const ModelSpec& model, const ParallelConfig& split) {
  const double input = gemm_input_bytes(split);
  const auto h = static_cast<double>(model.hidden);
  const auto a = static_cast<double>(model.heads);
  const bool mla = model.attention == AttentionKind::kMla;
  const double kv = mla ? a : static_cast<double>(model.kv_heads);
  const auto dqk = static_cast<double>(model.qk_head_dim());
  const auto dv = static_cast<double>(model.v_head_dim());
  Parts p;
  p.replicated = kHalf * h * 2 /* norm inputs */ + input * h /* QKV input */ + (model.dropout ? kMask * h : 0);
  if (mla) p.replicated += kHalf * static_cast<double>(model.mla.q_lora_rank + model.mla.kv_lora_rank);
  p.sharded = kHalf * (a * dqk + kv * dqk + kv * dv) + input * a * dv /* projection input */;
  return p;
}

}  // namespace

double layer_activation_bytes(const ModelSpec& model, const ParallelConfig& split, LayerKind kind,
                              bool flash_attention) {
  const auto t = static_cast<double>(split.tp);
  const double sb = static_cast<double>(split.seq_len / split.cp) * static_cast<double>(split.micro_batch);
  const auto h = static_cast<double>(model.hidden);
  const bool sp = split.sequence_parallel && split.tp > 1;
  if (split.recompute == Recompute::kFull) return kHalf * sb * h / (sp ? t : 1);

  Parts p = attention_parts(model, split);
  p.replicated += gemm_input_bytes(split) * h /* MLP input */ + (model.dropout ? kMask * h : 0);
  double expert_part = 0;  // per local token, already divided by its own sharding
  if (kind == LayerKind::kDense) {
    p.sharded += mlp_inner(model, split, static_cast<double>(model.ffn_hidden));
  } else {
    const auto k = static_cast<double>(model.moe.top_k);
    const auto etp = static_cast<double>(split.expert_tp);
    const auto fe = static_cast<double>(model.moe.expert_ffn_hidden);
    // Each routed copy keeps its permuted input (gathered over expert_tp) and its share of the MLP.
    expert_part = k * (gemm_input_bytes(split) * h + mlp_inner(model, split, fe) / etp) / (sp ? t : 1);
    p.sharded += mlp_inner(model, split, fe * static_cast<double>(model.moe.shared_experts));
    p.replicated += 4.0 * static_cast<double>(model.moe.experts);  // fp32 router logits
  }
  double per_token = p.replicated / (sp ? t : 1) + p.sharded / t + expert_part;

  const double s = static_cast<double>(split.seq_len / split.cp);
  const auto a = static_cast<double>(model.heads);
  if (split.recompute == Recompute::kNone) {
    // Score tensors are per (query, key) pair, so per token they grow with s.
    per_token += flash_attention ? 4.0 * a / t : a * s * (kHalf + (model.dropout ? kMask + kHalf : 0)) / t;
  }
  return per_token * sb;
}

}  // namespace ctwin::workload

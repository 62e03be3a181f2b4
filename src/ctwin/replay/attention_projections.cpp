#include "ctwin/replay/attention_projections.hpp"

#include <algorithm>

namespace ctwin::replay {

using workload::AttentionKind;

std::vector<ProjectionGemm> qkv_projections(const workload::ModelSpec& m, std::int64_t tp) {
  if (m.attention != AttentionKind::kMla) {
    return {{"qkv_gemm", "qkv_dgrad", "qkv_wgrad", (m.heads + 2 * m.kv_heads) * m.head_dim / tp, m.hidden}};
  }
  const workload::MlaRanks& r = m.mla;
  const std::int64_t heads = m.heads / tp;
  const std::int64_t qk = r.qk_nope_head_dim + r.qk_rope_head_dim;
  std::vector<ProjectionGemm> out;
  if (r.q_lora_rank > 0) out.push_back({"q_down_gemm", "q_down_dgrad", "q_down_wgrad", r.q_lora_rank, m.hidden});
  out.push_back({"kv_down_gemm", "kv_down_dgrad", "kv_down_wgrad", r.kv_lora_rank + r.qk_rope_head_dim, m.hidden});
  if (r.q_lora_rank > 0) {
    out.push_back({"q_up_gemm", "q_up_dgrad", "q_up_wgrad", heads * qk, r.q_lora_rank, r.q_lora_rank, "q_latent_norm"});
  } else {
    out.push_back({"q_gemm", "q_dgrad", "q_wgrad", heads * qk, m.hidden});
  }
  out.push_back({"kv_up_gemm", "kv_up_dgrad", "kv_up_wgrad", heads * (r.qk_nope_head_dim + r.v_head_dim),
                 r.kv_lora_rank, r.kv_lora_rank, "kv_latent_norm"});
  return out;
}

std::int64_t rotary_width(const workload::ModelSpec& m, std::int64_t tp) {
  if (m.attention != AttentionKind::kMla) return (m.heads + m.kv_heads) * m.head_dim / tp;
  // Every local query head's rope part and the one rope key shared by all heads.
  return (m.heads / tp + 1) * m.mla.qk_rope_head_dim;
}

std::int64_t flash_head_dim(const workload::ModelSpec& m) {
  if (m.attention != AttentionKind::kMla) return m.head_dim;
  return (m.qk_head_dim() + m.v_head_dim()) / 2;
}

std::int64_t attention_kv_heads(const workload::ModelSpec& m, std::int64_t tp) {
  if (m.attention == AttentionKind::kMla) return m.heads / tp;
  return std::max<std::int64_t>(1, m.kv_heads / tp);
}

}  // namespace ctwin::replay

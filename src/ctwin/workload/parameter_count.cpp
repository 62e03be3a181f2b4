#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::workload {
namespace {

std::int64_t norm_size(const ModelSpec& model, std::int64_t width) {
  return model.norm == Norm::kLayerNorm ? 2 * width : width;
}

// Weights and (optional) biases of an MLP of the given width.
void mlp(const ModelSpec& model, std::int64_t ffn, std::int64_t& total, std::int64_t& matmul) {
  const std::int64_t matrices = model.activation == Activation::kSwiglu ? 3 : 2;
  matmul = matrices * model.hidden * ffn;
  total = matmul;
  if (model.bias == LinearBias::kAll) total += (matrices - 1) * ffn + model.hidden;
}

void attention(const ModelSpec& model, std::int64_t& total, std::int64_t& matmul) {
  const std::int64_t h = model.hidden;
  const std::int64_t a = model.heads;
  if (model.attention == AttentionKind::kMla) {
    const MlaRanks& r = model.mla;
    const std::int64_t qk = r.qk_nope_head_dim + r.qk_rope_head_dim;
    const std::int64_t q = r.q_lora_rank > 0 ? h * r.q_lora_rank + r.q_lora_rank * a * qk : h * a * qk;
    // Keys share one rope part across heads; the latent is expanded to per-head nope keys and values.
    const std::int64_t kv = h * (r.kv_lora_rank + r.qk_rope_head_dim) +
                            r.kv_lora_rank * a * (r.qk_nope_head_dim + r.v_head_dim);
    const std::int64_t out = a * r.v_head_dim * h;
    matmul = q + kv + out;
    total = matmul + norm_size(model, r.kv_lora_rank) + (r.q_lora_rank > 0 ? norm_size(model, r.q_lora_rank) : 0);
    return;
  }
  const std::int64_t q_width = a * model.head_dim;
  const std::int64_t kv_width = model.kv_heads * model.head_dim;
  matmul = h * q_width + 2 * h * kv_width + q_width * h;
  total = matmul;
  if (model.bias != LinearBias::kNone) total += q_width + 2 * kv_width;
  if (model.bias == LinearBias::kAll) total += h;
}

}  // namespace

ParameterCount count_parameters(const ModelSpec& model) {
  ParameterCount count;
  LayerParameters& layer = count.layer;
  attention(model, layer.attention, layer.attention_matmul);
  layer.norms = 2 * norm_size(model, model.hidden);
  mlp(model, model.ffn_hidden, layer.dense_mlp, layer.dense_mlp_matmul);
  if (model.has_moe) {
    std::int64_t unused = 0;
    mlp(model, model.moe.expert_ffn_hidden, layer.expert, unused);
    layer.router = model.hidden * model.moe.experts;
  }
  count.embedding = model.vocab * model.hidden +
                    (model.position == PositionEmbedding::kLearned ? model.max_positions * model.hidden : 0);
  count.output = model.tied_embeddings ? 0 : model.vocab * model.hidden;
  count.final_norm = norm_size(model, model.hidden);

  const std::int64_t shared_part = layer.attention + layer.norms;
  const std::int64_t dense_layers = model.dense_layers();
  const std::int64_t moe_layers = model.moe_layers();
  const std::int64_t experts_per_layer = model.moe.experts + model.moe.shared_experts;
  const std::int64_t active_per_layer = model.moe.top_k + model.moe.shared_experts;
  const std::int64_t outside_layers = count.embedding + count.output + count.final_norm;

  count.expert_total = moe_layers * experts_per_layer * layer.expert;
  count.non_expert = dense_layers * (shared_part + layer.dense_mlp) + moe_layers * (shared_part + layer.router) +
                     outside_layers;
  count.total = count.non_expert + count.expert_total;
  count.active = count.non_expert + moe_layers * active_per_layer * layer.expert;
  return count;
}

}  // namespace ctwin::workload

#pragma once
// Models the workload tests share: bundled files by name, and the GPT shape of Megatron-LM's
// SC'21 paper built in code.

#include <string>

#include "ctwin/workload/model_spec.hpp"

namespace ctwin::workload::testing {

inline ModelSpec bundled(const std::string& name) {
  return load_model_spec(std::string(CTWIN_SOURCE_DIR) + "/models/llm/" + name + ".json");
}

/// The GPT of Narayanan et al. SC'21 and Korthikanti et al. 2022: 4h GeLU MLP, MHA, LayerNorm,
/// biases, learned positions over the sequence, dropout, tied embeddings.
inline ModelSpec megatron_gpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t vocab = 51200,
                              std::int64_t seq = 2048) {
  ModelSpec m;
  m.name = "gpt-" + std::to_string(layers) + "x" + std::to_string(hidden);
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = 4 * hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.vocab = vocab;
  m.activation = Activation::kGelu;
  m.tied_embeddings = true;
  m.norm = Norm::kLayerNorm;
  m.bias = LinearBias::kAll;
  m.position = PositionEmbedding::kLearned;
  m.max_positions = seq;
  m.dropout = true;
  m.attention = AttentionKind::kMha;
  return m;
}

}  // namespace ctwin::workload::testing

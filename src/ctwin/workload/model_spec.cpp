#include "ctwin/workload/model_spec.hpp"

#include "ctwin/core/error.hpp"
#include "ctwin/workload/model_limits.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/workload/hf_config.hpp"

namespace ctwin::workload {
namespace {

MoeSpec read_moe(JsonObjectReader reader, std::int64_t layers) {
  MoeSpec moe;
  moe.experts = reader.integer("experts", 1, kMaxDim);
  moe.top_k = reader.integer("top_k", 1, moe.experts);
  moe.expert_ffn_hidden = reader.integer("expert_ffn_hidden", 1, kMaxDim);
  moe.shared_experts = reader.integer_or("shared_experts", 0, kMaxDim, 0);
  moe.first_dense_layers = reader.integer_or("first_dense_layers", 0, layers - 1, 0);
  // Megatron-Core's default is dropless; the replay assumes dropless, balanced routing.
  if (reader.has("capacity_factor")) {
    reader.fail("capacity_factor", "a run setting, not the model's: give it as the scenario's moe_runtime.capacity_factor");
  }
  reader.finish();
  return moe;
}

void read_attention(JsonObjectReader reader, ModelSpec& model) {
  const std::string kind = reader.choice("kind", {"mha", "gqa", "mla"});
  if (kind == "mla") {
    model.attention = AttentionKind::kMla;
    model.mla.q_lora_rank = reader.integer_or("q_lora_rank", 0, kMaxDim, 0);
    model.mla.kv_lora_rank = reader.integer("kv_lora_rank", 1, kMaxDim);
    model.mla.qk_nope_head_dim = reader.integer("qk_nope_head_dim", 1, kMaxDim);
    model.mla.qk_rope_head_dim = reader.integer("qk_rope_head_dim", 0, kMaxDim);
    model.mla.v_head_dim = reader.integer("v_head_dim", 1, kMaxDim);
  } else {
    model.attention = kind == "mha" ? AttentionKind::kMha : AttentionKind::kGqa;
    if (model.attention == AttentionKind::kMha && model.kv_heads != model.heads) {
      reader.fail("kind", "mha needs kv_heads == heads, got " + std::to_string(model.kv_heads) + " and " +
                              std::to_string(model.heads));
    }
  }
  model.sliding_window = reader.integer_or("sliding_window", 1, kMaxDim, 0);
  model.global_every = reader.integer_or("global_every", 1, kMaxDim, 0);
  if (model.global_every > 0 && model.sliding_window == 0) {
    reader.fail("global_every", "only meaningful with a sliding_window");
  }
  reader.finish();
}

}  // namespace

std::int64_t ModelSpec::qk_head_dim() const {
  return attention == AttentionKind::kMla ? mla.qk_nope_head_dim + mla.qk_rope_head_dim : head_dim;
}

std::int64_t ModelSpec::attention_window(std::int64_t layer) const {
  if (sliding_window == 0) return 0;
  const bool global = global_every > 0 && (layer + 1) % global_every == 0;
  return global ? 0 : sliding_window;
}

std::int64_t ModelSpec::v_head_dim() const { return attention == AttentionKind::kMla ? mla.v_head_dim : head_dim; }

std::string activation_name(Activation activation) { return activation == Activation::kGelu ? "gelu" : "swiglu"; }

std::string attention_name(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::kMha: return "mha";
    case AttentionKind::kGqa: return "gqa";
    case AttentionKind::kMla: return "mla";
  }
  return "?";
}

bool is_hf_config(const nlohmann::json& document) {
  return document.is_object() &&
         (document.contains("hidden_size") || document.contains("num_hidden_layers") || document.contains("model_type"));
}

ModelSpec parse_model_spec(const nlohmann::json& document, const std::string& source) {
  JsonObjectReader reader(document, source, "");
  ModelSpec model;
  model.name = reader.string("name");
  model.description = reader.string_or("description", "");
  model.sources = reader.string_list("sources");
  if (model.sources.empty()) reader.fail("sources", "expected at least one source for the figures");
  model.layers = reader.integer("layers", 1, kMaxDim);
  model.hidden = reader.integer("hidden", 1, kMaxDim);
  model.ffn_hidden = reader.integer("ffn_hidden", 1, kMaxDim);
  model.heads = reader.integer("heads", 1, kMaxDim);
  model.kv_heads = reader.integer("kv_heads", 1, model.heads);
  if (model.heads % model.kv_heads != 0) {
    reader.fail("kv_heads", std::to_string(model.kv_heads) + " does not divide " + std::to_string(model.heads) +
                                " heads (each KV head serves a whole group of query heads)");
  }
  if (reader.has("head_dim")) {
    model.head_dim = reader.integer("head_dim", 1, kMaxDim);
  } else {
    (void)reader.optional("head_dim");
    if (model.hidden % model.heads != 0) {
      reader.fail("heads", std::to_string(model.heads) + " does not divide hidden " + std::to_string(model.hidden) +
                               ": give head_dim");
    }
    model.head_dim = model.hidden / model.heads;
  }
  model.vocab = reader.integer("vocab", 1, kMaxDim);
  model.activation = reader.choice("activation", {"gelu", "swiglu"}) == "gelu" ? Activation::kGelu : Activation::kSwiglu;
  model.tied_embeddings = reader.boolean("tied_embeddings");
  model.norm = reader.choice_or("norm", {"rmsnorm", "layernorm"}, "rmsnorm") == "layernorm" ? Norm::kLayerNorm
                                                                                           : Norm::kRmsNorm;
  const std::string bias = reader.choice_or("bias", {"none", "qkv", "all"}, "none");
  model.bias = bias == "all" ? LinearBias::kAll : bias == "qkv" ? LinearBias::kQkv : LinearBias::kNone;
  const std::string position = reader.choice_or("position_embedding", {"rope", "alibi", "learned"}, "rope");
  model.position = position == "learned" ? PositionEmbedding::kLearned
                   : position == "alibi" ? PositionEmbedding::kAlibi
                                         : PositionEmbedding::kRope;
  if (model.position == PositionEmbedding::kLearned) {
    model.max_positions = reader.integer("max_positions", 1, kMaxDim);
  } else if (reader.has("max_positions")) {
    reader.fail("max_positions", "only a learned position_embedding has a table of max_positions rows");
  } else {
    (void)reader.optional("max_positions");
  }
  model.dropout = reader.boolean_or("dropout", false);
  model.attention = model.kv_heads == model.heads ? AttentionKind::kMha : AttentionKind::kGqa;
  if (auto attention = reader.optional_object("attention")) read_attention(*attention, model);
  if (auto moe = reader.optional_object("moe")) {
    model.has_moe = true;
    model.moe = read_moe(*moe, model.layers);
  }
  reader.finish();
  check_model_size(model, source);
  return model;
}

ModelSpec load_model_spec(const std::filesystem::path& path) {
  const nlohmann::json document = load_json_file(path);
  if (is_hf_config(document)) return parse_hf_config(document, path.string());
  return parse_model_spec(document, path.string());
}

}  // namespace ctwin::workload

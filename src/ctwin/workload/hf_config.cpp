#include "ctwin/workload/hf_config.hpp"

#include <filesystem>

#include "ctwin/core/error.hpp"
#include "ctwin/workload/model_limits.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::workload {
namespace {

// The first of `keys` present, or nullptr: families spell the same figure differently.
const char* first_present(const JsonObjectReader& reader, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (reader.has(key)) return key;
  }
  return nullptr;
}

void read_moe(JsonObjectReader& reader, ModelSpec& model) {
  const char* experts_key = first_present(reader, {"num_local_experts", "n_routed_experts", "num_experts"});
  if (experts_key == nullptr) return;
  model.has_moe = true;
  model.moe.experts = reader.integer(experts_key, 1, kMaxDim);
  model.moe.top_k = reader.integer("num_experts_per_tok", 1, model.moe.experts);
  model.moe.expert_ffn_hidden = reader.has("moe_intermediate_size") ? reader.integer("moe_intermediate_size", 1, kMaxDim)
                                                                    : model.ffn_hidden;
  model.moe.shared_experts = reader.integer_or("n_shared_experts", 0, kMaxDim, 0);
  model.moe.first_dense_layers = reader.integer_or("first_k_dense_replace", 0, model.layers - 1, 0);
  if (reader.integer_or("decoder_sparse_step", 1, kMaxDim, 1) != 1) {
    reader.fail("decoder_sparse_step", "only every-layer MoE (1) is modelled");
  }
  if (const auto* dense_only = reader.optional("mlp_only_layers"); dense_only != nullptr && !dense_only->empty()) {
    reader.fail("mlp_only_layers", "dense layers among MoE layers are not modelled; only first_k_dense_replace");
  }
}

void read_mla(JsonObjectReader& reader, ModelSpec& model) {
  if (!reader.has("kv_lora_rank")) return;
  model.attention = AttentionKind::kMla;
  model.mla.kv_lora_rank = reader.integer("kv_lora_rank", 1, kMaxDim);
  model.mla.q_lora_rank = reader.integer_or("q_lora_rank", 0, kMaxDim, 0);  // null: no query compression
  model.mla.qk_nope_head_dim = reader.integer("qk_nope_head_dim", 1, kMaxDim);
  model.mla.qk_rope_head_dim = reader.integer("qk_rope_head_dim", 0, kMaxDim);
  model.mla.v_head_dim = reader.integer("v_head_dim", 1, kMaxDim);
}

}  // namespace

// sliding_window applies when use_sliding_window is not false (Qwen2/3 keep a window size they do not
// use); layer_types, where given (GPT-OSS), says which layers, and must be every layer or all but
// every k-th, the patterns ModelSpec holds.
void read_sliding_window(JsonObjectReader& reader, const nlohmann::json& document, ModelSpec& model) {
  const auto window = document.find("sliding_window");
  if (window == document.end() || window->is_null() || !reader.boolean_or("use_sliding_window", true)) return;
  model.sliding_window = reader.integer("sliding_window", 1, kMaxDim);
  const auto types = document.find("layer_types");
  if (types == document.end()) return;
  if (!types->is_array() || static_cast<std::int64_t>(types->size()) != model.layers) {
    reader.fail("layer_types", "expected one entry per layer (" + std::to_string(model.layers) + ")");
  }
  std::int64_t first_global = 0;
  for (std::int64_t layer = 0; layer < model.layers; ++layer) {
    if ((*types)[static_cast<std::size_t>(layer)] != "sliding_attention") {
      first_global = layer + 1;
      break;
    }
  }
  if (first_global == 0) return;  // every layer windowed
  model.global_every = first_global;
  for (std::int64_t layer = 0; layer < model.layers; ++layer) {
    const bool windowed = (*types)[static_cast<std::size_t>(layer)] == "sliding_attention";
    if (windowed != (model.attention_window(layer) > 0)) {
      reader.fail("layer_types", "only every layer windowed, or all but every k-th, is modelled; layer " +
                                     std::to_string(layer) + " breaks the pattern");
    }
  }
}

ModelSpec parse_hf_config(const nlohmann::json& document, const std::string& source) {
  JsonObjectReader reader(document, source, "");
  ModelSpec model;
  const std::string stem = std::filesystem::path(source).parent_path().filename().string();
  model.name = reader.string_or("_name_or_path", stem.empty() ? source : stem);
  model.description = "Hugging Face config (" + reader.string_or("model_type", "unknown model_type") + ")";
  model.sources = {source};
  model.layers = reader.integer("num_hidden_layers", 1, kMaxDim);
  model.hidden = reader.integer("hidden_size", 1, kMaxDim);
  model.ffn_hidden = reader.integer("intermediate_size", 1, kMaxDim);
  model.heads = reader.integer("num_attention_heads", 1, kMaxDim);
  model.kv_heads = reader.integer_or("num_key_value_heads", 1, model.heads, model.heads);
  if (model.heads % model.kv_heads != 0) {
    reader.fail("num_key_value_heads", std::to_string(model.kv_heads) + " does not divide " +
                                           std::to_string(model.heads) + " attention heads");
  }
  if (reader.has("head_dim")) {
    model.head_dim = reader.integer("head_dim", 1, kMaxDim);
  } else if (model.hidden % model.heads == 0) {
    model.head_dim = model.hidden / model.heads;
  } else {
    reader.fail("num_attention_heads", "does not divide hidden_size and there is no head_dim");
  }
  model.vocab = reader.integer("vocab_size", 1, kMaxDim);
  if (!reader.has("tie_word_embeddings")) {
    reader.fail("tie_word_embeddings", "missing: say true or false (transformers' class defaults differ)");
  }
  model.tied_embeddings = reader.boolean("tie_word_embeddings");
  const std::string act = reader.string_or("hidden_act", "silu");
  if (act == "silu" || act == "swiglu") {
    model.activation = Activation::kSwiglu;
  } else if (act.starts_with("gelu")) {
    model.activation = Activation::kGelu;
  } else {
    reader.fail("hidden_act", "unknown activation '" + act + "' (expected silu or gelu*)");
  }
  if (reader.boolean_or("attention_bias", false)) model.bias = LinearBias::kAll;
  else if (document.value("model_type", "") == "qwen2") model.bias = LinearBias::kQkv;
  model.attention = model.kv_heads == model.heads ? AttentionKind::kMha : AttentionKind::kGqa;
  read_mla(reader, model);
  read_moe(reader, model);
  read_sliding_window(reader, document, model);
  // No reader.finish(): the remaining keys are the ones the header says are ignored.
  check_model_size(model, source);
  return model;
}

}  // namespace ctwin::workload

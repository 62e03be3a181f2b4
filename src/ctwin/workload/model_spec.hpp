#pragma once
// A transformer language model's architecture: what the parameter, FLOP and memory models need,
// nothing about how it is trained. Read from ctwin's own model format (models/llm/*.json,
// strict: unknown keys are errors) or from a Hugging Face config.json (see hf_config.hpp).
//
// ctwin format (docs/input-formats.md, "Model (ctwin format)"):
//   name, description, sources [strings]: identification; every bundled file cites its figures
//   layers, hidden, ffn_hidden, heads, kv_heads, vocab          integers
//   activation        "gelu" (2 matrices in the MLP) | "swiglu" (3: gate, up, down)
//   tied_embeddings   output projection shares the input embedding matrix
//   head_dim          optional, default hidden / heads (Qwen3 uses 128 with 4096 / 64)
//   norm              optional "rmsnorm" (default) | "layernorm" (weight and bias)
//   bias              optional "none" (default) | "qkv" (Qwen2) | "all" (GPT-2/3: every linear)
//   position_embedding optional "rope" (default) | "alibi" | "learned" (needs max_positions)
//   dropout           optional, default false: dropout layers whose masks are kept for backward
//   moe               optional {experts, top_k, expert_ffn_hidden, shared_experts (default 0),
//                     first_dense_layers (default 0)}: every layer after the first dense ones has
//                     `experts` routed SwiGLU/GeLU experts plus `shared_experts` always-on ones,
//                     each of width expert_ffn_hidden
//   attention         optional {kind: "mha"|"gqa"|"mla", and for mla: q_lora_rank (0 = none),
//                     kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim}. Without it
//                     the kind is mha when kv_heads == heads, else gqa.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctwin::workload {

enum class Activation { kGelu, kSwiglu };
enum class AttentionKind { kMha, kGqa, kMla };
enum class Norm { kRmsNorm, kLayerNorm };
enum class LinearBias { kNone, kQkv, kAll };
enum class PositionEmbedding { kRope, kAlibi, kLearned };

/// Multi-head latent attention ranks (DeepSeek-V2/V3). q_lora_rank 0 means queries are
/// projected directly from the hidden state.
struct MlaRanks {
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

struct MoeSpec {
  std::int64_t experts = 0;         ///< routed experts per MoE layer
  std::int64_t top_k = 0;           ///< routed experts each token visits
  std::int64_t expert_ffn_hidden = 0;
  std::int64_t shared_experts = 0;  ///< experts every token visits, each expert_ffn_hidden wide
  std::int64_t first_dense_layers = 0;
};

struct ModelSpec {
  std::string name;
  std::string description;
  std::vector<std::string> sources;

  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t ffn_hidden = 0;  ///< of dense layers
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;    ///< always set after loading
  std::int64_t vocab = 0;
  Activation activation = Activation::kSwiglu;
  bool tied_embeddings = false;
  Norm norm = Norm::kRmsNorm;
  LinearBias bias = LinearBias::kNone;
  PositionEmbedding position = PositionEmbedding::kRope;
  std::int64_t max_positions = 0;  ///< rows of a learned position table; 0 otherwise
  bool dropout = false;
  AttentionKind attention = AttentionKind::kMha;
  MlaRanks mla;                  ///< meaningful when attention == kMla
  /// Sliding-window attention: each query sees itself and the sliding_window − 1 keys before it
  /// (0: no window). With global_every = k, every k-th layer (layers k, 2k, ... counting from 1,
  /// Megatron's window_attn_skip_freq) attends to every key instead; 0: all layers windowed.
  std::int64_t sliding_window = 0;
  std::int64_t global_every = 0;
  bool has_moe = false;
  MoeSpec moe;                   ///< meaningful when has_moe

  [[nodiscard]] std::int64_t moe_layers() const { return has_moe ? layers - moe.first_dense_layers : 0; }
  [[nodiscard]] std::int64_t dense_layers() const { return layers - moe_layers(); }
  /// Width of one query head's dot product with a key (MLA: nope + rope parts).
  [[nodiscard]] std::int64_t qk_head_dim() const;
  [[nodiscard]] std::int64_t v_head_dim() const;
  /// The window of global layer `layer` (0-based), 0 for a layer that sees every key.
  [[nodiscard]] std::int64_t attention_window(std::int64_t layer) const;
};

[[nodiscard]] std::string activation_name(Activation activation);
[[nodiscard]] std::string attention_name(AttentionKind kind);

/// Parses ctwin's model format strictly; errors name `source` and the JSON pointer.
[[nodiscard]] ModelSpec parse_model_spec(const nlohmann::json& document, const std::string& source);

/// True when `document` looks like a Hugging Face config.json rather than ctwin's format.
[[nodiscard]] bool is_hf_config(const nlohmann::json& document);

/// Loads either format, choosing by is_hf_config.
[[nodiscard]] ModelSpec load_model_spec(const std::filesystem::path& path);

}  // namespace ctwin::workload

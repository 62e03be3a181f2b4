#pragma once
// A Hugging Face transformers config.json read as a ctwin model. Only the keys that change the
// parameter count, FLOPs or memory are read; every other key (token ids, rope scaling, init
// ranges, dtype, routing scale factors, ...) is ignored on purpose, since HF configs carry dozens
// of them and the strict unknown-key rule is for ctwin's own format only.
//
// Read (LlamaForCausalLM, Mistral, Mixtral, Qwen2, Qwen3, Qwen3-MoE, DeepSeek-V2/V3 names):
//   num_hidden_layers, hidden_size, intermediate_size, num_attention_heads, num_key_value_heads
//   (default: heads), head_dim, vocab_size, tie_word_embeddings (required: class defaults differ),
//   hidden_act (silu → swiglu; gelu* → gelu), attention_bias, model_type (qwen2 → qkv bias),
//   num_local_experts | n_routed_experts | num_experts, num_experts_per_tok,
//   moe_intermediate_size (else intermediate_size, as Mixtral), n_shared_experts,
//   first_k_dense_replace, decoder_sparse_step and mlp_only_layers (only the all-MoE layout),
//   q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, sliding_window
//   (unless use_sliding_window is false) and layer_types (GPT-OSS: sliding/full alternating).
// Assumed for these families: RMSNorm, rotary positions, no dropout.

#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/workload/model_spec.hpp"

namespace ctwin::workload {

/// Errors name `source` and the JSON pointer of the missing or bad key.
[[nodiscard]] ModelSpec parse_hf_config(const nlohmann::json& document, const std::string& source);

}  // namespace ctwin::workload

// Model files: ctwin's format read strictly (errors name file and pointer), Hugging Face configs
// read leniently but mapped to the same architecture as the bundled file of that model.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/workload/hf_config.hpp"
#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parameter_count.hpp"
#include "test_models.hpp"

namespace {

using namespace ctwin::workload;
using ctwin::InputError;
using ctwin::workload::testing::bundled;

nlohmann::json bundled_json(const std::string& name) {
  return ctwin::load_json_file(std::string(CTWIN_SOURCE_DIR) + "/models/llm/" + name + ".json");
}

std::string error_of(const nlohmann::json& doc) {
  try {
    (void)parse_model_spec(doc, "m.json");
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.message();
  }
  return "accepted";
}

TEST(ModelSpec, EveryBundledModelLoadsWithSources) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CTWIN_SOURCE_DIR) + "/models/llm")) {
    if (entry.path().extension() != ".json") continue;
    const auto model = load_model_spec(entry.path());
    EXPECT_FALSE(model.sources.empty()) << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 12);
}

TEST(ModelSpec, StrictAboutKeys) {
  auto doc = bundled_json("llama3-8b");
  doc["hidden_size"] = 4096;
  EXPECT_EQ(error_of(doc), "/hidden_size: unknown field");
  auto moe = bundled_json("mixtral-8x7b");
  moe["moe"]["capacity_factor"] = 1.25;
  EXPECT_EQ(error_of(moe), "/moe/capacity_factor: a run setting, not the model's: give it as the scenario's moe_runtime.capacity_factor");
  auto missing = bundled_json("llama3-8b");
  missing.erase("kv_heads");
  EXPECT_EQ(error_of(missing), "/kv_heads: missing required field");
}

TEST(ModelSpec, RejectsInconsistentShapes) {
  auto doc = bundled_json("llama3-8b");
  doc["kv_heads"] = 5;
  EXPECT_NE(error_of(doc).find("/kv_heads: 5 does not divide 32"), std::string::npos) << error_of(doc);
  auto act = bundled_json("llama3-8b");
  act["activation"] = "relu";
  EXPECT_NE(error_of(act).find("/activation: unknown value 'relu'"), std::string::npos);
  auto mha = bundled_json("llama3-8b");
  mha["attention"] = {{"kind", "mha"}};
  EXPECT_NE(error_of(mha).find("/attention/kind: mha needs kv_heads == heads"), std::string::npos);
  auto pos = bundled_json("llama3-8b");
  pos["max_positions"] = 8192;
  EXPECT_NE(error_of(pos).find("/max_positions: only a learned"), std::string::npos);
}

// GPT-OSS: windowed layers first, every second layer global (Megatron's window_attn_skip_freq 2,
// Hugging Face's layer_types sliding/full alternating from layer 0).
TEST(ModelSpec, SlidingWindowLayers) {
  const auto oss = bundled("gpt-oss-120b");
  EXPECT_EQ(oss.sliding_window, 128);
  for (std::int64_t layer = 0; layer < oss.layers; ++layer) {
    EXPECT_EQ(oss.attention_window(layer), layer % 2 == 0 ? 128 : 0) << layer;
  }
  auto every = bundled_json("gpt-oss-120b");
  every["attention"].erase("global_every");
  const auto all = parse_model_spec(every, "m.json");
  EXPECT_EQ(all.attention_window(1), 128);
  EXPECT_EQ(bundled("llama3-8b").attention_window(0), 0);
  auto orphan = bundled_json("llama3-8b");
  orphan["attention"] = {{"kind", "gqa"}, {"global_every", 2}};
  EXPECT_EQ(error_of(orphan), "/attention/global_every: only meaningful with a sliding_window");
  auto zero = bundled_json("gpt-oss-120b");
  zero["attention"]["sliding_window"] = 0;
  EXPECT_NE(error_of(zero).find("/attention/sliding_window"), std::string::npos) << error_of(zero);
}

TEST(HfConfig, LlamaConfigMatchesTheBundledFile) {
  // meta-llama/Llama-3.1-8B config.json, performance-relevant keys plus a few it ignores.
  const auto hf = nlohmann::json::parse(R"({
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "vocab_size": 128256, "tie_word_embeddings": false, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
    "max_position_embeddings": 131072, "bos_token_id": 128000, "torch_dtype": "bfloat16"})");
  ASSERT_TRUE(is_hf_config(hf));
  const auto model = parse_hf_config(hf, "config.json");
  EXPECT_EQ(count_parameters(model).total, count_parameters(bundled("llama3-8b")).total);
  EXPECT_EQ(model.attention, AttentionKind::kGqa);
}

TEST(HfConfig, DeepSeekAndQwenMoeNames) {
  const auto deepseek = nlohmann::json::parse(R"({
    "model_type": "deepseek_v3", "hidden_act": "silu", "hidden_size": 7168, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
    "first_k_dense_replace": 3, "num_attention_heads": 128, "num_key_value_heads": 128, "num_hidden_layers": 61,
    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "vocab_size": 129280, "tie_word_embeddings": false, "routed_scaling_factor": 2.5, "n_group": 8})");
  const auto d = parse_hf_config(deepseek, "config.json");
  EXPECT_EQ(d.attention, AttentionKind::kMla);
  EXPECT_EQ(count_parameters(d).total, count_parameters(bundled("deepseek-v3")).total);
  EXPECT_EQ(count_parameters(d).active, count_parameters(bundled("deepseek-v3")).active);

  const auto qwen = nlohmann::json::parse(R"({
    "model_type": "qwen3_moe", "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 12288,
    "moe_intermediate_size": 1536, "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
    "mlp_only_layers": [], "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128,
    "num_hidden_layers": 94, "vocab_size": 151936, "tie_word_embeddings": false})");
  EXPECT_EQ(count_parameters(parse_hf_config(qwen, "config.json")).total, count_parameters(bundled("qwen3-moe")).total);
}

TEST(HfConfig, SlidingWindowFromLayerTypes) {
  nlohmann::json oss = {{"model_type", "gpt_oss"}, {"num_hidden_layers", 36}, {"hidden_size", 2880},
                        {"intermediate_size", 2880}, {"num_attention_heads", 64}, {"num_key_value_heads", 8},
                        {"head_dim", 64}, {"vocab_size", 201088}, {"tie_word_embeddings", false},
                        {"num_local_experts", 128}, {"num_experts_per_tok", 4}, {"sliding_window", 128}};
  nlohmann::json types = nlohmann::json::array();
  for (int layer = 0; layer < 36; ++layer) types.push_back(layer % 2 == 0 ? "sliding_attention" : "full_attention");
  oss["layer_types"] = types;
  const auto model = parse_hf_config(oss, "config.json");
  const auto bundled_oss = bundled("gpt-oss-120b");
  for (std::int64_t layer = 0; layer < 36; ++layer) {
    EXPECT_EQ(model.attention_window(layer), bundled_oss.attention_window(layer)) << layer;
  }
  // Qwen keeps a window size it does not use.
  auto unused = oss;
  unused.erase("layer_types");
  unused["use_sliding_window"] = false;
  EXPECT_EQ(parse_hf_config(unused, "config.json").attention_window(0), 0);
  auto odd = oss;
  odd["layer_types"][3] = "sliding_attention";
  try {
    (void)parse_hf_config(odd, "config.json");
    ADD_FAILURE() << "accepted an irregular layer_types";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/layer_types");
  }
}

TEST(HfConfig, NamesTheMissingKey) {
  const auto hf = nlohmann::json::parse(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "intermediate_size": 11008, "num_attention_heads": 32, "vocab_size": 32000})");
  try {
    (void)parse_hf_config(hf, "config.json");
    FAIL() << "accepted without tie_word_embeddings";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "config.json");
    EXPECT_EQ(e.pointer(), "/tie_word_embeddings");
  }
}

}  // namespace

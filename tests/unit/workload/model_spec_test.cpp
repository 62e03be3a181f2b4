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
  EXPECT_EQ(files, 11);
}

TEST(ModelSpec, StrictAboutKeys) {
  auto doc = bundled_json("llama3-8b");
  doc["hidden_size"] = 4096;
  EXPECT_EQ(error_of(doc), "/hidden_size: unknown field");
  auto moe = bundled_json("mixtral-8x7b");
  moe["moe"]["capacity_factor"] = 1.25;
  EXPECT_EQ(error_of(moe), "/moe/capacity_factor: token dropping is not modelled (ctwin assumes dropless, balanced routing)");
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

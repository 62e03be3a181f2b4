// Split validation: each of Megatron-LM's rules rejects a split that breaks it, with the field
// named (scenario JSON pointer or flag) and the reason; valid published splits pass.

#include <gtest/gtest.h>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/workload/parallel_config.hpp"
#include "test_models.hpp"

namespace {

using namespace ctwin::workload;
using ctwin::InputError;
using ctwin::workload::testing::bundled;

ParallelConfig split(std::int64_t tp, std::int64_t pp, std::int64_t global_batch, std::int64_t seq = 8192) {
  ParallelConfig s;
  s.origin.source = "scenario.json";
  s.tp = tp;
  s.pp = pp;
  s.global_batch = global_batch;
  s.seq_len = seq;
  return s;
}

// The InputError validate() throws, as "source|pointer|message".
std::string rejection(const ModelSpec& model, const ParallelConfig& s, std::int64_t gpus) {
  try {
    validate(model, s, gpus);
  } catch (const InputError& e) {
    return e.source() + "|" + e.pointer() + "|" + e.message();
  }
  return "accepted";
}

::testing::AssertionResult rejected(const std::string& outcome, const std::string& pointer, const std::string& why) {
  if (outcome.find("scenario.json|" + pointer + "|") == 0 && outcome.find(why) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << pointer << " / '" << why << "', got " << outcome;
}

TEST(ParallelConfig, PublishedSplitsAreValid) {
  // NeMo 24.07 Llama 3 70B on 64 H100: tp 4, pp 4, cp 2, vp 5, micro 1, global 128 (training_runs.json).
  auto s = split(4, 4, 128);
  s.cp = 2;
  s.vpp = 5;
  s.schedule = PipelineSchedule::kInterleaved;
  s.sequence_parallel = true;
  EXPECT_EQ(rejection(bundled("llama3-70b"), s, 64), "accepted");
  EXPECT_EQ(s.data_parallel(64), 2);
  EXPECT_EQ(s.micro_batches(64), 64);
  // Mixtral with EP 8 folded over the 8 data-parallel ranks of tp 1 on 8 GPUs.
  auto m = split(1, 1, 8, 4096);
  m.ep = 8;
  EXPECT_EQ(rejection(bundled("mixtral-8x7b"), m, 8), "accepted");
  EXPECT_EQ(m.expert_data_parallel(8), 1);
}

TEST(ParallelConfig, TensorParallelMustDivideHeadsAndKvHeads) {
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), split(3, 1, 8), 3), "/parallel/tp", "does not divide heads 32"));
  // 8 KV heads cannot be split 16 ways (Megatron does not replicate query groups).
  EXPECT_TRUE(rejected(rejection(bundled("llama3-70b"), split(16, 1, 8), 16), "/parallel/tp", "kv_heads 8"));
}

TEST(ParallelConfig, PipelineMustDivideLayers) {
  // DeepSeek-V3's 61 layers: an even split over 16 stages does not exist.
  EXPECT_TRUE(rejected(rejection(bundled("deepseek-v3"), split(1, 16, 16), 16), "/parallel/pp", "layers"));
  auto s = split(1, 4, 16);
  s.vpp = 3;  // 80 layers over 4·3 chunks
  s.schedule = PipelineSchedule::kInterleaved;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-70b"), s, 4), "/parallel/vpp", "does not divide layers"));
}

TEST(ParallelConfig, GpusMustBeAMultipleOfTheModelParallelRanks) {
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), split(8, 1, 8), 12), "/gpus", "not a multiple of tp·pp·cp = 8"));
  auto s = split(8, 1, 8);
  s.dp = 2;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), s, 8), "/parallel/dp", "16 but there are 8 GPUs"));
}

TEST(ParallelConfig, ExpertRules) {
  auto s = split(1, 1, 64, 4096);
  s.ep = 3;
  EXPECT_TRUE(rejected(rejection(bundled("mixtral-8x7b"), s, 8), "/parallel/ep", "does not divide experts 8"));
  s.ep = 8;
  s.expert_tp = 2;  // 16 expert ranks on 8 GPUs
  EXPECT_TRUE(rejected(rejection(bundled("mixtral-8x7b"), s, 8), "/parallel/ep", "does not divide tp·cp·dp 8"));
  auto dense = split(1, 1, 8);
  dense.ep = 2;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), dense, 8), "/parallel/ep", "dense"));
  auto no_sp = split(2, 1, 8, 4096);
  EXPECT_TRUE(rejected(rejection(bundled("mixtral-8x7b"), no_sp, 8), "/parallel/sequence_parallel", "MoE"));
}

TEST(ParallelConfig, BatchMustSplitIntoMicroBatchesPerReplica) {
  auto s = split(1, 1, 12);
  s.micro_batch = 2;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), s, 8), "/training/global_batch", "micro_batch·dp = 16"));
}

TEST(ParallelConfig, ContextParallelNeedsTwoChunksPerRank) {
  auto s = split(1, 1, 8, 8190);
  s.cp = 2;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), s, 8), "/training/seq_len", "2·cp 4"));
}

TEST(ParallelConfig, SlidingWindowNeedsOneContextRankAndAFusedKernel) {
  const auto oss = bundled("gpt-oss-120b");
  auto cp = split(1, 1, 8, 8192);
  cp.cp = 2;
  EXPECT_TRUE(rejected(rejection(oss, cp, 16), "/parallel/cp", "sliding-window"));
  auto unfused = split(1, 1, 8, 8192);
  unfused.flash_attention = false;
  EXPECT_TRUE(rejected(rejection(oss, unfused, 8), "/training/attention", "fused kernel"));
  EXPECT_EQ(rejection(oss, split(1, 1, 8, 8192), 8), "accepted");
}

TEST(ParallelConfig, PipelineLayoutRules) {
  const auto llama = bundled("llama3-8b");  // 32 layers
  auto s = split(1, 2, 8);
  s.vpp = 2;
  s.schedule = PipelineSchedule::kInterleaved;
  s.pipeline_layout = {7, 9, 9, 7};
  EXPECT_EQ(rejection(llama, s, 2), "accepted");
  // Virtual stage v = chunk·pp + rank.
  EXPECT_EQ(s.chunk_layers(32, 0, 1), 9);
  EXPECT_EQ(s.chunk_layers(32, 1, 1), 7);
  EXPECT_EQ(s.chunk_first_layer(32, 1, 0), 7);
  EXPECT_EQ(s.chunk_first_layer(32, 0, 1), 16);
  auto sum = s;
  sum.pipeline_layout = {7, 9, 9, 6};
  EXPECT_TRUE(rejected(rejection(llama, sum, 2), "/parallel/pipeline_layout", "places 31 layers"));
  auto stages = s;
  stages.pipeline_layout = {16, 16};
  EXPECT_TRUE(rejected(rejection(llama, stages, 2), "/parallel/pipeline_layout", "2 stages but pp·vpp = 4"));
  auto both = s;
  both.embedding_in_split = true;
  EXPECT_TRUE(rejected(rejection(llama, both, 2), "/parallel/pipeline_layout", "cannot be combined"));
}

TEST(ParallelConfig, ScheduleRules) {
  auto s = split(1, 4, 6);  // 6 micro-batches over 4 stages
  s.vpp = 2;
  s.schedule = PipelineSchedule::kInterleaved;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), s, 4), "/training/global_batch", "not a multiple of pp 4"));
  s.global_batch = 8;
  EXPECT_EQ(rejection(bundled("llama3-8b"), s, 4), "accepted");
  s.schedule = PipelineSchedule::kOneFOneB;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), s, 4), "/parallel/vpp", "interleaved"));
  auto one = split(1, 1, 8);
  one.vpp = 1;
  one.schedule = PipelineSchedule::kInterleaved;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), one, 8), "/parallel/schedule", "pp > 1"));
}

TEST(ParallelConfig, ZeroRules) {
  auto s = split(1, 2, 8);
  s.zero = 3;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), s, 8), "/parallel/zero", "pp > 1"));
  auto d = split(1, 1, 8);
  d.zero = 2;
  d.distributed_optimizer = true;
  EXPECT_TRUE(rejected(rejection(bundled("llama3-8b"), d, 8), "/parallel/distributed_optimizer", "ZeRO-1"));
}

TEST(ParallelConfig, FlagOriginNamesTheFlag) {
  auto s = split(3, 1, 8);
  s.origin = {"flags", true};
  try {
    validate(bundled("llama3-8b"), s, 3);
    FAIL() << "accepted tp 3";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--tp");
    EXPECT_EQ(e.pointer(), "");
  }
}

TEST(ParallelConfig, ReadsAScenarioStrictly) {
  const auto doc = nlohmann::json::parse(R"({
    "training": {"seq_len": 8192, "global_batch": 512, "micro_batch": 1, "precision": "bf16"},
    "parallel": {"tp": 8, "pp": 4, "vpp": 1, "cp": 1, "ep": 1, "dp": "auto", "sequence_parallel": true,
                 "distributed_optimizer": true, "zero": 1, "recompute": "selective", "schedule": "1f1b"}})");
  const auto s = read_parallel_config(ctwin::JsonObjectReader(doc.at("training"), "s.json", "/training"),
                                      ctwin::JsonObjectReader(doc.at("parallel"), "s.json", "/parallel"));
  EXPECT_EQ(s.tp, 8);
  EXPECT_FALSE(s.dp.has_value());
  EXPECT_EQ(s.recompute, Recompute::kSelective);
  EXPECT_EQ(s.data_parallel(1024), 32);
  EXPECT_EQ(rejection(bundled("llama3-70b"), s, 1024), "accepted");
  auto bad = doc;
  bad["parallel"]["tensor_parallel"] = 8;
  try {
    (void)read_parallel_config(ctwin::JsonObjectReader(bad.at("training"), "s.json", "/training"),
                               ctwin::JsonObjectReader(bad.at("parallel"), "s.json", "/parallel"));
    FAIL() << "unknown key accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/parallel/tensor_parallel");
  }
}

}  // namespace

namespace {

// Megatron-Bridge's Qwen3-235B-A22B recipe counts the embedding and the loss as pipeline layers:
// 94 + 2 = 96 slots over pp 8 × vpp 4 chunks of 3, the first and last chunk one layer short.
TEST(ParallelConfig, EmbeddingAndLossCanTakeALayersSlot) {
  const ModelSpec qwen = bundled("qwen3-moe");
  ParallelConfig s = split(2, 8, 2048, 4096);
  s.vpp = 4;
  s.ep = 32;
  s.sequence_parallel = true;
  s.schedule = PipelineSchedule::kInterleaved;
  const std::int64_t gpus = 256;
  EXPECT_TRUE(rejected(rejection(qwen, s, gpus), "/parallel/vpp", "does not divide layers 94"));
  s.embedding_in_split = true;
  s.loss_in_split = true;
  EXPECT_EQ(rejection(qwen, s, gpus), "accepted");
  std::int64_t next = 0;
  for (std::int64_t g = 0; g < 32; ++g) {
    const std::int64_t chunk = g / 8, stage = g % 8;
    EXPECT_EQ(s.chunk_first_layer(94, stage, chunk), next) << g;
    EXPECT_EQ(s.chunk_layers(94, stage, chunk), g == 0 || g == 31 ? 2 : 3) << g;
    next += s.chunk_layers(94, stage, chunk);
  }
  EXPECT_EQ(next, 94);
  s.loss_in_split = false;
  EXPECT_TRUE(rejected(rejection(qwen, s, gpus), "/parallel/account_for_embedding_in_pipeline_split", "95"));
  s.loss_in_split = true;
  s.vpp = 1;
  s.schedule = PipelineSchedule::kOneFOneB;
  s.first_stage_layers = 11;
  EXPECT_TRUE(rejected(rejection(qwen, s, gpus), "/parallel/account_for_embedding_in_pipeline_split", "first_stage_layers"));
}

}  // namespace

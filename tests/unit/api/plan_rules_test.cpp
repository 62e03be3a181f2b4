// Every rule that removes a split from a plan: one split it must remove and a neighbour it must keep,
// through the planner's enumeration (one candidate each, every axis narrowed).

#include "ctwin/plan/plan_rules.hpp"

#include <gtest/gtest.h>

#include "ctwin/plan/plan_space.hpp"
#include "ctwin/api/scenario.hpp"

namespace ctwin::api {
namespace {

struct Single {
  std::string model = "models/llm/llama3-8b.json";
  std::int64_t gpus = 64;
  std::int64_t global_batch = 128;
  std::int64_t seq_len = 8192;
  bool flash = true;
  std::int64_t tp = 2, pp = 1, cp = 1, ep = 1, vpp = 1, micro = 1;
  bool accounting = false;
  workload::Recompute recompute = workload::Recompute::kSelective;
  OptimizerChoice optimizer{1, true};
};

// The rule that removed the one candidate `c` describes; empty when it survived.
std::string rule_for(const Single& c) {
  const auto resolved = Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json")
                            .with("model", c.model)
                            .with("gpus", 1)
                            .with("training.global_batch", 1)
                            .with("training.seq_len", c.seq_len)
                            .with("training.attention", c.flash ? "flash" : "unfused")
                            .with("parallel", nlohmann::json::object())
                            .resolve();
  workload::ParallelConfig training = resolved.split;
  training.global_batch = c.global_batch;
  PlanAxes axes;
  axes.tp = {c.tp};
  axes.pp = {c.pp};
  axes.cp = {c.cp};
  axes.ep = {c.ep};
  axes.pipeline_accounting = {c.accounting};
  axes.schedule = {c.vpp > 1 || c.pp == 0 ? workload::PipelineSchedule::kInterleaved : workload::PipelineSchedule::kOneFOneB};
  axes.vpp = {c.vpp};
  axes.micro_batch = {c.micro};
  axes.recompute = {c.recompute};
  axes.optimizer = {c.optimizer};
  const PlanSpace space = enumerate_plan_space({resolved.model, resolved.cluster, resolved.gpu, c.gpus, training}, axes);
  EXPECT_EQ(space.enumerated, 1);
  EXPECT_EQ(space.rules.total() + static_cast<std::int64_t>(space.survivors.size()), 1);
  if (!space.survivors.empty()) return "";
  return space.rules.last_removing()->rule;
}

template <typename Change>
Single with(Change change) {
  Single c;
  change(c);
  return c;
}

TEST(PlanRules, BaselineSurvives) { EXPECT_EQ(rule_for(Single{}), ""); }

TEST(PlanRules, NvlinkDomain) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.tp = 16; })), "nvlink");  // 8 GPUs per DGX H100
  EXPECT_EQ(rule_for(with([](Single& c) { c.tp = 8; })), "");
}

TEST(PlanRules, GpusDividedByModelParallelism) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.tp = 2, c.pp = 2, c.cp = 1, c.gpus = 66; })), "gpus");
  EXPECT_EQ(rule_for(with([](Single& c) { c.tp = 2, c.pp = 2, c.gpus = 68, c.global_batch = 136; })), "");
}

TEST(PlanRules, TensorParallelDividesHeads) {
  // Llama 3 8B: 32 heads, 8 KV heads; tp 3 of 63 GPUs passes the GPU rule and fails the heads.
  EXPECT_EQ(rule_for(with([](Single& c) { c.tp = 3, c.gpus = 63, c.global_batch = 21; })), "parallel.tp");
  EXPECT_EQ(rule_for(with([](Single& c) { c.tp = 4, c.gpus = 64; })), "");
}

TEST(PlanRules, ExpertParallelDividesExperts) {
  // Qwen3 30B-A3B: 128 experts; ep 3 does not divide them.
  EXPECT_EQ(rule_for(with([](Single& c) { c.model = "models/llm/qwen3-30b-a3b.json", c.seq_len = 4096, c.ep = 3, c.gpus = 48, c.global_batch = 48; })),
            "parallel.ep");
  EXPECT_EQ(rule_for(with([](Single& c) { c.model = "models/llm/qwen3-30b-a3b.json", c.seq_len = 4096, c.ep = 8, c.gpus = 64; })), "");
}

TEST(PlanRules, ContextParallelSplitsTheSequence) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.cp = 16, c.seq_len = 8200, c.global_batch = 4; })), "training.seq_len");
  EXPECT_EQ(rule_for(with([](Single& c) { c.cp = 16, c.global_batch = 4; })), "");
}

TEST(PlanRules, ContextParallelNeedsFusedAttention) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.cp = 2, c.flash = false; })), "training.attention");
  EXPECT_EQ(rule_for(with([](Single& c) { c.cp = 1, c.flash = false, c.recompute = workload::Recompute::kFull; })), "");
}

TEST(PlanRules, ZeroTwoAndThreeWithoutPipeline) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 2, c.optimizer = {3, false}; })), "parallel.zero");
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 1, c.optimizer = {3, false}; })), "");
}

TEST(PlanRules, GlobalBatchSplitsIntoMicroBatches) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.micro = 8, c.global_batch = 128; })), "training.global_batch");  // 8·dp 32 > 128
  EXPECT_EQ(rule_for(with([](Single& c) { c.micro = 2, c.global_batch = 128; })), "");
}

TEST(PlanRules, InterleavedMicroBatchesMultipleOfPp) {
  // tp 2, pp 4, dp 8: 128 sequences are 8 micro-batches of 2 (a multiple of pp) but 2 of 8.
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 4, c.vpp = 2, c.micro = 8; })), "training.global_batch");
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 4, c.vpp = 2, c.micro = 2; })), "");
}

TEST(PlanRules, InterleavedNeedsPipeline) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 1, c.vpp = 2; })), "parallel.schedule");
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 2, c.vpp = 2; })), "");
}

TEST(PlanRules, LayersDivideIntoChunks) {
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 2, c.vpp = 3; })), "parallel.vpp");  // 32 layers, 6 chunks
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 2, c.vpp = 4; })), "");
}

TEST(PlanRules, LayersDivideOverStages) {
  // Llama 3 405B: 126 layers over 16 stages do not divide; with the embedding and loss slots (128) they do.
  const auto big = [](Single& c) {
    c.model = "models/llm/llama3-405b.json", c.tp = 8, c.pp = 16, c.gpus = 16384, c.global_batch = 2048;
    c.recompute = workload::Recompute::kFull;
  };
  EXPECT_EQ(rule_for(with([&](Single& c) { big(c); })), "parallel.pp");
  EXPECT_EQ(rule_for(with([&](Single& c) { big(c), c.accounting = true; })), "");
}

TEST(PlanRules, EmbeddingAndLossSlotsDivideIntoChunks) {
  // Llama 3 8B: 32 layers + 2 slots = 34 do not split over 4 stages; 32 alone do.
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 4, c.accounting = true; })), "parallel.account_for_embedding_in_pipeline_split");
  EXPECT_EQ(rule_for(with([](Single& c) { c.pp = 2, c.accounting = true; })), "");
}

TEST(PlanRules, MemoryFitsTheGpu) {
  // Llama 3 70B on 8 GPUs without any sharding holds 16+ bytes per parameter per GPU: far beyond 80 GB.
  const auto seventy = [](Single& c) { c.model = "models/llm/llama3-70b.json", c.gpus = 64, c.global_batch = 64; };
  EXPECT_EQ(rule_for(with([&](Single& c) { seventy(c), c.tp = 1, c.optimizer = {0, false}; })), "memory");
  EXPECT_EQ(rule_for(with([&](Single& c) { seventy(c), c.tp = 8, c.pp = 4, c.recompute = workload::Recompute::kFull; })), "");
}

TEST(PlanRules, CountsKeepTheirOrderAndSumOnMerge) {
  RuleCounts a, b;
  a.add("memory", 3, "m");
  a.add("gpus", 2, "g");
  b.add("gpus", 5, "g2");
  b.add("some.new_check", 1, "n");
  a.merge(b);
  EXPECT_EQ(a.total(), 11);
  EXPECT_EQ(a.last_removing()->rule, "memory");
  std::vector<std::string> order;
  for (const auto& r : a.rules()) {
    if (r.removed > 0) order.push_back(r.rule);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"gpus", "some.new_check", "memory"}));
  for (const auto& r : a.rules()) {
    if (r.rule == "gpus") {
      EXPECT_EQ(r.example, "g");
    }
  }
}

}  // namespace
}  // namespace ctwin::api

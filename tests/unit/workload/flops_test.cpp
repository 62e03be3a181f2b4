// FLOPs per step against the closed forms of Narayanan et al. SC'21 (§5.1) and Korthikanti et al.
// 2022, and against published throughput figures whose FLOPs were computed by those formulas:
// BLOOM's logged TFLOP/s from its iteration time, NeMo's model TFLOP/s from its tokens/s.

#include <gtest/gtest.h>

#include "ctwin/workload/flops.hpp"
#include "test_models.hpp"
#include "training_runs.hpp"

namespace {

using namespace ctwin::workload;
using ctwin::workload::testing::bundled;
using ctwin::workload::testing::megatron_gpt;
using ctwin::workload::testing::training_run;
using ctwin::workload::testing::megatron_table_one;

ParallelConfig batch(std::int64_t global_batch, std::int64_t seq, Recompute recompute) {
  ParallelConfig split;
  split.global_batch = global_batch;
  split.seq_len = seq;
  split.recompute = recompute;
  return split;
}

TEST(Flops, GptMatchesTheSc21ClosedFormsForEveryTableOneRow) {
  int rows = 0;
  for (const auto& [run, model] : megatron_table_one()) {
    const auto& m = run.at("model");
    const double B = run.at("parallel").at("global_batch");
    const double s = m.at("seq_len");
    const double l = model.layers;
    const double h = model.hidden;
    const double V = model.vocab;
    const double base = B * s * l * h * h;
    // SC'21 eq. 3, full recompute: 96Bslh²(1 + s/(6h) + V/(16lh)).
    const double full = 96 * base * (1 + s / (6 * h) + V / (16 * l * h));
    // Without recompute the logits term keeps its three passes: 72Bslh²(1 + s/(6h) + V/(12lh)).
    const double none = 72 * base * (1 + s / (6 * h) + V / (12 * l * h));
    // Korthikanti et al.: selective recompute repeats the attention core forward, 4Bs²hl.
    const double selective = none + 4 * B * s * s * h * l;
    const auto split = batch(static_cast<std::int64_t>(B), static_cast<std::int64_t>(s), Recompute::kFull);
    EXPECT_NEAR(step_flops(model, split).hardware.count() / full, 1.0, 1e-12) << run.at("id");
    EXPECT_NEAR(step_flops(model, split).model.count() / none, 1.0, 1e-12) << run.at("id");
    auto sel = split;
    sel.recompute = Recompute::kSelective;
    EXPECT_NEAR(step_flops(model, sel).hardware.count() / selective, 1.0, 1e-12) << run.at("id");
    ++rows;
  }
  EXPECT_EQ(rows, 10);
}

TEST(Flops, ReproducesBloomLoggedTflopsFromItsIterationTime) {
  // BLOOM 176B (bigscience tr11): 384 A100s, 104.7 s per iteration of 2048 × 2048 tokens, logged
  // 149.77 TFLOP/s with the full-recompute coefficient (4·2·… in their formula).
  const auto& run = training_run("bloom-176b-384gpu");
  const auto& m = run.at("model");
  ModelSpec model = megatron_gpt(m.at("layers"), m.at("hidden"), m.at("heads"), m.at("vocab"));
  model.position = PositionEmbedding::kAlibi;
  model.max_positions = 0;
  const auto split = batch(run.at("parallel").at("global_batch"), m.at("seq_len"), Recompute::kFull);
  const double gpus = run.at("hardware").at("num_gpus");
  const double seconds = run.at("measured").at("iteration_time_s");
  const double tflops = step_flops(model, split).hardware.count() / (seconds * gpus) * 1e-12;
  EXPECT_NEAR(tflops, run.at("measured").at("tflops_per_gpu").get<double>(), 0.01);
}

TEST(Flops, ReproducesNemoModelTflopsFromTokensPerSecond) {
  // NeMo 24.07 reports model TFLOP/s per GPU = tokens/s per GPU × model FLOPs per token, with the
  // whole s×s attention matrix counted. The table prints three digits: 0.5% tolerance.
  const struct {
    const char* run;
    const char* model;
    std::int64_t seq;
  } cases[] = {
      {"nemo2407-llama3-8b-8gpu", "llama3-8b", 8192},   {"nemo2407-llama3-70b-64gpu", "llama3-70b", 8192},
      {"nemo2407-llama2-7b-8gpu", "llama2-7b", 4096},   {"nemo2407-llama2-70b-64gpu", "llama2-70b", 4096},
      {"nemo2407-gpt3-175b-128gpu", "gpt3-175b", 2048},
  };
  for (const auto& c : cases) {
    const auto& measured = training_run(c.run).at("measured");
    const double per_token = step_flops(bundled(c.model), batch(1, c.seq, Recompute::kNone)).model_per_token;
    const double tflops = per_token * measured.at("tokens_per_s_per_gpu").get<double>() * 1e-12;
    EXPECT_NEAR(tflops / measured.at("model_tflops_per_gpu").get<double>(), 1.0, 0.005) << c.run << ": " << tflops;
  }
}

TEST(Flops, CausalMaskHalvesOnlyTheAttentionCore) {
  const auto model = bundled("llama3-8b");
  const auto full = forward_flops_per_token(model, 8192, AttentionMask::kFull);
  const auto causal = forward_flops_per_token(model, 8192, AttentionMask::kCausal);
  EXPECT_DOUBLE_EQ(causal.attention_core * 2, full.attention_core);
  EXPECT_DOUBLE_EQ(causal.layer_gemm, full.layer_gemm);
  // 2·s·a·(d + d) per layer: 2·8192·32·256·32 layers.
  EXPECT_DOUBLE_EQ(full.attention_core, 2.0 * 8192 * 32 * 256 * 32);
}

// GPT-OSS at 4,096 tokens: 18 global layers see s keys (half under the causal mask) and 18 windowed
// layers 128 of them, W/s − (W/s)²/2 of the full count under the mask.
TEST(Flops, SlidingWindowLayersCountTheirBand) {
  const auto oss = bundled("gpt-oss-120b");
  const double per_layer = 2.0 * 4096 * 64 * (64 + 64);
  const double w = 128.0 / 4096;
  const auto full = forward_flops_per_token(oss, 4096, AttentionMask::kFull);
  EXPECT_DOUBLE_EQ(full.attention_core, 18 * per_layer + 18 * per_layer * w);
  const auto causal = forward_flops_per_token(oss, 4096, AttentionMask::kCausal);
  EXPECT_DOUBLE_EQ(causal.attention_core, 18 * per_layer * 0.5 + 18 * per_layer * (w - w * w / 2));
  // Shorter than the window, windowed layers are ordinary ones.
  EXPECT_DOUBLE_EQ(forward_flops_per_token(oss, 128, AttentionMask::kFull).attention_core,
                   36 * 2.0 * 128 * 64 * 128);
}

TEST(Flops, MoeCountsOnlyActiveExperts) {
  // Dense-equivalent rule of thumb: GEMM FLOPs per token = 2 × active non-embedding parameters.
  const auto model = bundled("mixtral-8x7b");
  const auto f = forward_flops_per_token(model, 4096);
  const double router = 2.0 * 32 * 4096 * 8;
  const double active_gemm = 32.0 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 2 * 3 * 4096 * 14336.0);
  EXPECT_DOUBLE_EQ(f.layer_gemm, 2 * active_gemm + router);
}

}  // namespace

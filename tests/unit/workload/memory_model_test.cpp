// Memory model against published closed forms and worked numbers: Korthikanti et al. 2022 Table 2
// per-layer activations for GPT-3 175B and MT-NLG 530B, Megatron-LM's theoretical_memory_usage
// for a whole first stage, the ZeRO paper's Figure 1 example, Megatron's 18 / 6 + 12/d bytes per
// parameter.

#include <gtest/gtest.h>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/workload/activation_memory.hpp"
#include "ctwin/workload/memory_model.hpp"
#include "ctwin/workload/parameter_count.hpp"
#include "test_models.hpp"

namespace {

using namespace ctwin::workload;
using ctwin::workload::testing::bundled;
using ctwin::workload::testing::megatron_gpt;

struct KorthikantiCase {
  const char* name;
  std::int64_t layers, hidden, heads;
  double five_as_over_h;  // the paper's worked ratio 5as/h (§4: 80 for GPT-3, 64 for MT-NLG)
};

const KorthikantiCase kKorthikantiCases[] = {{"GPT-3 175B", 96, 12288, 96, 80}, {"MT-NLG 530B", 105, 20480, 128, 64}};

ParallelConfig tp_split(std::int64_t t, bool sp, Recompute recompute) {
  ParallelConfig s;
  s.tp = t;
  s.sequence_parallel = sp;
  s.recompute = recompute;
  s.seq_len = 2048;
  s.micro_batch = 1;
  return s;
}

TEST(ActivationMemory, KorthikantiTableTwoForGpt3AndMtNlg) {
  for (const auto& c : kKorthikantiCases) {
    const auto model = megatron_gpt(c.layers, c.hidden, c.heads);
    const double sbh = 2048.0 * 1 * static_cast<double>(c.hidden);
    const double r = 5.0 * static_cast<double>(c.heads) * 2048 / static_cast<double>(c.hidden);
    ASSERT_DOUBLE_EQ(r, c.five_as_over_h) << c.name;
    const double t = 8;
    auto bytes = [&](std::int64_t tp, bool sp, Recompute rc) {
      return layer_activation_bytes(model, tp_split(tp, sp, rc), LayerKind::kDense, /*flash_attention=*/false);
    };
    EXPECT_DOUBLE_EQ(bytes(1, false, Recompute::kNone), sbh * (34 + r)) << c.name << " eq. 1";
    EXPECT_DOUBLE_EQ(bytes(8, false, Recompute::kNone), sbh * (10 + 24 / t + r / t)) << c.name << " eq. 2";
    EXPECT_DOUBLE_EQ(bytes(8, true, Recompute::kNone), sbh / t * (34 + r)) << c.name << " eq. 3";
    EXPECT_DOUBLE_EQ(bytes(8, false, Recompute::kSelective), sbh * (10 + 24 / t)) << c.name << " TP + selective";
    EXPECT_DOUBLE_EQ(bytes(8, true, Recompute::kSelective), sbh * 34 / t) << c.name << " TP + SP + selective";
    EXPECT_DOUBLE_EQ(bytes(8, false, Recompute::kFull), 2 * sbh) << c.name << " full";
    // §4.2: selective recompute drops the 5as/h share: 80/114 = 70% for GPT-3, 64/98 = 65% for MT-NLG.
    const double saved = 1 - bytes(1, false, Recompute::kSelective) / bytes(1, false, Recompute::kNone);
    EXPECT_NEAR(saved, c.five_as_over_h == 80 ? 0.70 : 0.65, 0.005) << c.name;
  }
}

TEST(ActivationMemory, Fp8KeepsGemmInputsInOneByte) {
  // GPT layer: the QKV, projection and first MLP inputs (2sbh each) and the second MLP GEMM's
  // input (8sbh) are saved as fp8, so 34sbh becomes 34 − (1 + 1 + 1 + 4) = 27sbh; with TP and SP
  // the replicated QKV and MLP inputs are sharded like the rest.
  for (const auto& c : kKorthikantiCases) {
    const auto model = megatron_gpt(c.layers, c.hidden, c.heads);
    const double sbh = 2048.0 * 1 * static_cast<double>(c.hidden);
    for (const auto& [tp, sp] : {std::pair<std::int64_t, bool>{1, false}, {8, true}}) {
      auto split = tp_split(tp, sp, Recompute::kSelective);
      split.precision = Precision::kFp8;
      EXPECT_DOUBLE_EQ(layer_activation_bytes(model, split, LayerKind::kDense, false), sbh * 27 / static_cast<double>(tp))
          << c.name << " tp " << tp;
      split.recompute = Recompute::kFull;
      EXPECT_DOUBLE_EQ(layer_activation_bytes(model, split, LayerKind::kDense, false), 2 * sbh / static_cast<double>(tp))
          << c.name << " full recompute keeps the 16-bit layer input";
    }
  }
}

TEST(MemoryModel, FirstStageActivationsMatchMegatronTheoreticalMemory) {
  // Megatron-LM megatron/training/theoretical_memory_usage.py (SP + selective): per layer
  // sbh(18 + 4·ffn/h), × L layers (p micro-batches in flight of L/p layers), + 8sbp token ids +
  // sbhp embedding dropout, all / t; interleaving multiplies by 1 + (p−1)/(p·v). It divides the
  // token ids by t too, where ctwin keeps them whole on each rank: 7/8 of 8sbp apart, 115 kB.
  const auto model = megatron_gpt(96, 12288, 96);
  for (const std::int64_t vpp : {1, 3}) {
    ParallelConfig s = tp_split(8, true, Recompute::kSelective);
    s.pp = 8;
    s.vpp = vpp;
    s.schedule = vpp > 1 ? PipelineSchedule::kInterleaved : PipelineSchedule::kOneFOneB;
    s.global_batch = 128;  // 16 micro-batches per pipeline: enough that warm-up, not m, limits what is held
    const double sbh = 2048.0 * 12288;
    double megatron = (sbh * 34 * 96 + 8 * 2048.0 * 8 + sbh * 8) / 8;
    if (vpp > 1) megatron *= 1 + 7.0 / (8.0 * 3);
    ctwin::workload::MemoryOptions options;
    options.flash_attention = false;
    const auto memory = memory_per_gpu(model, s, 8 * 8 * 8, options);
    ASSERT_EQ(memory.stage, 0);
    const double ours = static_cast<double>(memory.activations.count());
    // Interleaving also scales the embedding buffers in Megatron's formula; ctwin holds whole micro-batches.
    EXPECT_NEAR(ours / megatron, 1.0, vpp > 1 ? 5e-4 : 2e-5) << "vpp " << vpp;
    EXPECT_DOUBLE_EQ(memory.in_flight, vpp > 1 ? 8 * (1 + 7.0 / 24) : 8);
  }
}

TEST(MemoryModel, ZeroPaperFigureOneExample) {
  // Rajbhandari et al., ZeRO (SC'20), Figure 1: Ψ = 7.5B, N_d = 64, K = 12, fp16 gradients:
  // baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB.
  const double psi = 7.5e9;
  const double expected[] = {120, 31.4, 16.6, 1.9};
  for (int stage = 0; stage <= 3; ++stage) {
    const double gb = model_state_bytes(psi, 64, stage, /*fp32_gradients=*/false).total() * 1e-9;
    EXPECT_NEAR(gb, expected[stage], 0.05) << "ZeRO stage " << stage;
  }
  EXPECT_DOUBLE_EQ(model_state_bytes(1, 1, 0, false).total(), 16);  // 2 + 2 + 12 bytes per parameter
}

TEST(MemoryModel, MegatronBytesPerParameter) {
  // theoretical_memory_usage.py: 18 bytes per parameter, 6 + 12/dp with the distributed optimizer.
  EXPECT_DOUBLE_EQ(model_state_bytes(1, 8, 0, true).total(), 18);
  EXPECT_DOUBLE_EQ(model_state_bytes(1, 8, 1, true).total(), 6 + 12.0 / 8);
}

TEST(MemoryModel, ShardingDividesModelStatesOfARealModel) {
  const auto model = bundled("llama2-7b");
  const double params = static_cast<double>(count_parameters(model).total);
  ParallelConfig s;
  s.seq_len = 4096;
  s.global_batch = 8;
  for (int zero = 0; zero <= 3; ++zero) {
    s.zero = zero;
    const auto m = memory_per_gpu(model, s, 8, {.fp32_gradients = false});
    const double weights = zero >= 3 ? 2 * params / 8 : 2 * params;
    const double grads = zero >= 2 ? 2 * params / 8 : 2 * params;
    const double optimizer = zero >= 1 ? 12 * params / 8 : 12 * params;
    EXPECT_NEAR(static_cast<double>(m.optimizer.count()), optimizer, 1) << zero;
    EXPECT_NEAR(static_cast<double>(m.gradients.count()), grads, 1) << zero;
    // ZeRO-3 adds two gathered layers (attention, MLP, norms: 202,383,360 parameters each) in bf16.
    const double gathered = zero == 3 ? 2 * 2 * 202383360.0 : 0;
    EXPECT_NEAR(static_cast<double>(m.weights.count()), weights + gathered, 1) << zero;
  }
}

// With the embedding and the loss taking a layer's slot, the first stage holds one layer fewer
// than the second but one more micro-batch in flight: 7 layers x 16 < 8 layers x 15 under 1F1B on
// 16 stages, so the second stage is the one that must fit.
TEST(MemoryModel, TheWorstStageIsFoundAmongAllStages) {
  ParallelConfig s = tp_split(8, true, Recompute::kNone);
  s.seq_len = 8192;
  s.pp = 16;
  s.schedule = PipelineSchedule::kOneFOneB;
  s.embedding_in_split = true;
  s.loss_in_split = true;
  s.global_batch = 64;
  s.distributed_optimizer = true;
  const auto memory = memory_per_gpu(bundled("llama3-405b"), s, 8 * 16);
  EXPECT_EQ(memory.stage, 1);
  EXPECT_DOUBLE_EQ(memory.in_flight, 15.0);
  const auto stages = memory_per_stage(bundled("llama3-405b"), s, 8 * 16);
  ASSERT_EQ(stages.size(), 16u);
  for (std::size_t stage = 0; stage < stages.size(); ++stage) {
    EXPECT_EQ(stages[stage].stage, static_cast<std::int64_t>(stage));
    EXPECT_LE(stages[stage].total(), memory.total());
  }
  EXPECT_EQ(stages[1].total(), memory.total());
  EXPECT_LT(stages[0].total(), memory.total());
}

TEST(MemoryModel, FitsMemoryComparesWithHbm) {
  const auto h100 = ctwin::compute::load_gpu_spec(std::string(CTWIN_SOURCE_DIR) + "/models/gpus/h100-sxm.json");
  ParallelConfig s;
  s.seq_len = 4096;
  s.global_batch = 1;
  // Llama 2 7B on one GPU: 18 B/param alone is 121 GB > 80 GB.
  const auto one = memory_per_gpu(bundled("llama2-7b"), s, 1);
  EXPECT_GT(one.weights.count() + one.gradients.count() + one.optimizer.count(), 120'000'000'000);
  EXPECT_FALSE(fits_memory(one, h100));
  // Over 8 GPUs with ZeRO-3 and selective recompute: ~15 GB of states plus a few GB of activations.
  s.zero = 3;
  s.recompute = Recompute::kSelective;
  s.global_batch = 8;
  const auto eight = memory_per_gpu(bundled("llama2-7b"), s, 8);
  EXPECT_TRUE(fits_memory(eight, h100)) << eight.total().count();
}

}  // namespace

// Megatron's shared experts are a dense TP MLP replicated over EP: a rank holds 1/tp of them,
// while it holds 1/(ep·expert_tp) of the routed experts.
TEST(MemoryModel, SharedExpertsAreSplitByTpNotByEp) {
  const ModelSpec with = bundled("deepseek-v3");
  ModelSpec without = with;
  without.moe.shared_experts = 0;
  ParallelConfig split;
  split.tp = 2;
  split.pp = 61;
  split.ep = 8;
  split.sequence_parallel = true;
  split.seq_len = 4096;
  split.global_batch = 64;
  split.micro_batch = 1;
  const std::int64_t gpus = 2 * 61 * 8;
  validate(with, split, gpus);
  // The last stage holds one MoE layer.
  const double extra = memory_per_gpu(with, split, gpus).parameters - memory_per_gpu(without, split, gpus).parameters;
  EXPECT_DOUBLE_EQ(extra, static_cast<double>(count_parameters(with).layer.expert) / 2);
}

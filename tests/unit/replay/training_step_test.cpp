// A whole step of a bundled scenario: the replay against the sum of its own kernel times, the
// report's FLOPs against the workload model, and what communication adds.

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "ctwin/compute/flash_attention.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/progress.hpp"
#include "ctwin/replay/training_step.hpp"
#include "ctwin/workload/flops.hpp"
#include "kernel_sum.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

TEST(TrainingStep, WithoutPipelineAndFreeCommunicationStepIsTheSumOfKernelTimes) {
  for (const std::string recompute : {"none", "selective", "full", "selective unfused"}) {
    const bool unfused = recompute.ends_with("unfused");
    const Scenario s = scenario({"parallel.pp=1", "parallel.recompute=\"" + recompute.substr(0, recompute.find(' ')) + "\"",
                                 std::string("training.attention=") + (unfused ? "unfused" : "flash")});
    const auto step = simulate_step(s, {.free_communication = true});
    ASSERT_EQ(step.work.stages.size(), 1u);
    const auto& stage = step.work.stages.front();
    const SimTime kernels = testing::pass_kernels(stage, step.work.micro_batches);
    const SimTime optimizer = compute_time_of(stage.after_backward, true, true);
    EXPECT_GT(optimizer, SimTime());
    EXPECT_EQ(step.replay.step_time, kernels + optimizer) << recompute;
    EXPECT_NEAR(step.report.breakdown.bubble_s, 0, 1e-12);
    EXPECT_NEAR(step.report.comm_ratio, 0, 1e-12);
    EXPECT_NEAR(step.report.breakdown.optimizer_s, optimizer.seconds(), 1e-12);
  }
}

TEST(TrainingStep, ReportFlopsAreTheWorkloadModelsFlops) {
  const Scenario s = scenario({});
  const auto step = simulate_step(s);
  const auto flops = workload::step_flops(s.model, s.split);
  EXPECT_EQ(step.report.model_flops_per_step, flops.model.count());
  EXPECT_EQ(step.report.hardware_flops_per_step, flops.hardware.count());
  EXPECT_NEAR(step.report.model_tflops_per_gpu * 1e12 * step.report.step_time_s * s.gpus, flops.model.count(),
              flops.model.count() * 1e-12);
  EXPECT_NEAR(step.report.mfu, step.report.model_tflops_per_gpu * 1e12 / s.gpu.peak(compute::Dtype::kBf16).per_second(),
              1e-12);
}

// Issue 35: `run` had no time left on its progress line. The replay states its work up front
// (every simulated rank's pipeline tasks and its optimizer step) and ends with all of it done.
TEST(TrainingStep, ReplayCountsItsTasksUpFrontAndFinishesThemAll) {
  const Scenario s = scenario({});
  Progress progress;
  {
    const ProgressScope scope(&progress);
    (void)simulate_step(s);
  }
  const auto pp = static_cast<std::uint64_t>(s.split.pp);
  // One rank a stage: each runs 2 passes a micro-batch and chunk (forward, backward), then its optimizer step.
  const auto passes = 2 * static_cast<std::uint64_t>(s.split.vpp);
  ASSERT_GT(progress.tasks_total.load(), 0u);
  EXPECT_EQ(progress.tasks_done.load(), progress.tasks_total.load());
  EXPECT_EQ(progress.tasks_total.load() % pp, 0u);
  EXPECT_GT(progress.tasks_total.load(), pp * (passes + 1));
}

TEST(TrainingStep, BreakdownAddsUpToTheStep) {
  const auto step = simulate_step(scenario({}));
  const auto& b = step.report.breakdown;
  EXPECT_NEAR(b.compute_s + b.exposed_comm_s.total() + b.bubble_s + b.optimizer_s, step.report.step_time_s, 1e-9);
  EXPECT_GT(b.exposed_comm_s.tp, 0);  // SP collectives without tp_comm overlap are exposed
}

// With overlap.tp_comm, TP collectives run inside their GEMMs as TransformerEngine's default
// userbuffers configuration splits them: ring_exchange GEMMs in tp chunks whose last waits for
// the gather; pipeline GEMMs in 4 chunks on the SMs the reduce-scatter leaves (16 of them),
// the last quarter of the reduce-scatter exposed; bulk dgrad and wgrad on the same margin.
TEST(TrainingStep, UserbuffersOverlapSplitsTheTpGemmsAsTransformerEngineDoes) {
  const auto plain = simulate_step(scenario({"parallel.pp=1"}), {.free_communication = true});
  const Scenario s = scenario({"parallel.pp=1", "overlap.tp_comm=true"});
  const auto ub = simulate_step(s, {.free_communication = true});
  const auto& before = plain.work.stages.front().chunks.front();
  const auto& after = ub.work.stages.front().chunks.front();
  const double tp = 2;
  const double margin = static_cast<double>(s.gpu.sm_count) / static_cast<double>(s.gpu.sm_count - 16);
  const auto named = [](const std::vector<OpNode>& ops, std::string_view name) {
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].name == name) found.push_back(i);
    }
    return found;
  };
  const auto total = [](const std::vector<OpNode>& ops, const std::vector<std::size_t>& at) {
    SimTime sum;
    for (std::size_t i : at) sum += ops[i].duration;
    return sum.seconds();
  };
  const std::size_t layers = named(before.forward, "proj_gemm").size();
  ASSERT_GT(layers, 0u);

  // ring_exchange: the QKV GEMM in (tp - 1)/tp then 1/tp, the second waiting for the gather.
  const auto qkv = named(after.forward, "qkv_gemm");
  ASSERT_EQ(qkv.size(), 2 * layers);
  EXPECT_NEAR(total(after.forward, qkv), total(before.forward, named(before.forward, "qkv_gemm")), 1e-9);
  EXPECT_NEAR(after.forward[qkv[1]].duration.seconds() * (tp - 1), after.forward[qkv[0]].duration.seconds(), 1e-9);
  const int gather = after.forward[qkv[1]].wait_for;
  ASSERT_GE(gather, 0);
  EXPECT_STREQ(after.forward[static_cast<std::size_t>(gather)].name, "tp_all_gather");
  EXPECT_EQ(after.forward[static_cast<std::size_t>(gather)].join, Join::kTaskEnd);

  // pipeline: the proj GEMM slowed by the SM margin, a quarter then three; the reduce-scatter
  // in three quarters beside it and the last quarter blocking.
  const auto proj = named(after.forward, "proj_gemm");
  ASSERT_EQ(proj.size(), 2 * layers);
  EXPECT_NEAR(total(after.forward, proj), margin * total(before.forward, named(before.forward, "proj_gemm")), 1e-9);
  const auto rs_before = named(before.forward, "tp_reduce_scatter");
  const auto rs_after = named(after.forward, "tp_reduce_scatter");
  ASSERT_EQ(rs_after.size(), 2 * rs_before.size());
  const Bytes whole = before.forward[rs_before[0]].comm->size;
  EXPECT_EQ(after.forward[rs_after[0]].comm->size + after.forward[rs_after[1]].comm->size, whole);
  EXPECT_EQ(after.forward[rs_after[1]].comm->size, Bytes(whole.count() / 4));
  EXPECT_EQ(after.forward[rs_after[0]].join, Join::kTaskEnd);
  EXPECT_EQ(after.forward[rs_after[1]].join, Join::kNow);

  // bulk: column-parallel dgrad and wgrad GEMMs on the margin; row-parallel wgrad untouched.
  for (const char* gemm : {"qkv_dgrad", "qkv_wgrad", "mlp_up_dgrad", "mlp_up_wgrad"}) {
    EXPECT_NEAR(total(after.backward, named(after.backward, gemm)),
                margin * total(before.backward, named(before.backward, gemm)), 1e-9)
        << gemm;
  }
  EXPECT_NEAR(total(after.backward, named(after.backward, "proj_wgrad")),
              total(before.backward, named(before.backward, "proj_wgrad")), 1e-12);
  EXPECT_NEAR(total(after.backward, named(after.backward, "proj_dgrad")),
              total(before.backward, named(before.backward, "proj_dgrad")), 1e-9);

  // Free communication: the step is still the sum of its kernels, the margin included.
  const auto& stage = ub.work.stages.front();
  EXPECT_EQ(ub.replay.step_time, testing::pass_kernels(stage, ub.work.micro_batches) +
                                     compute_time_of(stage.after_backward, true, true));
  EXPECT_GT(ub.replay.step_time, plain.replay.step_time);
}

// A recipe's own userbuffers settings (Megatron-Bridge's userbuffers_fp8_h100_h8192_tp4_...:
// bulk without the margin, the forward reduce-scatters by ring exchange on 1 SM with it).
// Without the margin a GEMM shares the SMs only while its collective runs.
TEST(TrainingStep, UserbuffersConfigPerGemmReplacesTransformerEnginesDefaults) {
  const std::string config =
      R"(overlap.tp_comm_config={"qkv_dgrad": {"method": "bulk", "num_sm": 4, "set_sm_margin": false},)"
      R"( "proj_fprop": {"method": "ring_exchange", "num_sm": 1, "set_sm_margin": true},)"
      R"( "fc2_fprop": {"method": "pipeline", "num_sm": 24, "num_splits": 2}})";
  const auto plain = simulate_step(scenario({"parallel.pp=1"}), {.free_communication = true});
  const Scenario s = scenario({"parallel.pp=1", "overlap.tp_comm=true", config});
  const auto ub = simulate_step(s, {.free_communication = true});
  const auto& before = plain.work.stages.front().chunks.front();
  const auto& after = ub.work.stages.front().chunks.front();
  const auto sum = [](const std::vector<OpNode>& ops, std::string_view name) {
    SimTime total;
    int count = 0;
    for (const auto& op : ops) {
      if (op.name == name) total += op.duration, ++count;
    }
    return std::pair(total.seconds(), count);
  };
  const double sms = static_cast<double>(s.gpu.sm_count);
  // Without the margin the GEMM loses the collective's 4 SMs only while the collective runs:
  // not at all when communication is free, partly when it is not.
  EXPECT_NEAR(sum(after.backward, "qkv_dgrad").first, sum(before.backward, "qkv_dgrad").first, 1e-12);
  const auto timed = simulate_step(s);
  const auto& shared = timed.work.stages.front().chunks.front().backward;
  EXPECT_GT(sum(shared, "qkv_dgrad").first, sum(before.backward, "qkv_dgrad").first);
  EXPECT_LT(sum(shared, "qkv_dgrad").first, sms / (sms - 4) * sum(before.backward, "qkv_dgrad").first);
  EXPECT_NEAR(sum(after.backward, "qkv_wgrad").first, sms / (sms - 16) * sum(before.backward, "qkv_wgrad").first, 1e-9);
  // ring exchange on tp = 2: two chunks of the proj GEMM on all SMs but one.
  const auto layers = sum(before.forward, "proj_gemm").second;
  EXPECT_EQ(sum(after.forward, "proj_gemm").second, 2 * layers);
  EXPECT_NEAR(sum(after.forward, "proj_gemm").first, sms / (sms - 1) * sum(before.forward, "proj_gemm").first, 1e-9);
  // pipeline in 2 splits on 24 SMs: half the reduce-scatter exposed.
  EXPECT_NEAR(sum(after.forward, "mlp_down_gemm").first, sms / (sms - 24) * sum(before.forward, "mlp_down_gemm").first,
              1e-9);
  Bytes exposed;
  for (const auto& op : after.forward) {
    if (op.name == std::string_view("tp_reduce_scatter") && op.join == Join::kNow) exposed = op.comm->size;
  }
  const std::int64_t activation_bytes = s.split.micro_batch * s.split.seq_len * s.model.hidden * 2;
  EXPECT_EQ(exposed, Bytes(activation_bytes / 2));

  for (const std::string bad : {R"(overlap.tp_comm_config={"qkv_fprop": {"method": "pipeline"}})",
                                R"(overlap.tp_comm_config={"qkv_wgrad": {"method": "ring_exchange"}})",
                                R"(overlap.tp_comm_config={"proj_fprop": {"method": "bulk"}})",
                                R"(overlap.tp_comm_config={"proj_fprop": {"cga_size": 2}})",
                                R"(overlap.tp_comm_config={"attention": {}})",
                                R"(overlap.tp_comm_config={"fc2_fprop": {"num_sm": 0}})"}) {
    try {
      (void)scenario({"overlap.tp_comm=true", bad});
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("/overlap/tp_comm_config"), std::string::npos) << e.what();
    }
  }
}

TEST(TrainingStep, TpOverlapWithoutSequenceParallelismIsAnInputError) {
  try {
    (void)scenario({"parallel.sequence_parallel=false", "overlap.tp_comm=true"});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/overlap/tp_comm"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sequence_parallel"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW((void)scenario({"parallel.tp=1", "parallel.sequence_parallel=false", "overlap.tp_comm=true"}));
}

TEST(TrainingStep, CommunicationOnlyAddsTime) {
  const Scenario s = scenario({});
  const auto free = simulate_step(s, {.free_communication = true});
  const auto real = simulate_step(s);
  EXPECT_GT(real.replay.step_time, free.replay.step_time);
  // Every compute kernel is the same with or without communication.
  EXPECT_NEAR(real.report.breakdown.compute_s, free.report.breakdown.compute_s, 1e-9);
}

TEST(TrainingStep, OverlappingGradientReductionIsNoSlower) {
  const auto overlapped = simulate_step(scenario({"overlap.dp_grad_reduce=true"}));
  const auto exposed = simulate_step(scenario({"overlap.dp_grad_reduce=false"}));
  EXPECT_LT(overlapped.replay.step_time, exposed.replay.step_time);
  EXPECT_GT(exposed.report.breakdown.exposed_comm_s.dp, overlapped.report.breakdown.exposed_comm_s.dp);
}

TEST(TrainingStep, UnsupportedPartsAreInputErrors) {
  EXPECT_THROW((void)scenario({"calibration=\"x.json\""}), InputError);
  // An inline GPU profile has no file for "gemm_table_from" to be found next to.
  const nlohmann::json gb200 = load_json_file(std::string(CTWIN_SOURCE_DIR) + "/models/gpus/gb200.json");
  try {
    (void)scenario({"gpu=" + gb200.dump()});
    ADD_FAILURE() << "an inline profile borrowed a table";
  } catch (const InputError& error) {
    EXPECT_EQ(error.pointer(), "/gpu/gemm_table_from") << error.what();
  }
}

}  // namespace
}  // namespace ctwin::replay

namespace ctwin::replay {
namespace {

// Without overlap, gradients are reduced after the whole schedule (Megatron's
// finalize_model_grads): never inside a backward, where it would hold that backward's gradient
// back from the previous stage and stack one reduction per stage onto the step.
TEST(TrainingStep, UnoverlappedGradientReductionWaitsForTheWholeSchedule) {
  const Scenario s = load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR,
                                   {"parallel.pp=8", "gpus=128", "training.global_batch=512", "network=\"analytical\"",
                                    "overlap.dp_grad_reduce=false"});
  const auto step = simulate_step(s);
  SimTime reduce_time;
  for (const auto& rank : step.replay.ranks) {
    SimTime last_pipeline_op;
    SimTime first_reduce = SimTime::from_ps(std::numeric_limits<std::int64_t>::max());
    for (const auto& busy : rank.busy) {
      if (std::string(busy.name) == "dp_grad_reduce") {
        first_reduce = std::min(first_reduce, busy.start);
        reduce_time = std::max(reduce_time, busy.end - busy.start);
      } else if (busy.micro_batch >= 0 && busy.stream == Stream::kCompute) {
        last_pipeline_op = std::max(last_pipeline_op, busy.end);
      }
    }
    EXPECT_GE(first_reduce, last_pipeline_op);
  }
  ASSERT_GT(reduce_time, SimTime());
  // One reduction at the end, not one per stage: the step exceeds the overlapped one by at
  // most a reduction.
  const auto overlapped = simulate_step(load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json",
                                                      CTWIN_SOURCE_DIR,
                                                      {"parallel.pp=8", "gpus=128", "training.global_batch=512",
                                                       "network=\"analytical\"", "overlap.dp_grad_reduce=true"}));
  EXPECT_LE(step.replay.step_time, overlapped.replay.step_time + reduce_time + reduce_time);
}

// A Megatron pipeline layout places each virtual stage's layers: the op graph builds exactly the
// layers the layout gives chunk c of rank r (virtual stage c·pp + r), embedding first, loss last.
TEST(TrainingStep, PipelineLayoutPlacesTheLayers) {
  const Scenario s = scenario({"parallel.pp=2", "parallel.vpp=2", "parallel.schedule=\"interleaved\"",
                               "parallel.pipeline_layout=\"Et*7|t*9|t*9|t*7L\"", "network=\"analytical\""});
  const auto work = simulate_step(s).work;
  const std::int64_t expected[2][2] = {{7, 9}, {9, 7}};  // [rank][chunk]: virtual stages 0, 2 and 1, 3
  for (int rank = 0; rank < 2; ++rank) {
    for (int chunk = 0; chunk < 2; ++chunk) {
      std::int64_t layers = 0;
      bool embedding = false;
      bool logits = false;
      for (const auto& op : work.stages[static_cast<std::size_t>(rank)].chunks[static_cast<std::size_t>(chunk)].forward) {
        const std::string name = op.name;
        layers += name == "qkv_gemm";
        embedding |= name == "embedding";
        logits |= name == "logits_gemm";
      }
      EXPECT_EQ(layers, expected[rank][chunk]) << rank << " " << chunk;
      EXPECT_EQ(embedding, rank == 0 && chunk == 0);
      EXPECT_EQ(logits, rank == 1 && chunk == 1);
    }
  }
  EXPECT_THROW((void)scenario({"parallel.pp=2", "parallel.vpp=2", "parallel.schedule=\"interleaved\"",
                               "parallel.pipeline_layout=\"Et*7|t*9|t*9|t*6L\""}),
               InputError);
  // The even layout written out is the even split.
  const std::vector<std::string> interleaved = {"parallel.pp=2", "parallel.vpp=2", "parallel.schedule=\"interleaved\"",
                                                "network=\"analytical\""};
  auto even = interleaved;
  even.push_back("parallel.pipeline_layout=\"Et*8|t*8|t*8|t*8L\"");
  EXPECT_EQ(simulate_step(scenario(even)).replay.step_time, simulate_step(scenario(interleaved)).replay.step_time);
}

// GPT-OSS alternates windowed and global layers: the op graph runs each layer's flash kernels with
// that layer's window, so their times are the compute twin's for the band and for every key.
TEST(TrainingStep, SlidingWindowLayersRunTheirOwnAttentionKernels) {
  const Scenario s = scenario({"model=\"models/llm/gpt-oss-120b.json\"", "parallel.tp=1", "parallel.pp=1",
                               "parallel.ep=8", "gpus=8", "training.global_batch=8", "network=\"analytical\""});
  const auto work = simulate_step(s).work;
  std::vector<SimTime> forward;
  for (const auto& op : work.stages[0].chunks[0].forward) {
    if (std::string(op.name) == "flash_attention") forward.push_back(op.duration);
  }
  ASSERT_EQ(forward.size(), 36u);
  compute::AttentionShape shape{1, 8192, 8192, 64, 8, 64, true, compute::Dtype::kBf16};
  const SimTime global = compute::estimate_flash_attention_forward(s.gpu, shape).time;
  shape.window = 128;
  const SimTime windowed = compute::estimate_flash_attention_forward(s.gpu, shape).time;
  EXPECT_LT(windowed, global);
  for (std::size_t layer = 0; layer < forward.size(); ++layer) {
    EXPECT_EQ(forward[layer], layer % 2 == 0 ? windowed : global) << layer;
  }
}

// The distributed optimizer's overlapped parameter all-gathers are dispatched ahead of the
// forwards that need them (Megatron's schedules launch a chunk's gather while the chunk before it
// runs), so they start with the step on every pipeline rank, in chunk order, instead of waiting
// for the pipeline to reach each chunk: on a deep interleaved pipeline with a slow, wide DP group
// that made overlapping them slower than gathering after the optimizer.
TEST(TrainingStep, OverlappedParameterGathersStartWithTheStep) {
  const std::vector<std::string> split = {"parallel.pp=4", "parallel.vpp=2", "parallel.schedule=\"interleaved\"",
                                          "gpus=512", "training.global_batch=256", "network=\"analytical\""};
  const auto step = simulate_step(scenario(split));
  for (const auto& rank : step.replay.ranks) {
    int last_chunk = 0;
    SimTime first_gather = SimTime::from_ps(std::numeric_limits<std::int64_t>::max());
    for (const auto& busy : rank.busy) {
      if (std::string(busy.name) != "dp_param_all_gather") continue;
      first_gather = std::min(first_gather, busy.start);
      EXPECT_GE(busy.chunk, last_chunk) << "gathers run in chunk order";
      last_chunk = busy.chunk;
    }
    EXPECT_EQ(first_gather, SimTime()) << "the first gather starts with the step, not when the pipeline arrives";
    EXPECT_EQ(last_chunk, 1);
  }
  auto after_optimizer = split;
  after_optimizer.push_back("overlap.dp_param_gather=false");
  EXPECT_LT(step.replay.step_time, simulate_step(scenario(after_optimizer)).replay.step_time);
}

}  // namespace
}  // namespace ctwin::replay

namespace ctwin::replay {
namespace {

// Attention without a fused kernel (Megatron-LM before FlashAttention): two GEMMs of
// 2·b·s²·h/t FLOPs each around an s×s softmax, instead of one flash kernel. Same FLOPs in the
// report (they count the whole s×s matrix either way); more time, and, without selective
// recompute (which exists to drop them), the s×s tensors in activation memory.
TEST(TrainingStep, UnfusedAttentionCostsMoreTimeAndMemoryForTheSameFlops) {
  const auto load = [](const std::string& kernel) {
    return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR,
                         {"training.attention=" + kernel, "network=\"analytical\"", "parallel.recompute=\"none\""});
  };
  const auto flash = simulate_step(load("flash"));
  const auto unfused = simulate_step(load("unfused"));
  EXPECT_GT(unfused.report.step_time_s, flash.report.step_time_s);
  EXPECT_GT(unfused.report.memory_gib_per_gpu.activations, flash.report.memory_gib_per_gpu.activations);
  EXPECT_DOUBLE_EQ(unfused.report.model_flops_per_step, flash.report.model_flops_per_step);
  bool saw_softmax = false;
  for (const auto& op : unfused.work.stages.front().chunks.front().forward) {
    saw_softmax = saw_softmax || std::string(op.name) == "softmax";
    EXPECT_NE(std::string(op.name), "flash_attention");
  }
  EXPECT_TRUE(saw_softmax);
}

}  // namespace
}  // namespace ctwin::replay

namespace ctwin::replay {
namespace {

// Uneven pipelines (Megatron-LM's --decoder-first/last-pipeline-num-layers): Llama 3.1 405B's
// 126 layers on pp 16 as 7 + 14 × 8 + 7.
TEST(TrainingStep, UnevenStagesHoldTheirLayersAndEveryLayerOnce) {
  const std::vector<std::string> split = {"model=\"models/llm/llama3-405b.json\"", "gpus=2048", "parallel.tp=8",
                                          "parallel.pp=16", "training.global_batch=256", "network=\"analytical\""};
  auto with = split;
  with.insert(with.end(), {"parallel.first_stage_layers=7", "parallel.last_stage_layers=7"});
  const Scenario s = load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR, with);
  std::int64_t total = 0;
  for (std::int64_t r = 0; r < 16; ++r) {
    const std::int64_t layers = s.split.stage_layers(126, r);
    EXPECT_EQ(layers, r == 0 || r == 15 ? 7 : 8) << r;
    EXPECT_EQ(s.split.stage_first_layer(126, r), total) << r;
    total += layers;
  }
  EXPECT_EQ(total, 126);
  const auto step = simulate_step(s);
  const auto count_gemms = [](const StageWork& stage) {
    int qkv = 0;
    for (const auto& op : stage.chunks.front().forward) qkv += std::string(op.name) == "qkv_gemm";
    return qkv;
  };
  EXPECT_EQ(count_gemms(step.work.stages.front()), 7);
  EXPECT_EQ(count_gemms(step.work.stages[1]), 8);
  EXPECT_EQ(count_gemms(step.work.stages.back()), 7);

  // Without the uneven counts 126 layers do not split over 16 stages; a bad count is named.
  EXPECT_THROW(load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR, split),
               InputError);
  auto odd = split;
  odd.insert(odd.end(), {"parallel.first_stage_layers=6", "parallel.last_stage_layers=7"});
  try {
    (void)load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR, odd);
    FAIL() << "113 layers over 14 stages must be refused";
  } catch (const InputError& error) {
    EXPECT_EQ(error.pointer(), "/parallel/first_stage_layers");
  }
  auto interleaved = with;
  interleaved.insert(interleaved.end(), {"parallel.vpp=2", "parallel.schedule=\"interleaved\""});
  EXPECT_THROW(load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR, interleaved),
               InputError);
}

}  // namespace
}  // namespace ctwin::replay

namespace ctwin::replay {
namespace {

TEST(TrainingStep, Bf16GradientsHalveTheGradientBuffersAndTheReducedBytes) {
  const auto fp32 = simulate_step(scenario({"overlap.dp_grad_reduce=false"}), {.comm = CommModel::kIsolated});
  const auto bf16 = simulate_step(scenario({"overlap.dp_grad_reduce=false", "training.grad_reduce_in_fp32=false"}),
                                  {.comm = CommModel::kIsolated});
  EXPECT_DOUBLE_EQ(bf16.report.memory_gib_per_gpu.grads, fp32.report.memory_gib_per_gpu.grads / 2);
  EXPECT_LT(bf16.report.breakdown.exposed_comm_s.dp, fp32.report.breakdown.exposed_comm_s.dp);
  for (const auto* step : {&fp32, &bf16}) {
    for (const auto& op : step->work.stages.front().after_backward) {
      if (op.comm) {
        EXPECT_EQ(op.comm->element_bytes, step == &fp32 ? 4 : 2) << op.name;
      }
    }
  }
  EXPECT_THROW((void)scenario({"training.grad_reduce_in_fp32=\"no\""}), InputError);
}

}  // namespace
}  // namespace ctwin::replay

namespace ctwin::replay {
namespace {

// A scenario that reproduces a published run keeps its provenance; the keys are read strictly.
TEST(TrainingStep, ScenarioCarriesItsSourcesAndAssumptions) {
  const Scenario s = load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/gpt3-177b-h100-strong.json",
                                   CTWIN_SOURCE_DIR);
  EXPECT_FALSE(s.description.empty());
  EXPECT_FALSE(s.sources.empty());
  EXPECT_FALSE(s.assumptions.empty());
  EXPECT_TRUE(scenario({}).sources.empty());  // optional
  try {
    (void)scenario({"sources=\"one string\""});
    ADD_FAILURE() << "a string where a list of sources belongs was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/sources"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ctwin::replay

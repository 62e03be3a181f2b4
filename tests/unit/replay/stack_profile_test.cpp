// The software stack (replay/stack_profile.hpp): a neutral stack is the model without one, to the
// bit; each mechanism moves exactly what it prices (casts by their bytes, the host's work after the
// dispatcher's wait by its time, the expert path by its scale, each expert GEMM by the per-expert
// overhead, rows by their padding); every shipped
// stack loads; bad stacks are one InputError naming the field.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/compute/kernel_estimate.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/moe_layer.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay::stack_tests {
namespace {

// A stack that prices nothing: alltoall with its host wait, as the model without a stack.
nlohmann::json neutral(const std::string& recipe = "bf16") {
  nlohmann::json s = {{"name", "neutral"},          {"framework", "test"},       {"version", "0"},
                      {"precision_recipe", recipe}, {"dispatcher", "alltoall"},  {"cuda_graphs", false},
                      {"permute_fusion", false},    {"dispatcher_sync", true}};
  if (recipe != "bf16") s["quantize"] = {{"bytes_forward", 0.0}, {"bytes_backward", 0.0}, {"launches", 1}};
  return s;
}

// Qwen3-30B-A3B, 2 layers on one 8-GPU node, no pipeline: a few ms to simulate.
Scenario qwen(const std::string& precision, const std::optional<nlohmann::json>& stack) {
  std::vector<std::string> o = {"gpus=8", "parallel.pp=1", "parallel.vpp=1", "parallel.schedule=\"1f1b\"",
                                "training.global_batch=16", "model.layers=2", "network=\"analytical\"",
                                "training.precision=\"" + precision + "\""};
  if (stack) o.push_back("stack=" + stack->dump());
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/qwen3-30b-a3b-h100-16.json", CTWIN_SOURCE_DIR, o);
}

const OpNode* find(const std::vector<OpNode>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

int count(const std::vector<OpNode>& ops, const std::string& name) {
  int n = 0;
  for (const auto& op : ops) n += name == op.name ? 1 : 0;
  return n;
}

TEST(StackProfile, NeutralStackIsTheModelWithoutOneToTheBit) {
  for (const std::string precision : {"bf16", "fp8"}) {
    const auto without = simulate_step(qwen(precision, std::nullopt));
    const auto with = simulate_step(qwen(precision, neutral(precision == "fp8" ? "mxfp8" : "bf16")));
    EXPECT_EQ(with.replay.step_time, without.replay.step_time) << precision;
    EXPECT_EQ(with.work.stages[0].chunks[0].forward.size(), without.work.stages[0].chunks[0].forward.size());
  }
}

// The host's work after the dispatcher's wait runs while the GPU is idle: the wait's exposure grows
// by exactly that work in every MoE layer, and the step by it once per MoE layer and micro-batch.
TEST(StackProfile, HostWorkAfterTheSyncIsExposedWhole) {
  nlohmann::json slow = neutral();
  slow["host_after_sync"] = "300us";
  const Scenario s = qwen("bf16", slow);
  const auto base = simulate_step(qwen("bf16", neutral()));
  const auto step = simulate_step(s);
  const auto& f0 = base.work.stages[0].chunks[0].forward;
  const auto& f1 = step.work.stages[0].chunks[0].forward;
  ASSERT_EQ(f0.size(), f1.size());
  int syncs = 0;
  for (std::size_t i = 0; i < f0.size(); ++i) {
    if (std::string(f0[i].name) != "moe_dispatch_sync") continue;
    ++syncs;
    EXPECT_EQ(f1[i].duration - f0[i].duration, SimTime::from_seconds(300e-6)) << i;
  }
  EXPECT_EQ(syncs, 2);
  const double added = (step.replay.step_time - base.replay.step_time).seconds();
  EXPECT_NEAR(added, 300e-6 * syncs * static_cast<double>(step.work.micro_batches), 1e-9);
  // Without the wait (graphs, or a dispatcher that does not sync) the work is not exposed.
  nlohmann::json graphed = slow;
  graphed["cuda_graphs"] = true;
  graphed["dispatcher_sync"] = false;
  EXPECT_EQ(count(simulate_step(qwen("bf16", graphed)).work.stages[0].chunks[0].forward, "moe_dispatch_sync"), 0);
}

// The expert path's kernels (grouped GEMMs, activation, permutation) take the scale; the router,
// attention and communication do not.
TEST(StackProfile, ExpertTimeScaleStretchesTheExpertPathOnly) {
  nlohmann::json scaled = neutral();
  scaled["expert_time_scale"] = 1.5;
  nlohmann::json graphed = neutral();  // no host timeline: kernel durations as built
  graphed["cuda_graphs"] = true;
  graphed["dispatcher_sync"] = false;
  nlohmann::json graphed_scaled = graphed;
  graphed_scaled["expert_time_scale"] = 1.5;
  const auto a = simulate_step(qwen("bf16", graphed)).work.stages[0].chunks[0];
  const auto b = simulate_step(qwen("bf16", graphed_scaled)).work.stages[0].chunks[0];
  for (const char* name : {"expert_fc1_grouped_gemm", "expert_swiglu", "expert_fc2_grouped_gemm", "moe_permute", "moe_unpermute"}) {
    EXPECT_NEAR(find(b.forward, name)->duration.seconds(), 1.5 * find(a.forward, name)->duration.seconds(), 1e-11) << name;
  }
  for (const char* name : {"expert_fc1_dgrad", "expert_fc1_wgrad", "moe_permute_bwd"}) {
    EXPECT_NEAR(find(b.backward, name)->duration.seconds(), 1.5 * find(a.backward, name)->duration.seconds(), 1e-11) << name;
  }
  for (const char* name : {"router_gemm", "router_topk", "ep_dispatch_all_to_all"}) {
    EXPECT_EQ(find(b.forward, name)->duration, find(a.forward, name)->duration) << name;
  }
  EXPECT_GT(simulate_step(qwen("bf16", scaled)).replay.step_time, simulate_step(qwen("bf16", neutral())).replay.step_time);
}

// Transformer Engine's one GEMM per local expert: each grouped GEMM op gains exactly the overhead
// times the local experts that received rows (times the profile's training scale, as every kernel),
// so the cost is linear in the local experts: halving EP doubles it. Nothing else moves.
TEST(StackProfile, PerExpertOverheadIsLinearInLocalExperts) {
  nlohmann::json graphed = neutral();  // no host timeline: kernel durations as built
  graphed["cuda_graphs"] = true;
  graphed["dispatcher_sync"] = false;
  nlohmann::json costly = graphed;
  costly["per_expert_overhead"] = "20us";
  const char* const fwd[] = {"expert_fc1_grouped_gemm", "expert_fc2_grouped_gemm"};
  const char* const bwd[] = {"expert_fc2_dgrad", "expert_fc2_wgrad", "expert_fc1_dgrad", "expert_fc1_wgrad"};
  std::vector<double> per_op;  // added seconds per grouped op, one entry per EP size
  for (const int ep : {8, 4}) {
    const auto at = [&](const nlohmann::json& stack) {
      return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/qwen3-30b-a3b-h100-16.json", CTWIN_SOURCE_DIR,
                           {"gpus=8", "parallel.pp=1", "parallel.vpp=1", "parallel.schedule=\"1f1b\"", "parallel.ep=" + std::to_string(ep),
                            "training.global_batch=16", "model.layers=2", "network=\"analytical\"", "training.precision=\"bf16\"",
                            "stack=" + stack.dump()});
    };
    const Scenario s = at(costly);
    const auto a = simulate_step(at(graphed)).work.stages[0].chunks[0];
    const auto b = simulate_step(s).work.stages[0].chunks[0];
    const double expected = 20e-6 * static_cast<double>(s.model.moe.experts / ep) * s.gpu.training_time_scale;
    for (const char* name : fwd) EXPECT_NEAR((find(b.forward, name)->duration - find(a.forward, name)->duration).seconds(), expected, 1e-11) << name;
    for (const char* name : bwd) EXPECT_NEAR((find(b.backward, name)->duration - find(a.backward, name)->duration).seconds(), expected, 1e-11) << name;
    for (const char* name : {"router_gemm", "moe_permute", "expert_swiglu", "ep_dispatch_all_to_all"}) {
      EXPECT_EQ(find(b.forward, name)->duration, find(a.forward, name)->duration) << name;
    }
    per_op.push_back((find(b.forward, fwd[0])->duration - find(a.forward, fwd[0])->duration).seconds());
  }
  EXPECT_NEAR(per_op[1], 2 * per_op[0], 1e-11);  // 32 local experts against 16
}

// expert_gemms "per_expert" times each grouped op as its experts' GEMMs one after another
// (compute::estimate_grouped_gemm at the busiest rank's rows), the rows model otherwise.
TEST(StackProfile, PerExpertGemmsSumEachExpertsGemm) {
  nlohmann::json graphed = neutral();
  graphed["cuda_graphs"] = true;
  graphed["dispatcher_sync"] = false;
  nlohmann::json loop = graphed;
  loop["expert_gemms"] = "per_expert";
  const Scenario s = qwen("bf16", loop);
  const auto a = simulate_step(qwen("bf16", graphed)).work.stages[0].chunks[0];
  const auto b = simulate_step(s).work.stages[0].chunks[0];
  const MoeRankShape shape = moe_rank_shape(s.model, s.split);
  const compute::GroupedGemmShape fc1{shape.rows_per_expert, shape.fc1_cols, s.model.hidden, compute::Dtype::kBf16,
                                      compute::GroupedTokens::kM};
  EXPECT_NEAR(find(b.forward, "expert_fc1_grouped_gemm")->duration.seconds(),
              compute::estimate_grouped_gemm(s.gpu, fc1).time.seconds() * s.gpu.training_time_scale, 1e-11);
  EXPECT_NE(find(b.forward, "expert_fc1_grouped_gemm")->duration, find(a.forward, "expert_fc1_grouped_gemm")->duration);
  EXPECT_EQ(find(b.forward, "router_gemm")->duration, find(a.forward, "router_gemm")->duration);
}

// No overhead is the two-parameter stack to the bit, and a dense model has no expert GEMM to pay it.
TEST(StackProfile, PerExpertOverheadLeavesZeroAndDenseUnchanged) {
  nlohmann::json zero = neutral();
  zero["per_expert_overhead"] = "0us";
  EXPECT_EQ(simulate_step(qwen("bf16", zero)).replay.step_time, simulate_step(qwen("bf16", neutral())).replay.step_time);
  nlohmann::json costly = neutral();
  costly["per_expert_overhead"] = "50us";
  const auto dense = [&](const std::optional<nlohmann::json>& stack) {
    std::vector<std::string> o = {"gpus=8", "parallel.tp=8", "parallel.pp=1", "parallel.vpp=1", "parallel.schedule=\"1f1b\"",
                                  "training.global_batch=8", "model.layers=2", "network=\"analytical\""};
    if (stack) o.push_back("stack=" + stack->dump());
    return simulate_step(load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/llama3-70b-h100-1024.json", CTWIN_SOURCE_DIR, o))
        .replay.step_time;
  };
  EXPECT_EQ(dense(costly), dense(neutral()));
  EXPECT_EQ(dense(costly), dense(std::nullopt));
}

// fp8 casts: bytes per element of each expert GEMM input (forward) and output gradient (backward)
// over the GPU's streaming bandwidth, with their launches; none in bf16.
TEST(StackProfile, CastsMoveTheirBytesAtStreamingBandwidth) {
  nlohmann::json cs = neutral("fp8_current_scaling");
  cs["quantize"] = {{"bytes_forward", 3.0}, {"bytes_backward", 2.0}, {"launches", 2}};
  cs["cuda_graphs"] = true;
  cs["dispatcher_sync"] = false;
  const Scenario s = qwen("fp8", cs);
  const auto chunk = simulate_step(s).work.stages[0].chunks[0];
  const MoeRankShape shape = moe_rank_shape(s.model, s.split);
  const std::int64_t rows = shape.rows();
  const auto expect = [&](const char* name, const std::vector<OpNode>& ops, double bytes) {
    const OpNode* op = find(ops, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->launches, 2);
    const SimTime t = compute::roofline_kernel(s.gpu, FlopCount(0), FlopRate::per_second(1), 1.0,
                                               Bytes(static_cast<std::int64_t>(bytes + 0.5)), 2).time;
    EXPECT_NEAR(op->duration.seconds(), t.seconds() * s.gpu.training_time_scale, 1e-12) << name;
  };
  expect("expert_fc1_fp8_cast", chunk.forward, 3.0 * static_cast<double>(rows * s.model.hidden));
  expect("expert_fc2_fp8_cast", chunk.forward, 3.0 * static_cast<double>(rows * shape.expert_cols));
  expect("expert_fc2_grad_fp8_cast", chunk.backward, 2.0 * static_cast<double>(rows * s.model.hidden));
  expect("expert_fc1_grad_fp8_cast", chunk.backward, 2.0 * static_cast<double>(rows * shape.fc1_cols));
  EXPECT_EQ(count(simulate_step(qwen("bf16", neutral())).work.stages[0].chunks[0].forward, "expert_fc1_fp8_cast"), 0);
}

// The load-balancing loss adds its kernels to the router, forward and backward.
TEST(StackProfile, AuxLossAddsTheRoutersKernels) {
  nlohmann::json aux = neutral();
  aux["aux_loss"] = {{"launches_forward", 5}, {"launches_backward", 4}};
  const auto chunk = simulate_step(qwen("bf16", aux)).work.stages[0].chunks[0];
  ASSERT_EQ(count(chunk.forward, "router_aux_loss"), 2);
  EXPECT_EQ(find(chunk.forward, "router_aux_loss")->launches, 5);
  EXPECT_EQ(find(chunk.backward, "router_aux_loss_bwd")->launches, 4);
}

TEST(StackProfile, EveryShippedStackLoadsAndRunsWithItsPrecision) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CTWIN_SOURCE_DIR) + "/models/stacks")) {
    const std::string path = entry.path().string();
    const StackProfile stack = parse_stack_profile(load_json_file(path), path);
    EXPECT_EQ(stack.name + ".json", entry.path().filename().string());
    EXPECT_LE(stack.fitted.size(), 3u);
    EXPECT_FALSE(stack.sources.empty()) << path;
    const std::string precision = stack.recipe == PrecisionRecipe::kBf16 ? "bf16" : "fp8";
    const Scenario s = qwen(precision, nlohmann::json(stack.name));
    EXPECT_GT(simulate_step(s).replay.step_time, SimTime()) << path;
    ++n;
  }
  EXPECT_GE(n, 6);
}

TEST(StackProfile, BadStackIsAnInputErrorNamingTheField) {
  const auto where = [](const std::function<void()>& load_it) -> std::string {
    try {
      load_it();
    } catch (const InputError& e) {
      return e.pointer() + " " + e.message();
    }
    return "accepted";
  };
  const auto with = [](const std::string& key, const nlohmann::json& value) {
    nlohmann::json s = neutral();
    s[key] = value;
    return s;
  };
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("colour", 1)); }).substr(0, 7), "/colour");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("dispatcher", "nvshmem")); }).substr(0, 11), "/dispatcher");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("layer_kernels", "compiled")); }).substr(0, 14), "/layer_kernels");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("expert_time_scale", 0.1)); }).substr(0, 18), "/expert_time_scale");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("host_after_sync", 5)); }).substr(0, 16), "/host_after_sync");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("per_expert_overhead", "2ms")); }).substr(0, 20), "/per_expert_overhead");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("expert_gemms", "cutlass")); }).substr(0, 13), "/expert_gemms");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("per_expert_overhead", "-1us")); }).substr(0, 20), "/per_expert_overhead");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("fitted", nlohmann::json{"a", "b", "c", "d"})); }).substr(0, 7), "/fitted");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("fitted", nlohmann::json{"pad_rows"})); }).substr(0, 7), "/fitted");
  EXPECT_EQ(where([&] { (void)qwen("bf16", with("quantize", {{"bytes_forward", 3.0}, {"bytes_backward", 0.0}, {"launches", 1}})); })
                .substr(0, 9),
            "/quantize");
  EXPECT_EQ(where([&] { (void)qwen("fp8", neutral("bf16")); }).substr(0, 6), "/stack");
  EXPECT_EQ(where([&] { (void)qwen("bf16", nlohmann::json("no-such-stack")); }).substr(0, 6), "/stack");
  EXPECT_EQ(where([&] { (void)qwen("bf16", nlohmann::json(3)); }).substr(0, 6), "/stack");
  // An fp8 recipe must say what its casts cost.
  nlohmann::json bare = neutral("mxfp8");
  bare.erase("quantize");
  EXPECT_EQ(where([&] { (void)qwen("fp8", bare); }).substr(0, 9), "/quantize");
}

}  // namespace
}  // namespace ctwin::replay::stack_tests

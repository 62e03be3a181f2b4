// MoE layers in a replayed step: the sum of kernels with free communication, expert GEMM FLOPs
// against the workload FLOPs model, all-to-all bytes conserved, ep 1 as all experts local,
// expert gradients over expert DP, MLA projections against the parameter count.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "bundled_fabric.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/compute/flash_attention.hpp"
#include "ctwin/compute/grouped_gemm.hpp"
#include "ctwin/compute/moe_kernels.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/replay/attention_projections.hpp"
#include "ctwin/replay/host_timeline.hpp"
#include "ctwin/replay/moe_layer.hpp"
#include "ctwin/replay/training_step.hpp"
#include "ctwin/workload/flops.hpp"
#include "ctwin/workload/parameter_count.hpp"
#include "kernel_sum.hpp"

namespace ctwin::replay {
namespace {

Scenario load(const std::string& name, std::vector<std::string> overrides) {
  overrides.push_back("network=\"analytical\"");
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/" + name, CTWIN_SOURCE_DIR, overrides);
}

// Qwen3-30B-A3B on one 8-GPU node without a pipeline.
Scenario qwen(std::vector<std::string> overrides) {
  for (const char* o : {"gpus=8", "parallel.pp=1", "parallel.vpp=1", "parallel.schedule=\"1f1b\"", "training.global_batch=64"}) {
    overrides.insert(overrides.begin(), o);
  }
  return load("qwen3-30b-a3b-h100-16.json", overrides);
}

// DeepSeek-V3's layer shapes (MLA, a shared expert, 3 dense layers) cut to 8 layers on 8 GPUs.
Scenario deepseek(std::vector<std::string> overrides) {
  const std::string path = std::string(CTWIN_SOURCE_DIR) + "/scenarios/deepseek-v3-h100-1024.json";
  nlohmann::json doc = load_json_file(path);
  doc["parallel"].erase("first_stage_layers");
  doc["parallel"].erase("last_stage_layers");
  // bf16: the layer shapes are what these tests check, not the scenario's fp8 GEMM rates.
  for (const char* o : {"gpus=8", "model.layers=8", "parallel.pp=1", "parallel.ep=8", "parallel.tp=1",
                        "training.global_batch=16", "training.precision=\"bf16\"", "network=\"analytical\""}) {
    overrides.insert(overrides.begin(), o);
  }
  return parse_scenario(doc, path, std::string(CTWIN_SOURCE_DIR) + "/scenarios", CTWIN_SOURCE_DIR, overrides);
}

int count(const std::vector<OpNode>& ops, const std::string& name) {
  int n = 0;
  for (const auto& op : ops) n += name == op.name ? 1 : 0;
  return n;
}

const OpNode* find(const std::vector<OpNode>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (name == op.name) return &op;
  }
  return nullptr;
}

SimTime kernel_sum(const SimulatedStep& step) {
  const auto& stage = step.work.stages.front();
  return testing::pass_kernels(stage, step.work.micro_batches) + compute_time_of(stage.after_backward, true, true);
}

TEST(MoeStep, WithoutPipelineAndFreeCommunicationStepIsTheSumOfKernelTimes) {
  for (const Scenario& s : {qwen({}), qwen({"parallel.recompute=\"full\""}), deepseek({}),
                            deepseek({"overlap.moe_shared_expert=true"})}) {
    const auto step = simulate_step(s, {.free_communication = true});
    ASSERT_EQ(step.work.stages.size(), 1u);
    const auto& forward = step.work.stages[0].chunks[0].forward;
    ASSERT_EQ(count(forward, "expert_fc1_grouped_gemm"), s.model.moe_layers());
    EXPECT_GT(find(forward, "expert_fc1_grouped_gemm")->duration, SimTime());
    EXPECT_EQ(step.replay.step_time, kernel_sum(step)) << s.model.name;
    EXPECT_NEAR(step.report.comm_ratio, 0, 1e-12);
  }
}

// Σ over the step of the expert GEMMs' FLOPs (forward, and dgrad + wgrad in the backward) on every
// rank = the workload model's routed-expert FLOPs (top_k experts' weights per token, fwd + 2 bwd).
TEST(MoeStep, ExpertGemmFlopsEqualTheWorkloadModelsMoeFlops) {
  for (const Scenario& s : {qwen({}), qwen({"parallel.ep=4"}), qwen({"parallel.ep=2", "parallel.expert_tp=2"}),
                            qwen({"parallel.tp=2", "parallel.sequence_parallel=true", "parallel.expert_tp=2",
                                  "parallel.ep=4"}),
                            deepseek({})}) {
    const MoeRankShape shape = moe_rank_shape(s.model, s.split);
    const std::int64_t h = s.model.hidden;
    double rank_forward = 0;
    for (const auto& [n, k] : {std::pair{shape.fc1_cols, h}, std::pair{h, shape.expert_cols}}) {
      rank_forward += compute::estimate_grouped_gemm(s.gpu, {shape.rows_per_expert, n, k}).flops.count();
    }
    const double ranks_per_stage = static_cast<double>(s.split.tp * s.split.cp * s.split.data_parallel(s.gpus));
    const double replayed = 3.0 * rank_forward * ranks_per_stage * static_cast<double>(s.split.micro_batches(s.gpus)) *
                            static_cast<double>(s.model.moe_layers());

    workload::ModelSpec no_routed = s.model;
    no_routed.moe.top_k = 0;
    const double per_token = workload::forward_flops_per_token(s.model, s.split.seq_len).layer_gemm -
                             workload::forward_flops_per_token(no_routed, s.split.seq_len).layer_gemm;
    const double modelled = 3.0 * per_token * static_cast<double>(s.split.global_batch * s.split.seq_len);
    EXPECT_NEAR(replayed / modelled, 1.0, 1e-12) << s.split.ep << " " << s.split.expert_tp << " " << s.split.tp;
  }
}

// What the EP group sends in the dispatch is what its experts receive (before the expert-TP
// gather) and what the combine sends back; the backward moves the same gradients.
TEST(MoeStep, AllToAllBytesAreConserved) {
  for (const Scenario& s : {qwen({}), qwen({"parallel.ep=2", "parallel.expert_tp=2"})}) {
    const MoeRankShape shape = moe_rank_shape(s.model, s.split);
    const std::int64_t sent = shape.all_to_all.count() * s.split.ep;
    const std::int64_t received = shape.rows() / s.split.expert_tp * s.split.ep * s.model.hidden * 2;
    EXPECT_EQ(sent, received);
    EXPECT_EQ(shape.rows(), shape.local_tokens * s.model.moe.top_k * s.split.expert_tp);

    const auto step = simulate_step(s);
    const auto& chunk = step.work.stages[0].chunks[0];
    const OpNode* dispatch = find(chunk.forward, "ep_dispatch_all_to_all");
    const OpNode* combine = find(chunk.forward, "ep_combine_all_to_all");
    ASSERT_TRUE(dispatch && combine);
    EXPECT_GT(dispatch->duration, SimTime());
    EXPECT_EQ(dispatch->duration, combine->duration);
    EXPECT_EQ(find(chunk.backward, "ep_dispatch_all_to_all_bwd")->duration, dispatch->duration);
    EXPECT_EQ(find(chunk.backward, "ep_combine_all_to_all_bwd")->duration, dispatch->duration);
    for (const char* name : {"ep_dispatch_all_to_all", "ep_combine_all_to_all"}) {
      EXPECT_EQ(count(chunk.forward, name), s.model.moe_layers());
    }
    EXPECT_EQ(count(chunk.forward, "expert_tp_all_gather"), s.split.expert_tp > 1 ? s.model.moe_layers() : 0);
  }
}

// ep 1: no all-to-all time, every expert on the rank, its grouped GEMM the same one over all E
// experts with n·k/E rows each.
TEST(MoeStep, EpOneRunsEveryExpertLocally) {
  const Scenario s = qwen({"parallel.ep=1"});
  const MoeRankShape shape = moe_rank_shape(s.model, s.split);
  EXPECT_EQ(shape.local_experts, s.model.moe.experts);
  const std::int64_t n = s.split.micro_batch * s.split.seq_len;
  const std::vector<std::int64_t> rows(static_cast<std::size_t>(s.model.moe.experts), n * s.model.moe.top_k / s.model.moe.experts);
  EXPECT_EQ(shape.rows_per_expert, rows);
  const auto step = simulate_step(s);
  const auto& forward = step.work.stages[0].chunks[0].forward;
  EXPECT_EQ(find(forward, "ep_dispatch_all_to_all")->duration, SimTime());
  EXPECT_EQ(find(forward, "expert_fc1_grouped_gemm")->duration,
            compute::estimate_grouped_gemm_rows(s.gpu, {rows, 2 * s.model.moe.expert_ffn_hidden, s.model.hidden,
                                                        compute::Dtype::kFp8}));
  EXPECT_NEAR(step.report.breakdown.exposed_comm_s.ep, 0, 1e-15);
  // The same layer with ep 8 moves tokens between GPUs, which costs time.
  EXPECT_GT(simulate_step(qwen({})).report.breakdown.exposed_comm_s.ep, 0);
}

// Expert weights live on ep·expert_tp ranks: their gradients are reduced over the other
// tp·cp·dp / (ep·expert_tp) ranks of the stage, and not at all when that is 1.
TEST(MoeStep, ExpertGradientsAreReducedOverExpertDataParallel) {
  const auto ep8 = simulate_step(qwen({}));
  const auto ep4 = simulate_step(qwen({"parallel.ep=4"}));
  EXPECT_EQ(count(ep8.work.stages[0].chunks[0].backward, "expert_dp_grad_reduce"), 0);
  EXPECT_EQ(count(ep4.work.stages[0].chunks[0].backward, "expert_dp_grad_reduce"), 48);
  EXPECT_EQ(count(ep4.work.stages[0].chunks[0].backward, "dp_grad_reduce"), 48 + 1);  // + embedding and output
  EXPECT_EQ(moe_groups(qwen({"parallel.ep=4"}).split, 8).expert_dp.size, 2);
}

TEST(MoeStep, DenseLayersComeFirst) {
  const auto step = simulate_step(deepseek({}));
  const auto& forward = step.work.stages[0].chunks[0].forward;
  EXPECT_EQ(count(forward, "router_gemm"), 5);
  // 3 dense MLPs and 5 shared experts, each one up GEMM.
  EXPECT_EQ(count(forward, "mlp_up_gemm"), 8);
  int first_router = -1, third_mlp = -1, mlps = 0;
  for (int i = 0; i < static_cast<int>(forward.size()); ++i) {
    if (first_router < 0 && std::string(forward[static_cast<std::size_t>(i)].name) == "router_gemm") first_router = i;
    if (std::string(forward[static_cast<std::size_t>(i)].name) == "mlp_up_gemm" && ++mlps == 3) third_mlp = i;
  }
  EXPECT_LT(third_mlp, first_router);
}

TEST(MoeStep, OverlappingSharedExpertsWithTheDispatchIsNoSlower) {
  const auto serial = simulate_step(deepseek({"overlap.moe_shared_expert=false"}));
  const auto overlapped = simulate_step(deepseek({"overlap.moe_shared_expert=true"}));
  EXPECT_LT(overlapped.replay.step_time, serial.replay.step_time);
  EXPECT_LT(overlapped.report.breakdown.exposed_comm_s.ep, serial.report.breakdown.exposed_comm_s.ep);
  EXPECT_NEAR(overlapped.report.breakdown.compute_s, serial.report.breakdown.compute_s, 1e-9);
}

// MLA: the projections' weights, with the output projection, are the attention's GEMM weights;
// the flash kernel's FLOPs are the model's attention core.
TEST(MoeStep, MlaProjectionsAndAttentionFollowTheModel) {
  const Scenario s = deepseek({});
  const auto params = workload::count_parameters(s.model);
  std::int64_t weights = s.model.heads * s.model.v_head_dim() * s.model.hidden;
  std::vector<std::string> names;
  for (const auto& g : qkv_projections(s.model, 1)) {
    weights += g.n * g.k;
    names.emplace_back(g.name);
  }
  EXPECT_EQ(weights, params.layer.attention_matmul);
  EXPECT_EQ(names, (std::vector<std::string>{"q_down_gemm", "kv_down_gemm", "q_up_gemm", "kv_up_gemm"}));
  const std::int64_t s_len = s.split.seq_len;
  const compute::AttentionShape shape{1, s_len, s_len, s.model.heads, attention_kv_heads(s.model, 1),
                                      flash_head_dim(s.model), false, compute::Dtype::kBf16};
  const auto core = workload::forward_flops_per_token(s.model, s_len).attention_core / static_cast<double>(s.model.layers);
  EXPECT_DOUBLE_EQ(compute::flash_attention_forward_flops(shape).count(), core * static_cast<double>(s_len));
  const auto step = simulate_step(s);
  EXPECT_EQ(count(step.work.stages[0].chunks[0].forward, "q_up_gemm"), s.model.layers);
  EXPECT_EQ(count(step.work.stages[0].chunks[0].backward, "kv_up_wgrad"), s.model.layers);
}

// A dropless dispatcher syncs with the host once per MoE layer forward: the GPU then waits for the
// host to issue what follows, the host timeline's exposure over the ops up to the next sync. CUDA
// graphs and token dropping (fixed sizes, no sync) remove it; the backward has none.
TEST(MoeStep, DroplessDispatchExposesHostLaunchesUnlessGraphedOrCapped) {
  const Scenario s = qwen({});
  const auto step = simulate_step(s);
  const auto& chunk = step.work.stages[0].chunks[0];
  ASSERT_EQ(count(chunk.forward, "moe_dispatch_sync"), s.model.moe_layers());
  EXPECT_EQ(count(chunk.backward, "moe_dispatch_sync"), 0);
  const OpNode* sync = find(chunk.forward, "moe_dispatch_sync");
  EXPECT_TRUE(sync->host);
  EXPECT_GE(sync->duration, s.gpu.host_launch);
  // The expert GEMMs are issued one GEMM per local expert (TransformerEngine's grouped linear).
  EXPECT_EQ(find(chunk.forward, "expert_fc1_grouped_gemm")->launches, 16);
  EXPECT_TRUE(find(chunk.forward, "expert_fc1_grouped_gemm")->grouped);
  // The second sync's wait recomputed by hand: host and GPU start together at it, every op up to
  // the third sync costs host_cost and holds the compute stream for its kernel time (or a
  // collective's when the stream joins it at once).
  std::vector<std::size_t> syncs;
  for (std::size_t i = 0; i < chunk.forward.size(); ++i) {
    if (std::string(chunk.forward[i].name) == "moe_dispatch_sync") syncs.push_back(i);
  }
  ASSERT_GE(syncs.size(), 3u);
  std::vector<HostKernel> issued;
  for (std::size_t i = syncs[1]; i < syncs[2]; ++i) {
    const OpNode& op = chunk.forward[i];
    if (op.occurs != Occurs::kEvery) continue;
    const bool held = !op.host && (op.stream == Stream::kCompute || op.join == Join::kNow);
    issued.push_back({held ? op.duration : SimTime(), host_cost(op, s), op.host ? 1 : op.launches});
  }
  EXPECT_EQ(chunk.forward[syncs[1]].duration, issue_timeline(issued).exposed());

  for (const Scenario& other : {qwen({"host={\"cuda_graphs\": true}"}), qwen({"moe_runtime={\"capacity_factor\": 1.0}"})}) {
    const auto quiet = simulate_step(other);
    EXPECT_EQ(count(quiet.work.stages[0].chunks[0].forward, "moe_dispatch_sync"), 0);
    EXPECT_LT(quiet.replay.step_time, step.replay.step_time);
  }
  // No launch cost, nothing exposed: the step is the graphed one.
  Scenario free_host = qwen({});
  free_host.gpu.host_launch = SimTime();
  EXPECT_EQ(simulate_step(free_host).replay.step_time, simulate_step(qwen({"host={\"cuda_graphs\": true}"})).replay.step_time);
}

// The busiest EP rank's experts run load × their balanced rows (imbalance, or the capacity
// factor's cap when tokens are dropped; exactly the capacity with padding).
TEST(MoeStep, ExpertRowsScaleWithTheBusiestRanksLoad) {
  const auto fc1 = [](const Scenario& s) {
    return find(simulate_step(s).work.stages[0].chunks[0].forward, "expert_fc1_grouped_gemm")->duration;
  };
  const Scenario balanced = qwen({});
  const MoeRankShape shape = moe_rank_shape(balanced.model, balanced.split);
  const auto rows_at = [&](double load) {
    std::vector<std::int64_t> rows;
    for (const std::int64_t r : shape.rows_per_expert) rows.push_back(static_cast<std::int64_t>(static_cast<double>(r) * load + 0.5));
    return compute::estimate_grouped_gemm_rows(balanced.gpu, {rows, shape.fc1_cols, balanced.model.hidden, compute::Dtype::kFp8});
  };
  EXPECT_EQ(fc1(balanced), rows_at(1.0));
  EXPECT_EQ(fc1(qwen({"moe_runtime={\"imbalance\": 1.5}"})), rows_at(1.5));
  EXPECT_EQ(fc1(qwen({"moe_runtime={\"imbalance\": 1.5, \"capacity_factor\": 1.25}"})), rows_at(1.25));
  EXPECT_EQ(fc1(qwen({"moe_runtime={\"imbalance\": 1.1, \"capacity_factor\": 1.25}"})), rows_at(1.1));
  EXPECT_EQ(fc1(qwen({"moe_runtime={\"capacity_factor\": 1.25, \"pad_to_capacity\": true}"})), rows_at(1.25));
  // Twice the rows per expert: more than twice the dense part's time is impossible, and the rows
  // model's overhead per row falls.
  EXPECT_LT(rows_at(2.0).seconds(), 2 * rows_at(1.0).seconds());
}

TEST(MoeStep, FusedPermutationMovesFewerBytesThanTheUnfused) {
  const auto permute = [](const Scenario& s) {
    const auto step = simulate_step(s);
    const auto& chunk = step.work.stages[0].chunks[0];
    return find(chunk.forward, "moe_permute")->duration + find(chunk.forward, "moe_unpermute")->duration +
           find(chunk.backward, "moe_unpermute_bwd")->duration + find(chunk.backward, "moe_permute_bwd")->duration;
  };
  EXPECT_LT(permute(qwen({"moe_runtime={\"permute_fusion\": true}"})), permute(qwen({})));
}

TEST(MoeStep, BadMoeRuntimeIsAnInputErrorNamingTheField) {
  const auto pointer_of = [](const std::function<void()>& load_it) -> std::string {
    try {
      load_it();
    } catch (const InputError& e) {
      return e.pointer();
    }
    return "accepted";
  };
  EXPECT_EQ(pointer_of([] { (void)qwen({"moe_runtime={\"imbalance\": 0.5}"}); }), "/moe_runtime/imbalance");
  EXPECT_EQ(pointer_of([] { (void)qwen({"moe_runtime={\"pad_to_capacity\": true}"}); }), "/moe_runtime/pad_to_capacity");
  EXPECT_EQ(pointer_of([] { (void)qwen({"moe_runtime={\"capacity_factor\": 0}"}); }), "/moe_runtime/capacity_factor");
  EXPECT_EQ(pointer_of([] { (void)qwen({"moe_runtime={\"imbalanse\": 1.2}"}); }), "/moe_runtime/imbalanse");
  EXPECT_EQ(pointer_of([] { (void)qwen({"host={\"cuda_graph\": true}"}); }), "/host/cuda_graph");
  EXPECT_EQ(pointer_of([] {
              (void)load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR,
                                  {"moe_runtime={\"imbalance\": 1.2}"});
            }),
            "/moe_runtime");
}

TEST(MoeStep, ExpertsNotDivisibleByEpAreAnInputErrorNamingTheField) {
  try {
    (void)qwen({"parallel.ep=3", "gpus=6"});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(e.source().find("qwen3-30b-a3b-h100-16.json"), std::string::npos) << e.source();
    EXPECT_EQ(e.pointer(), "/parallel/ep");
    EXPECT_NE(e.message().find("experts 128"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace ctwin::replay

namespace ctwin::replay {
namespace {

// EP over consecutive ranks (expert_tp 1) is predicted where its members are: 16 ranks on two
// 8-GPU nodes keep 7 of 15 peers on NVLink, so the exchange beats the same group spread one
// member per node (stride 8, all of it over the NICs), and equals predict_collective on the
// first 16 GPUs of the real cluster. On flow: without sharing (analytical) an all-to-all is its
// slowest transfer, which the spread group's same-rail paths make no slower.
TEST(CollectiveTimes, ConsecutiveAllToAllIsPlacedOnTheRealCluster) {
  const auto cluster = ctwin::testing::load_cluster_with_arch(std::string(CTWIN_SOURCE_DIR) + "/topologies/dgx-h100-superpod.json");
  CollectiveTimes comm(cluster, network::ModelKind::kFlow);
  const Bytes size(std::int64_t{256} << 20);
  const SimTime consecutive = comm.time(collectives::Op::kAlltoall, {16, 1}, size, 2);
  const SimTime spread = comm.time(collectives::Op::kAlltoall, {16, 8}, size, 2);
  EXPECT_LT(consecutive, spread);
  collectives::CollectiveQuery query;
  query.op = collectives::Op::kAlltoall;
  query.sizes = {size};
  query.element_bytes = 2;
  query.network = network::ModelKind::kFlow;
  EXPECT_EQ(consecutive, collectives::predict_collective(fabric::Fabric(cluster, 16), query).rows.front().time);
}

}  // namespace
}  // namespace ctwin::replay

namespace ctwin::replay {
namespace {

// Qwen3-235B-A22B as Megatron-Bridge splits it: 94 layers in 32 chunks, the embedding and the
// loss each taking a layer's slot; every layer is built exactly once, in order of the chunks.
TEST(MoeStep, EmbeddingAndLossSlotsHoldEveryLayerOnce) {
  const Scenario s = load("qwen3-30b-a3b-h100-16.json",
                          {"model=\"models/llm/qwen3-moe.json\"", "gpus=256", "parallel.tp=2", "parallel.pp=8",
                           "parallel.vpp=4", "parallel.ep=32", "parallel.sequence_parallel=true",
                           "training.global_batch=2048", "training.micro_batch=1",
                           "parallel.account_for_embedding_in_pipeline_split=true",
                           "parallel.account_for_loss_in_pipeline_split=true"});
  const auto work = simulate_step(s).work;
  int routers = 0;
  for (const auto& stage : work.stages) {
    for (const auto& chunk : stage.chunks) routers += count(chunk.forward, "router_gemm");
  }
  EXPECT_EQ(routers, 94);
  EXPECT_EQ(count(work.stages[0].chunks[0].forward, "router_gemm"), 2);
  EXPECT_EQ(count(work.stages[0].chunks[0].forward, "embedding"), 1);
  EXPECT_EQ(count(work.stages[7].chunks[3].forward, "router_gemm"), 2);
  EXPECT_EQ(count(work.stages[7].chunks[3].forward, "logits_gemm"), 1);
  EXPECT_EQ(count(work.stages[3].chunks[1].forward, "router_gemm"), 3);
}

}  // namespace
}  // namespace ctwin::replay

// The approximate shared-fabric replay (one scalable unit of each stage on the fabric): where it
// samples, and that it is exact where no traffic it drops could meet traffic it keeps.

#include <gtest/gtest.h>

#include "bundled_fabric.hpp"
#include "ctwin/fabric/builders/tier_plan.hpp"

#include <string>
#include <vector>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/replay/flow_sample.hpp"
#include "ctwin/replay/training_step.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

fabric::ClusterSpec superpod() {
  return ctwin::testing::load_cluster_with_arch(std::string(CTWIN_SOURCE_DIR) + "/topologies/dgx-h100-superpod.json");
}

StepOptions shared(FlowSample sample) {
  StepOptions options;
  options.comm = CommModel::kShared;
  options.flow_sample = sample;
  return options;
}

TEST(FlowSample, NamesAndBadValues) {
  EXPECT_EQ(parse_flow_sample("full", "--flow-sample"), FlowSample::kFull);
  EXPECT_EQ(parse_flow_sample("su", "--flow-sample"), FlowSample::kScalableUnit);
  EXPECT_EQ(parse_flow_sample("replica", "--flow-sample"), FlowSample::kReplica);
  EXPECT_EQ(flow_sample_name(FlowSample::kReplica), "replica");
  EXPECT_EQ(flow_sample_name(FlowSample::kScalableUnit), "su");
  EXPECT_EQ(flow_sample_name(FlowSample::kFull), "full");
  for (const char* bad : {"", "SU", "half", "0.5"}) EXPECT_THROW((void)parse_flow_sample(bad, "--flow-sample"), InputError);
}

TEST(FlowSample, OneUnitOfAStageThatIsWholeUnits) {
  const auto spec = superpod();  // 32 nodes of 8 GPUs per scalable unit: 256 GPUs
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, spec, 1024, 16), 256);
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, spec, 512, 16), 256);
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kFull, spec, 1024, 16), 1024);
  // A stage of one unit or less, or not whole units: nothing to sample, the full replay.
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, spec, 256, 16), 256);
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, spec, 128, 16), 128);
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, spec, 384, 16), 384);
}

// Top of rack: a leaf and its nodes are the unit (64-port leaves at 1:1 take 32 NICs, four
// 8-NIC nodes: 32 GPUs), in whole replicas; a leaf count that does not tile the stage (six nodes
// at 4:1), or a replica sample, which would share its leaf with nodes left out: the full replay.
TEST(FlowSample, TopOfRackSamplesWholeLeaves) {
  auto tor = superpod();
  tor.fabric.kind = fabric::FabricKind::kTopOfRack;
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, tor, 1024, 16), 32);
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, tor, 1024, 64), 64);  // lcm(32, 64)
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, tor, 32, 16), 32);    // one leaf: nothing to sample
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kReplica, tor, 1024, 16), 1024);
  tor.fabric.leaf_oversubscription = 4;
  EXPECT_EQ(fabric::plan_tiers(tor, 1).nodes_per_leaf, 6);
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, tor, 2560, 8), 2560);
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kScalableUnit, tor, 2400, 8), 48);
}

TEST(FlowSample, OneReplicaInWholeNodes) {
  const auto spec = superpod();  // 8 GPUs per node
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kReplica, spec, 1024, 16), 16);  // tp 4 · cp 4: two nodes
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kReplica, spec, 1024, 4), 8);    // tp 4: one node, two replicas
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kReplica, spec, 96, 24), 24);    // lcm(24, 8)
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kReplica, spec, 1024, 24), 1024);  // 24 does not tile 1,024
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kReplica, spec, 36, 12), 36);    // tp 4 · cp 3: lcm 24 does not divide 36
  EXPECT_EQ(sampled_stage_gpus(FlowSample::kReplica, spec, 16, 16), 16);    // one replica per stage: nothing to sample
}

TEST(FlowSample, ExactWhereTheDroppedTrafficMeetsNothingKept) {
  // One stage of 1,024 GPUs (four units), tp 8 and cp 2 inside each pair of nodes, so every TP
  // and CP group stays under its unit's own leaves (rail-aligned: no spine). DP is not overlapped
  // (gradients reduced after the schedule, parameters gathered after the optimizer), so the DP
  // collectives, kept whole, never run beside the other units' dropped CP traffic. Every unit
  // then sees the same traffic on links no other unit uses, and the sample's op times are the
  // full replay's.
  const Scenario s = scenario({"gpus=1024", "parallel.tp=8", "parallel.cp=2", "parallel.pp=1",
                               "training.global_batch=64", "overlap.dp_grad_reduce=false",
                               "overlap.dp_param_gather=false"});
  const auto full = simulate_step(s, shared(FlowSample::kFull));
  EXPECT_EQ(full.flow_sample_gpus, 0);
  EXPECT_GT(full.report.breakdown.exposed_comm_s.cp + full.report.breakdown.exposed_comm_s.dp, 0);
  for (const auto& [sample, gpus] : {std::pair{FlowSample::kScalableUnit, 256}, std::pair{FlowSample::kReplica, 16}}) {
    const auto approx = simulate_step(s, shared(sample));
    ASSERT_TRUE(approx.shared_fabric);
    EXPECT_EQ(approx.flow_sample_gpus, gpus);
    EXPECT_LT(approx.replay.events, full.replay.events) << "the sample must leave traffic out";
    EXPECT_NEAR(approx.replay.step_time.seconds(), full.replay.step_time.seconds(),
                1e-9 * full.replay.step_time.seconds())
        << flow_sample_name(sample);
  }
}

TEST(FlowSample, NothingToSampleIsTheFullReplayBitForBit) {
  // The default scenario's stages are 32 GPUs, inside one unit.
  const Scenario s = scenario({});
  const auto full = simulate_step(s, shared(FlowSample::kFull));
  const auto su = simulate_step(s, shared(FlowSample::kScalableUnit));
  EXPECT_EQ(su.flow_sample_gpus, 0);
  EXPECT_EQ(su.replay.events, full.replay.events);
  EXPECT_EQ(su.replay.step_time, full.replay.step_time);
}

TEST(FlowSample, EveryRankReplayIsNotSampled) {
  StepOptions options = shared(FlowSample::kScalableUnit);
  options.all_ranks = true;
  EXPECT_THROW((void)simulate_step(scenario({}), options), InputError);
}

}  // namespace
}  // namespace ctwin::replay

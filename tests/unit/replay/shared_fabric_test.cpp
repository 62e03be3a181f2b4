// Communication replayed on one shared flow simulation: alone it takes the communication twin's
// time, traffic sharing links slows down by the share, bytes are conserved, and one rank per
// stage gives the step of every rank simulated.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bundled_fabric.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/replay/shared_fabric.hpp"
#include "ctwin/replay/training_step.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

using namespace ctwin::literals;

StepOptions comm(CommModel model, bool all_ranks = false) {
  StepOptions options;
  options.comm = model;
  options.all_ranks = all_ranks;
  return options;
}

TEST(SharedFabric, AloneEachCollectiveTakesItsPredictedTime) {
  // tp 8 on one node, nothing else: the TP collectives run one after another.
  const Scenario s = scenario({"gpus=8", "parallel.tp=8", "parallel.pp=1", "training.global_batch=4"});
  const auto isolated = simulate_step(s, comm(CommModel::kIsolated));
  const auto shared = simulate_step(s, comm(CommModel::kShared));
  ASSERT_TRUE(shared.shared_fabric);
  ASSERT_FALSE(isolated.shared_fabric);
  EXPECT_GT(isolated.report.breakdown.exposed_comm_s.tp, 0);
  EXPECT_NEAR(shared.replay.step_time.seconds(), isolated.replay.step_time.seconds(), 1e-9);
}

// Two all-reduces over the same ranks, one on each of two streams, across 4 nodes: each of
// the 8 rail-aligned rings of the stage shares its NICs with the other op's ring.
StepWork two_concurrent_all_reduces(SimTime isolated, bool same_stream) {
  const CommCall call{collectives::Op::kAllReduce, {4, 8}, Bytes(std::int64_t{256} << 20), 2};
  OpNode a{"a", Stream::kDp, isolated, Join::kTaskEnd};
  a.comm = call;
  OpNode b = a;
  b.name = "b";
  if (!same_stream) b.stream = Stream::kCp;
  StepWork work;
  work.micro_batches = 1;
  work.stage_gpus = 32;
  StageWork stage;
  stage.chunks.push_back({{a, b}, {}});
  work.stages.push_back(stage);
  return work;
}

TEST(SharedFabric, TrafficSharingTheLinksTakesTwiceAsLong) {
  const auto cluster = ctwin::testing::load_cluster_with_arch(std::string(CTWIN_SOURCE_DIR) + "/topologies/dgx-h100-superpod.json");
  const std::vector<std::vector<PipelineTask>> order{{{true, 0, 0}, {false, 0, 0}}};
  CollectiveTimes times(cluster, network::ModelKind::kFlow);
  const auto plan = times.plan(two_concurrent_all_reduces(10_ms, true).stages[0].chunks[0].forward[0].comm.value());
  ASSERT_TRUE(plan);
  std::uint64_t transfers = 0;  // of one group's plan
  for (const auto& phase : plan->phases) transfers += phase.transfers.size();
  for (const bool same_stream : {true, false}) {
    engine::Simulator simulator;
    SharedFabricExecutor executor(std::make_shared<const fabric::Fabric>(cluster, 32), 32, simulator, times);
    const SimTime isolated = 10_ms;
    const auto result = replay_step(two_concurrent_all_reduces(isolated, same_stream), order, {}, simulator, executor);
    // In turn, each takes its own time; at once, each gets half of every link it uses.
    EXPECT_NEAR(result.step_time.seconds(), 2 * isolated.seconds(), same_stream ? 1e-9 : 0.01 * isolated.seconds())
        << (same_stream ? "same stream" : "two streams");
    const auto& stats = executor.stats();
    EXPECT_EQ(stats.started, 2u * 8 * transfers) << "2 ops x 8 groups x their plan's transfers";
    EXPECT_EQ(stats.completed, stats.started);
    EXPECT_EQ(stats.bytes_delivered, stats.bytes_started);
  }
}

TEST(SharedFabric, OneRankPerStageGivesTheStepOfEveryRank) {
  // tp 2 within nodes, dp 16 across four nodes, pp 2: sends, DP and TP traffic together.
  const Scenario s = scenario({"training.global_batch=32"});
  const auto one = simulate_step(s, comm(CommModel::kShared));
  const auto every = simulate_step(s, comm(CommModel::kShared, true));
  EXPECT_EQ(one.replay.ranks.size(), 2u);
  EXPECT_EQ(every.replay.ranks.size(), 64u);
  EXPECT_EQ(every.replay.step_time, one.replay.step_time);
  const auto& a = one.report.breakdown;
  const auto& b = every.report.breakdown;
  EXPECT_NEAR(a.compute_s, b.compute_s, 1e-9);
  // Idle time is the same; with every rank simulated, a rank that got its input early waits in
  // the next collective for the members that did not (communication), where one rank per stage
  // waits for the whole stage's input (bubble).
  EXPECT_NEAR(a.bubble_s + a.exposed_comm_s.total(), b.bubble_s + b.exposed_comm_s.total(), 1e-9);
  // And without the shared fabric, every rank simulated changes nothing either.
  EXPECT_EQ(simulate_step(s, comm(CommModel::kIsolated, true)).replay.step_time,
            simulate_step(s, comm(CommModel::kIsolated)).replay.step_time);
}

TEST(SharedFabric, ContentionOnlyAddsTime) {
  for (const auto& overrides : std::vector<std::vector<std::string>>{
           {}, {"parallel.pp=4"}, {"parallel.tp=8", "parallel.pp=1"}, {"overlap.dp_grad_reduce=false"}}) {
    const Scenario s = scenario(overrides);
    EXPECT_GE(simulate_step(s, comm(CommModel::kShared)).replay.step_time,
              simulate_step(s, comm(CommModel::kIsolated)).replay.step_time);
  }
}

}  // namespace
}  // namespace ctwin::replay

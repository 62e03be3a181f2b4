// The shared-fabric replay puts on the cluster the transfers the collectives' own plans
// describe: a step's DP reduce-scatter, planned independently here with the algorithm the
// communication twin picks for its group, is what the executor launches, transfer for transfer.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ctwin/collectives/plan.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/shared_fabric.hpp"
#include "ctwin/replay/training_step.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

// The first DP reduce-scatter of stage 0's backward passes.
CommCall dp_reduce_scatter(const StepWork& work) {
  for (const auto& chunk : work.stages.front().chunks) {
    for (const auto& op : chunk.backward) {
      if (op.stream == Stream::kDp && op.comm && op.comm->op == collectives::Op::kReduceScatter) return *op.comm;
    }
  }
  ADD_FAILURE() << "no DP reduce-scatter in the step";
  return {};
}

// What the collective layer does for this call on its own: pick the algorithm for the group's
// fabric and size (nccl-tests rounding of a buffer to whole shards), then plan it.
collectives::Plan collective_plan(const CommCall& call, const fabric::Fabric& group_fabric) {
  collectives::CollectiveQuery query;
  query.op = call.op;
  const std::int64_t unit = call.group.size * call.element_bytes;
  query.sizes = {Bytes((call.size.count() + unit - 1) / unit * unit)};
  query.element_bytes = call.element_bytes;
  query.network = network::ModelKind::kFlow;
  const auto predicted = collectives::predict_collective(group_fabric, query);
  return collectives::make_plan(call.op, predicted.rows.front().algorithm, group_fabric,
                                collectives::default_channels(group_fabric));
}

// Every transfer the executor launched for one group (its members' GPUs, stage 0), in order.
std::vector<LaunchedTransfer> of_group(const std::vector<LaunchedTransfer>& log, const std::vector<std::int64_t>& members) {
  std::vector<LaunchedTransfer> out;
  for (const auto& t : log) {
    if (std::find(members.begin(), members.end(), t.src) != members.end()) out.push_back(t);
  }
  return out;
}

void expect_traffic_is_plan(const std::vector<LaunchedTransfer>& launched, const collectives::Plan& plan,
                            const std::vector<std::int64_t>& members, const CommCall& call) {
  std::size_t i = 0;
  double factor = -1;  // bytes on the fabric per planned byte, one for the whole op
  std::map<int, SimTime> phase_start;
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    const auto& phase = plan.phases[p];
    for (const auto& t : phase.transfers) {
      ASSERT_LT(i, launched.size()) << "fewer transfers launched than planned";
      const auto& got = launched[i++];
      EXPECT_EQ(got.phase, static_cast<int>(p));
      EXPECT_EQ(got.repeat, phase.repeat);
      EXPECT_EQ(got.src, members[static_cast<std::size_t>(t.src)]);
      EXPECT_EQ(got.dst, members[static_cast<std::size_t>(t.dst)]);
      EXPECT_EQ(got.fraction, t.fraction);
      EXPECT_EQ(got.route.flow_label, t.route.flow_label);
      EXPECT_EQ(got.route.leg, t.route.leg);
      const double planned = t.fraction * phase.repeat * static_cast<double>(call.size.count());
      const double ratio = static_cast<double>(got.bytes.count()) / planned;
      if (factor < 0) factor = ratio;
      EXPECT_NEAR(ratio, factor, 1e-6 * factor) << "one pace factor for every transfer";
      if (!phase_start.count(got.phase)) phase_start[got.phase] = got.start;
      EXPECT_EQ(got.start, phase_start[got.phase]) << "a phase's transfers start together";
    }
  }
  EXPECT_EQ(i, launched.size()) << "more transfers launched than planned";
  // The protocol's wire overhead and latencies only add bytes to a large collective's plan.
  EXPECT_GE(factor, 1.0);
  for (std::size_t p = 1; p < plan.phases.size(); ++p) {
    EXPECT_GT(phase_start[static_cast<int>(p)], phase_start[static_cast<int>(p - 1)]) << "phases in order";
  }
}

TEST(SharedFabricPlans, DpReduceScatterTrafficIsTheCollectivesPlan) {
  // tp 8: DP over one GPU of each of 8 nodes (one rail's slice); tp 2: 4 members in each of 4
  // nodes (a 4-GPU slice with 4 NICs and channels).
  for (const auto& overrides : std::vector<std::vector<std::string>>{{"parallel.tp=8", "parallel.pp=1"},
                                                                     {"parallel.pp=1", "training.global_batch=32"}}) {
    const Scenario s = scenario(overrides);
    CollectiveTimes comm(s.cluster, s.network, false, nullptr, s.tuning);
    const StepWork work = build_step_work(s, comm);
    const CommCall call = dp_reduce_scatter(work);
    ASSERT_GT(call.group.size, 1);
    ASSERT_GT(call.group.size * call.group.stride, s.cluster.server.gpus) << "the DP group spans nodes";
    const collectives::Plan plan = collective_plan(call, *comm.group_fabric(call.group));
    ASSERT_EQ(plan.ranks, call.group.size);

    engine::Simulator simulator;
    SharedFabricExecutor executor(std::make_shared<const fabric::Fabric>(s.cluster, static_cast<int>(s.gpus)),
                                  work.stage_gpus, simulator, comm);
    std::vector<LaunchedTransfer> log;
    executor.record(&log);
    const SimTime isolated = comm.time(call);
    SimTime done;
    // One group, as an all-ranks replay starts it, then every group of the stage at once.
    executor.start_collective(call, isolated, 0, 0, [&] { done = simulator.now(); });
    simulator.run();
    EXPECT_NEAR(done.seconds(), isolated.seconds(), 1e-9) << "alone, the plan's traffic lasts the predicted time";
    expect_traffic_is_plan(log, plan, group_members(call.group, 0), call);

    log.clear();
    executor.start_collective(call, isolated, 0, kEveryGroup, [] {});
    simulator.run();
    const auto leaders = group_leaders(call.group, work.stage_gpus);
    EXPECT_EQ(leaders.size(), static_cast<std::size_t>(call.group.stride));
    std::size_t planned = 0;
    for (const auto& phase : plan.phases) planned += phase.transfers.size();
    EXPECT_EQ(log.size(), planned * leaders.size());
    for (const std::int64_t leader : leaders) {
      const auto members = group_members(call.group, leader);
      expect_traffic_is_plan(of_group(log, members), plan, members, call);
    }
  }
}

}  // namespace
}  // namespace ctwin::replay

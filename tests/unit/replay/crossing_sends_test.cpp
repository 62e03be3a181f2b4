// Pipeline sends that cross sites on the shared flow fabric (issue 38): a stage's ranks send to
// their peers in the next stage, in the other site, all at once. Oracles: the traffic carries the
// send's own bytes (not the bytes that a node slice's share of the DCI would take the time of a
// whole NIC to move); the crossing takes the closed form of its narrowest cut, each rail's leaf's
// one cable to the border (its ranks' bytes over 400 Gb/s), plus the DCI's one-way latency.
// Collectives whose groups span the sites likewise carry their plans' own bytes, and every group
// of a stage together takes the time each was predicted in (a node slice's share of the DCI).

#include <gtest/gtest.h>

#include <memory>

#include "bundled_fabric.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/placement.hpp"
#include "ctwin/replay/shared_fabric.hpp"

namespace ctwin::replay {
namespace {

// 64 GPUs (8 nodes) of two-site-h100-roce: nodes 0-3 in site 0, 4-7 in site 1. PP 2 of 32 GPUs
// per stage: stage 0 in site 0, stage 1 in site 1, so the 0 -> 1 send crosses for every rank.
constexpr std::int64_t kCrossingGpus = 64;
constexpr std::int64_t kCrossingStage = 32;

TEST(CrossingSends, AStageCrossingTheDciCarriesItsOwnBytesInTheBorderCablesClosedForm) {
  const fabric::ClusterSpec spec = testing::bundled_cluster("two-site-h100-roce");
  CollectiveTimes times(spec, network::ModelKind::kFlow);
  times.place(Placement(kCrossingGpus), kCrossingStage);
  const CommCall call{collectives::Op::kSendRecv, {2, kCrossingStage}, Bytes(std::int64_t{32} << 20), 2};
  engine::Simulator simulator;
  SharedFabricExecutor executor(std::make_shared<const fabric::Fabric>(spec, kCrossingGpus), kCrossingStage, simulator, times);
  SimTime finished;
  executor.start_send(call, times.time(call), 0, 1, kEveryGroup, [&] { finished = simulator.now(); });
  simulator.run();
  const double sent = static_cast<double>(call.size.count()) * kCrossingStage;
  const double bytes = static_cast<double>(executor.bytes_started().count());
  EXPECT_GE(bytes, sent);
  EXPECT_LT(bytes, 1.1 * sent) << "the crossing carries " << bytes / sent << " times the send's bytes";
  // Rail k's leaf holds the 4 nodes' NIC k and one 400 Gb/s cable to the border: 8 cables of
  // 3.2 Tb/s together, under the 16 x 400G DCI; then the DCI's 500 us.
  const double border_s = bytes / 8 / (400e9 / 8);
  const double closed_s = 500e-6 + border_s;
  EXPECT_GT(finished.seconds(), 0.98 * closed_s);
  EXPECT_LT(finished.seconds(), 1.25 * closed_s) << "closed form " << closed_s << " s";
}

TEST(CrossingSends, GroupsSpanningTheSitesCarryTheirOwnBytesInTheirPredictedTime) {
  // The DCI cut to 2 links (800 Gb/s) so that it binds: 8 DP groups of 8 (one GPU a node, 4 nodes
  // a site) each cross it twice a ring, as their node slices with 1/8 of the DCI each predict.
  const fabric::ClusterSpec spec = testing::bundled_cluster("two-site-h100-roce", {"fabric.sites.dci.links=2"});
  CollectiveTimes times(spec, network::ModelKind::kFlow);
  times.place(Placement(kCrossingGpus), kCrossingGpus);
  const CommCall call{collectives::Op::kAllReduce, {8, 8}, Bytes(std::int64_t{256} << 20), 2};
  ASSERT_NE(times.spanning_group_fabric(call), nullptr);
  const SimTime predicted = times.time(call);
  engine::Simulator simulator;
  const auto built = std::make_shared<const fabric::Fabric>(spec, kCrossingGpus);
  SharedFabricExecutor executor(built, kCrossingGpus, simulator, times);
  std::vector<double> link_bytes(built->links().size(), 0.0);
  executor.count_link_bytes(&link_bytes);
  SimTime finished;
  executor.start_collective(call, predicted, 0, kEveryGroup, [&] { finished = simulator.now(); });
  simulator.run();
  double own = 0;  // the plan's bytes, for the 8 groups
  for (const auto& phase : times.plan(call)->phases) {
    for (const auto& t : phase.transfers) own += t.fraction * phase.repeat * static_cast<double>(call.size.count());
  }
  own *= 8;
  const double bytes = static_cast<double>(executor.bytes_started().count());
  EXPECT_GE(bytes, own);
  EXPECT_LT(bytes, 1.1 * own) << "the groups carry " << bytes / own << " times their plans' bytes";
  // No faster than the busiest DCI link can carry its bytes, plus its one-way latency; no slower
  // than each group was predicted to take with its slice's share of the DCI (before the fix, each
  // slice's share of the time turned into whole-DCI bytes: 3.0 times the plans' bytes, 2.4 times
  // the predicted time).
  double floor_s = 0;
  for (std::size_t l = 0; l < link_bytes.size(); ++l) {
    const fabric::Link& link = built->links()[l];
    if (link.kind != fabric::LinkKind::kDci) continue;
    floor_s = std::max(floor_s, link_bytes[l] / link.achieved().bytes_per_second() + link.latency.seconds());
  }
  EXPECT_GT(floor_s, 0.5 * predicted.seconds()) << "the DCI binds";
  EXPECT_GE(finished.seconds(), floor_s);
  EXPECT_LT(finished.seconds(), 1.1 * predicted.seconds()) << "predicted " << predicted.seconds() << " s";
}

}  // namespace
}  // namespace ctwin::replay

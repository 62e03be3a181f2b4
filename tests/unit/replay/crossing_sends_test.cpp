// Pipeline sends that cross sites on the shared flow fabric (issue 38): a stage's ranks send to
// their peers in the next stage, in the other site, all at once. Oracles: the traffic carries the
// send's own bytes (not the bytes that a node slice's share of the DCI would take the time of a
// whole NIC to move); the crossing takes the closed form of its narrowest cut, each rail's leaf's
// one cable to the border (its ranks' bytes over 400 Gb/s), plus the DCI's one-way latency.

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

}  // namespace
}  // namespace ctwin::replay

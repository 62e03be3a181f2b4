// Group fabrics on a multi-site build follow the sites their members occupy (comm_groups.hpp):
// a group inside one site costs exactly what it costs on that site's fabric alone (the spec
// without `sites`); one spanning both sites pays the DCI; a pipeline send pays it only at the
// stage boundary that crosses sites.

#include <gtest/gtest.h>

#include "bundled_fabric.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/placement.hpp"

namespace ctwin::replay {
namespace {

using collectives::Op;

// 128 GPUs (16 nodes) of two-site-h100-roce: nodes 0-7 in site 0, 8-15 in site 1. PP 4 of 32
// GPUs per stage: stages 0 and 1 in site 0, 2 and 3 in site 1.
constexpr std::int64_t kGpus = 128;
constexpr std::int64_t kStage = 32;

CollectiveTimes placed_times(const fabric::ClusterSpec& spec) {
  CollectiveTimes times(spec, network::ModelKind::kAnalytical);
  times.place(Placement(kGpus), kStage);
  return times;
}

fabric::ClusterSpec one_site_spec() {
  fabric::ClusterSpec spec = testing::bundled_cluster("two-site-h100-roce");
  spec.fabric.sites.reset();
  return spec;
}

TEST(SiteGroups, AGroupInsideOneSiteCostsWhatItCostsOnOneSite) {
  auto two = placed_times(testing::bundled_cluster("two-site-h100-roce"));
  auto one = placed_times(one_site_spec());
  const Bytes size(std::int64_t{1} << 30);
  for (const Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
    const GroupShape dp{4, 8};  // one GPU of each of a stage's 4 nodes
    EXPECT_EQ(two.time(op, dp, size, 2).seconds(), one.time(op, dp, size, 2).seconds());
  }
  const CommCall send{Op::kSendRecv, {2, kStage}, Bytes(64 << 20), 2};
  EXPECT_EQ(two.time(send).seconds(), one.time(send).seconds());  // stage 0 to 1, both in site 0
  EXPECT_EQ(two.send_time(send, two.time(send), 2, 3).seconds(), two.time(send).seconds());  // both in site 1
}

TEST(SiteGroups, AGroupAcrossBothSitesPaysTheDci) {
  const auto spec = testing::bundled_cluster("two-site-h100-roce");
  auto two = placed_times(spec);
  auto one = placed_times(one_site_spec());
  CollectiveTimes unlocated(spec, network::ModelKind::kAnalytical);  // every group over both sites
  const Bytes size(std::int64_t{1} << 30);
  const GroupShape across{16, 8};  // one GPU of each of the 16 nodes: 8 in each site
  const double two_s = two.time(Op::kAllReduce, across, size, 2).seconds();
  EXPECT_EQ(two_s, unlocated.time(Op::kAllReduce, across, size, 2).seconds());
  // 16 x 400G of DCI shared by the node's 8 slices: 800 Gb/s against 400 Gb/s per NIC, and 500 us
  // a crossing, so well above the one-site time.
  EXPECT_GT(two_s, 1.2 * one.time(Op::kAllReduce, across, size, 2).seconds());
  // Only the send from stage 1 (site 0) to stage 2 (site 1) crosses; it is priced as the 2-site
  // send between two nodes, the others as the stage 0 to 1 send.
  const CommCall send{Op::kSendRecv, {2, kStage}, Bytes(64 << 20), 2};
  const SimTime reference = two.time(send);
  const SimTime crossing = two.send_time(send, reference, 1, 2);
  EXPECT_NEAR(crossing.seconds(), unlocated.time(send).seconds(), 1e-9);
  EXPECT_GT(crossing.seconds(), reference.seconds() + 500e-6);  // at least the DCI's one-way latency more
  EXPECT_EQ(two.send_time(send, reference, 0, 1).seconds(), reference.seconds());
}

}  // namespace
}  // namespace ctwin::replay

// Degraded parts (fabric/degradation.hpp): each term parses to the part it names and back, bad
// terms name the flag and the term, and on the flow model a part at a share of its rate slows
// exactly the flows that cross it: the cable's own rate halves, a flow crossing it drains at the
// slowest rate of its path with that cable halved (here the cable's half rate: below every other
// link), and every other flow takes exactly the time it took.

#include "ctwin/fabric/degradation.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"

#include "ctwin/acceptance/acceptance_p2p.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/router.hpp"
#include "ctwin/network/network_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace ctwin::fabric {
namespace {

Fabric build(int gpus) {
  return Fabric(load_cluster(std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "dgx-h100-superpod.json"), gpus);
}

// One transfer alone on the flow model: its time.
double flow_seconds(const Fabric& fabric, GpuId src, GpuId dst, Bytes size) {
  engine::Simulator simulator;
  auto model = network::make_network_model(network::ModelKind::kFlow, fabric, simulator);
  SimTime done;
  model->start_transfer({src, dst, size, {}}, [&] { done = simulator.now(); });
  model->run();
  return done.seconds();
}

double path_latency(const Fabric& fabric, GpuId src, GpuId dst) {
  return path_properties(fabric, route(fabric, src, dst)).latency.seconds();
}

// The drain time a flow alone must take after degrading `part` to `share`: the size over the
// slowest achieved rate of its path, read from the healthy fabric, the part's links scaled.
double expected_drain(const Fabric& healthy, GpuId src, GpuId dst, Bytes size, const std::vector<LinkId>& part,
                      double share) {
  double slowest = 1e300;
  for (const LinkId id : route(healthy, src, dst)) {
    const bool scaled = std::find(part.begin(), part.end(), id) != part.end();
    slowest = std::min(slowest, healthy.link(id).achieved().bytes_per_second() * (scaled ? share : 1.0));
  }
  return static_cast<double>(size.count()) / slowest;
}

TEST(Degradation, EveryFormParsesAndPrintsBack) {
  const Fabric fabric = build(512);  // 64 nodes, 2 scalable units, two tiers
  for (const std::string term : {"gpu:17=0.8", "nic:8=0.25", "link:leaf3.up5=0.5", "link:n12.nic3=0.5", "leaf:3=uplinks:0.5"}) {
    EXPECT_EQ(fabric::term(fabric, parse_degradation(term, "--degrade", fabric)), term);
  }
  // A NIC is named by the first GPU it serves: the DGX H100 has one NIC per GPU, so 13 is 13.
  EXPECT_EQ(parse_degradation("nic:13=0.5", "--degrade", fabric).index, 13);
  EXPECT_EQ(cable_name(fabric, fabric.access_link(12, 3)), "n12.nic3");
  EXPECT_EQ(cable_name(fabric, reverse(fat_tree(fabric).leaf_uplink(fabric, 3, 5))), "leaf3.up5");
  EXPECT_EQ(cable_name(fabric, 0), "");  // inside a node
}

TEST(Degradation, BadTermsNameTheFlagAndTheTerm) {
  const Fabric fabric = build(64);
  for (const std::string term : {"fan:1=0.5", "nic:64=0.5", "nic:1=0", "nic:1=1.5", "nic:1=half", "gpu:-1=0.5",
                                 "link:leaf0.up999=0.5", "link:core1.up1=0.5", "link:spine0.up0=0.5", "leaf:0=0.5",
                                 "leaf:99=uplinks:0.5", "nic1=0.5", "leaf:0=uplinks:nan"}) {
    try {
      (void)parse_degradation(term, "--degrade", fabric);
      ADD_FAILURE() << term << " was accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--degrade"), std::string::npos) << what;
      EXPECT_NE(what.find(term), std::string::npos) << what;
    }
  }
}

// `nic:3=1e-12` drained its flows past the end of int64 picoseconds and tripped an assertion in
// the flow model's drain queue (issue 36): below 0.001 of its rate a part is failed, not slow,
// and no share may leave a link below the 1 Mbps every link file is held to.
TEST(Degradation, ASharePastTheFloorIsRefusedWithTheReason) {
  const Fabric fabric = build(512);  // two tiers: leaves have uplinks
  for (const std::string term : {"nic:3=1e-12", "nic:3=0.0009", "link:leaf0.up0=1e-300", "leaf:0=uplinks:1e-5"}) {
    try {
      (void)parse_degradation(term, "--degrade", fabric);
      ADD_FAILURE() << term << " was accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(term), std::string::npos) << what;
      EXPECT_NE(what.find("failed part, not a slow one"), std::string::npos) << what;
    }
  }
  EXPECT_DOUBLE_EQ(parse_degradation("nic:3=0.001", "--degrade", fabric).factor, 0.001);
  // A 100 Mbps NIC (a legal file) at 0.005 would be 0.5 Mbps: refused for the link, not the share.
  ClusterSpec slow = fabric.spec();
  slow.server.nics.link.bandwidth = Bandwidth::bits_per_second(100e6);
  const Fabric slow_fabric(slow, 64);
  try {
    (void)parse_degradation("nic:3=0.005", "--degrade", slow_fabric);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("below the 1 Mbps"), std::string::npos) << e.what();
  }
}

TEST(Degradation, ACableAtHalfHalvesTheFlowsThatCrossIt) {
  const Fabric healthy = build(512);
  const Bytes size(1LL << 30);
  // Cross-rail pairs climb to a spine through one of their leaf's uplinks (ECMP): find one
  // crossing uplink k of the source's leaf and one that does not.
  const GpuId src = 0;
  std::vector<GpuId> crossing, other;
  const int leaf = healthy.switch_of_nic(0, 0);
  const LinkId uplink = route(healthy, src, 8 + 1)[3];  // GPU, PCIe.., NIC cable, then the leaf's uplink
  ASSERT_EQ(healthy.link(uplink).kind, LinkKind::kLeafSpine);
  for (GpuId dst = 8; dst < healthy.gpus(); ++dst) {
    if (api::path_class(healthy, {src, dst}) != api::PathClass::kCrossRail) continue;
    const auto path = route(healthy, src, dst);
    (std::find(path.begin(), path.end(), uplink) != path.end() ? crossing : other).push_back(dst);
  }
  ASSERT_FALSE(crossing.empty());
  ASSERT_FALSE(other.empty());
  Fabric degraded = build(512);
  const std::string name = cable_name(degraded, uplink);
  ASSERT_EQ(name.rfind("leaf" + std::to_string(leaf) + ".up", 0), 0U) << name;
  const Degradation half = parse_degradation("link:" + name + "=0.5", "--degrade", degraded);
  apply_degradation(degraded, half);
  // The cable itself runs at half its rate, both ways; nothing else changed.
  for (LinkId id = 0; id < healthy.links().size(); ++id) {
    const bool part = id == uplink || id == reverse(uplink);
    EXPECT_EQ(degraded.link(id).achieved().bytes_per_second(),
              healthy.link(id).achieved().bytes_per_second() * (part ? 0.5 : 1.0)) << id;
  }
  const auto part = part_links(healthy, half.kind, half.index);
  for (const GpuId dst : crossing) {
    const double lat = path_latency(healthy, src, dst);
    const double after = flow_seconds(degraded, src, dst, size) - lat;
    EXPECT_NEAR(after, expected_drain(healthy, src, dst, size, part, 0.5), 1e-9) << dst;
    // Half of the cable's rate is below every other link of the path: the cable sets the pace.
    EXPECT_NEAR(after, static_cast<double>(size.count()) / (0.5 * healthy.link(uplink).achieved().bytes_per_second()), 1e-9);
    // The closed form the acceptance tests use equals the flow model, healthy and degraded.
    EXPECT_NEAR(api::p2p_time(degraded, api::GpuPair{src, dst}, size).seconds(), flow_seconds(degraded, src, dst, size), 1e-9);
    EXPECT_NEAR(api::p2p_time(healthy, api::GpuPair{src, dst}, size).seconds(), flow_seconds(healthy, src, dst, size), 1e-9);
  }
  for (const GpuId dst : other) {
    EXPECT_EQ(flow_seconds(healthy, src, dst, size), flow_seconds(degraded, src, dst, size)) << dst;
  }
}

TEST(Degradation, ANicAtAQuarterQuartersItsRailAndNothingElse) {
  const Fabric healthy = build(64);
  Fabric degraded = build(64);
  const Degradation quarter = parse_degradation("nic:3=0.25", "--degrade", degraded);
  apply_degradation(degraded, quarter);
  const auto part = part_links(healthy, quarter.kind, quarter.index);
  ASSERT_EQ(part.size(), 2u);  // its cable to the leaf, both ways
  const Bytes size(1LL << 30);
  const double lat = path_latency(healthy, 3, 11);
  const double cable = healthy.link(part[0]).achieved().bytes_per_second();
  EXPECT_NEAR(flow_seconds(degraded, 3, 11, size) - lat, static_cast<double>(size.count()) / (0.25 * cable), 1e-9);
  EXPECT_NEAR(flow_seconds(degraded, 11, 3, size) - lat, static_cast<double>(size.count()) / (0.25 * cable), 1e-9);
  EXPECT_EQ(flow_seconds(degraded, 2, 10, size), flow_seconds(healthy, 2, 10, size));
  EXPECT_EQ(flow_seconds(degraded, 3, 4, size), flow_seconds(healthy, 3, 4, size));  // NVLink in the node
}

// The flow model tracks a NIC's PCIe link and cable as one (fabric/lockstep): the slowest of
// each node's own pair must stand for it, or a NIC degraded on any node but node 0 is hidden
// behind that node's healthy PCIe link.
TEST(Degradation, ANicAtAQuarterOnAnyNodeQuartersItsRail) {
  const Fabric healthy = build(512);
  for (const GpuId rank : {3, 163, 507}) {
    Fabric degraded = build(512);
    apply_degradation(degraded, parse_degradation("nic:" + std::to_string(rank) + "=0.25", "--degrade", degraded));
    const GpuId peer = (rank + 64) % 512;  // same rail, another node
    const Bytes size(1LL << 30);
    const double lat = path_latency(healthy, rank, peer);
    const double cable = healthy.link(part_links(healthy, PartKind::kNic, rank)[0]).achieved().bytes_per_second();
    EXPECT_NEAR(flow_seconds(degraded, rank, peer, size) - lat, static_cast<double>(size.count()) / (0.25 * cable), 1e-9) << rank;
    EXPECT_NEAR(flow_seconds(degraded, peer, rank, size) - lat, static_cast<double>(size.count()) / (0.25 * cable), 1e-9) << rank;
  }
}

TEST(Degradation, ALeafWithHalfItsUplinksHalvesWhatLeavesIt) {
  const Fabric healthy = build(512);
  Fabric degraded = build(512);
  const int leaf = healthy.switch_of_nic(0, 0);
  const Degradation half = parse_degradation("leaf:" + std::to_string(leaf) + "=uplinks:0.5", "--degrade", degraded);
  apply_degradation(degraded, half);
  const auto part = part_links(healthy, half.kind, half.index);
  EXPECT_EQ(part.size(), 2u * static_cast<std::size_t>(fat_tree(healthy).plan().leaf_uplinks));
  const Bytes size(1LL << 30);
  for (const GpuId dst : {9, 17, 256}) {  // cross rail, cross rail, another scalable unit
    const double lat = path_latency(healthy, 0, dst);
    const double after = flow_seconds(degraded, 0, dst, size) - lat;
    EXPECT_NEAR(after, expected_drain(healthy, 0, dst, size, part, 0.5), 1e-9) << dst;
    EXPECT_GT(after, 1.9 * (flow_seconds(healthy, 0, dst, size) - lat)) << dst;  // the uplink now sets the pace
  }
  EXPECT_EQ(flow_seconds(degraded, 0, 8, size), flow_seconds(healthy, 0, 8, size));  // same rail: never leaves the leaf
  EXPECT_EQ(flow_seconds(degraded, 1, 10, size), flow_seconds(healthy, 1, 10, size));  // another rail's leaf
}

}  // namespace
}  // namespace ctwin::fabric

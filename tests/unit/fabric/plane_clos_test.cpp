// Dual-plane and multi-zone fabrics through the topology seam (fabric/topologies/plane_clos.hpp).
// Oracles: the published counts of Alibaba HPN (SIGCOMM 2024: 1,024 GPUs and 16 ToRs per segment,
// 15 segments and 15K GPUs per pod, 60 aggregation switches per plane, 15:1 aggregation to core)
// and of Meta's AI zones (SIGCOMM 2024: 192 racks of 16 GPUs, 18 CTSWs per zone, 8 zones in the
// 24K cluster, ATSW oversubscribed); port conservation; one plane down halves a node's busbw on
// analytical and flow, and a lost leaf cuts no GPU off.

#include <gtest/gtest.h>

#include <string>

#include "bundled_fabric.hpp"
#include "cables_of.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"
#include "ctwin/fabric/summary.hpp"
#include "ctwin/fabric/topologies/plane_clos.hpp"

namespace ctwin::fabric {
namespace {

using namespace ctwin::literals;
using testing::bundled_cluster;
using testing::bundled_fabric;

const PlaneClos& plane_clos(const Fabric& fabric) {
  const auto* clos = dynamic_cast<const PlaneClos*>(&fabric.topology());
  EXPECT_NE(clos, nullptr);
  return *clos;
}

const SwitchTier& tier_of(const FabricSummary& summary, const std::string& name) {
  for (const SwitchTier& tier : summary.switch_tiers) {
    if (tier.tier == name) return tier;
  }
  ADD_FAILURE() << "no tier " << name;
  return summary.switch_tiers.front();
}

std::string error_of(const std::vector<std::string>& overrides, const std::string& topology, int gpus = 8) {
  try {
    (void)bundled_fabric(topology, gpus, overrides);
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.message();
  }
  return "";
}

// HPN §4 (pod): 15 segments of 1,024 GPUs; per segment 16 ToRs (8 rails x 2 planes), each with
// 128 x 200G down and 60 x 400G up, one to each of its plane's 60 aggregation switches.
TEST(PlaneClos, HpnPodMatchesThePublishedCounts) {
  const Fabric fabric = bundled_fabric("hpn-dual-plane", 15 * 1024);
  const FabricSummary summary = summarize(fabric);
  EXPECT_EQ(summary.pods, 1);
  EXPECT_EQ(tier_of(summary, "leaf").switches, 15 * 16);
  EXPECT_EQ(tier_of(summary, "spine").switches, 2 * 60);
  EXPECT_EQ(summary.switch_tiers.size(), 2U) << "no core in one pod, and NIC ports are not switches";
  // Every NIC port has its own 200G cable (two per NIC); the NIC's split into ports is no cable.
  EXPECT_EQ(cables_of(summary, LinkKind::kAccess), 15LL * 1024 * 2);
  EXPECT_EQ(cables_of(summary, LinkKind::kLeafSpine), 15LL * 16 * 60);
  for (const CableGroup& group : summary.cables) {
    if (group.kind == LinkKind::kAccess) { EXPECT_DOUBLE_EQ(group.bandwidth.gigabits_per_second(), 200); }
  }
  // A ToR uses 128 x 200G (64 of its 128 x 400G ports) down and 60 up: 124 of 128 ports.
  EXPECT_EQ(tier_of(summary, "leaf").ports_used, 15LL * 16 * (64 + 60));
  EXPECT_NEAR(tier_of(summary, "leaf").oversubscription, 128 * 200.0 / (60 * 400), 1e-12);
  // An aggregation switch takes one cable from each of its plane's 120 ToRs in the pod.
  EXPECT_EQ(tier_of(summary, "spine").ports_used, 2LL * 60 * 120);
}

// Two pods: each aggregation switch keeps 120 / 15 = 8 core uplinks, the 15:1 of HPN §4.
TEST(PlaneClos, HpnCoreIsFifteenToOneAndBuilds16kGpusQuickly) {
  const Fabric fabric = bundled_fabric("hpn-dual-plane", 16384);
  const PlaneClosShape& shape = plane_clos(fabric).shape();
  EXPECT_EQ(shape.zones, 2);
  EXPECT_EQ(shape.spine_uplinks, 8);
  const FabricSummary summary = summarize(fabric);
  EXPECT_DOUBLE_EQ(tier_of(summary, "spine").oversubscription, 15.0);
  EXPECT_EQ(tier_of(summary, "core").switches, 2 * 60 * 8);
  EXPECT_EQ(cables_of(summary, LinkKind::kSpineCore), 2LL * 2 * 60 * 8);
  // Each core takes one cable per pod.
  EXPECT_EQ(tier_of(summary, "core").ports_used, 2LL * 60 * 8 * 2);
}

// Meta (Gangidi et al.): an AI zone of 192 racks x 16 GPUs, every RTSW with one uplink to each
// of the zone's 18 CTSWs (16 + 12.5 % spare); the 24K cluster is 8 zones.
TEST(PlaneClos, MetaZonesMatchThePublishedCounts) {
  const Fabric zone = bundled_fabric("meta-ai-zones", 3072);
  const FabricSummary one = summarize(zone);
  EXPECT_EQ(one.pods, 1);
  EXPECT_EQ(tier_of(one, "leaf").switches, 192);
  EXPECT_EQ(tier_of(one, "spine").switches, 18);
  EXPECT_EQ(cables_of(one, LinkKind::kAccess), 3072);
  EXPECT_EQ(cables_of(one, LinkKind::kLeafSpine), 192LL * 18);
  EXPECT_NEAR(tier_of(one, "leaf").oversubscription, 16.0 / 18, 1e-12) << "under-subscribed: 16 down, 18 up";

  const Fabric cluster = bundled_fabric("meta-ai-zones", 24576);
  const FabricSummary all = summarize(cluster);
  EXPECT_EQ(all.pods, 8);
  EXPECT_EQ(tier_of(all, "leaf").switches, 8 * 192);
  EXPECT_EQ(tier_of(all, "spine").switches, 8 * 18);
  // ceil(192 / 7) = 28 uplinks per CTSW: 192:28 = 6.86:1, the nearest the 7:1 the file asks.
  EXPECT_EQ(plane_clos(cluster).shape().spine_uplinks, 28);
  EXPECT_NEAR(tier_of(all, "spine").oversubscription, 192.0 / 28, 1e-12);
  EXPECT_EQ(tier_of(all, "core").switches, 18 * 28);
  EXPECT_EQ(tier_of(all, "core").ports_used, 18LL * 28 * 8);
  // The cut between halves of the zones is the oversubscribed tier's.
  EXPECT_DOUBLE_EQ(all.bisection.bytes_per_second(), 400e9 / 8 * (8 * 18 * 28) / 2);
}

// Routes cross the planes and tiers as the layout says, and a lost leaf reroutes, never cuts.
TEST(PlaneClos, RoutesStayInOnePlaneAndALostLeafMovesThemToTheOther) {
  Fabric fabric = bundled_fabric("hpn-dual-plane", 16 * 1024 + 8);  // two pods
  const PlaneClos& clos = plane_clos(fabric);
  const int per_pod = 128 * 15 * 8;
  for (const GpuId dst : {GpuId{8}, GpuId{9}, GpuId{128 * 8}, GpuId{per_pod}}) {
    for (std::uint64_t label = 0; label < 8; ++label) {
      const auto path = route(fabric, 0, dst, {.flow_label = label});
      int planes_seen = 0;
      for (const LinkId link : path) {
        const std::string name = cable_name(fabric, link);
        if (name.find(".p") != std::string::npos) planes_seen |= 1 << (name.back() - '0');
      }
      EXPECT_TRUE(planes_seen == 1 || planes_seen == 2) << "one plane per flow, to " << dst;
    }
  }
  // Leaf 0 is plane 0's leaf of rail 0 in segment 0: lost, every flow of NIC 0 takes plane 1.
  apply_degradation(fabric, parse_degradation("leaf:0=down", "--degrade", fabric));
  EXPECT_EQ(term(fabric, parse_degradation("leaf:0=down", "--degrade", fabric)), "leaf:0=down");
  for (std::uint64_t label = 0; label < 16; ++label) {
    for (const LinkId link : route(fabric, 0, 8, {.flow_label = label})) {
      const std::string name = cable_name(fabric, link);
      EXPECT_TRUE(name.find(".p0") == std::string::npos) << name;
    }
  }
  EXPECT_EQ(clos.lost_leaf_cables(fabric, 0).size(), 128U + 60U);
  // One plane has no other: a multi-zone leaf cannot be lost, only its uplinks degraded.
  const Fabric zones = bundled_fabric("meta-ai-zones", 64);
  EXPECT_THROW((void)parse_degradation("leaf:0=down", "--degrade", zones), InputError);
  EXPECT_NO_THROW((void)parse_degradation("leaf:0=uplinks:0.5", "--degrade", zones));
}

double busbw(const Fabric& built, const std::string& network, collectives::Op op = collectives::Op::kAllReduce) {
  collectives::CollectiveQuery query;
  query.op = op;
  query.algorithm = op == collectives::Op::kAllReduce ? collectives::Algorithm::kRing : collectives::Algorithm::kAuto;
  query.protocol = collectives::Protocol::kSimple;
  query.sizes = {1_GiB};
  query.network = network::parse_model_kind(network, "test", "network");
  return collectives::predict_collective(built, query).rows.at(0).busbw_GBps;
}

Fabric with_plane_zero_down(const std::vector<std::string>& overrides) {
  Fabric fabric = bundled_fabric("hpn-dual-plane", 16, overrides);
  for (int leaf = 0; leaf < 8; ++leaf) {  // plane 0's eight ToRs of segment 0
    apply_degradation(fabric, parse_degradation("leaf:" + std::to_string(leaf) + "=down", "--degrade", fabric));
  }
  return fabric;
}

// HPN's promise: one plane down halves a dual-plane node's bandwidth instead of cutting it off.
// Two nodes of one segment. Oracles: spread over both planes (adaptive), the node is the same
// server on one plane with the NIC's whole 400G (hgx-h100-roce, same latencies); with plane 0's
// ToRs lost, the same server with 200G NICs, to the last digit; and where the NICs bound the
// collective (alltoall), its busbw halves, but for the fixed latencies.
TEST(PlaneClos, OnePlaneDownHalvesTheBusBandwidth) {
  for (const std::string network : {"analytical", "flow"}) {
    SCOPED_TRACE(network);
    const Fabric both = bundled_fabric("hpn-dual-plane", 16, {"fabric.routing=adaptive"});
    const Fabric one = with_plane_zero_down({"fabric.routing=adaptive"});
    const double full_nic = busbw(bundled_fabric("hgx-h100-roce", 16), network);
    const double half_nic = busbw(bundled_fabric("hgx-h100-roce", 16, {"server.nics.bandwidth=200Gbps"}), network);
    EXPECT_NEAR(busbw(one, network), half_nic, 1e-9 * half_nic);
    if (network == "analytical") { EXPECT_NEAR(busbw(both, network), full_nic, 1e-9 * full_nic); }
    // flow splits each transfer over both planes' spines: never slower than the single plane.
    EXPECT_GE(busbw(both, network), full_nic * (1 - 1e-9));
    const double ratio = busbw(one, network, collectives::Op::kAlltoall) / busbw(both, network, collectives::Op::kAlltoall);
    EXPECT_GT(ratio, 0.5);
    EXPECT_LT(ratio, 0.53);
    // ECMP puts each flow on one plane: with plane 0 lost, every flow is on plane 1, as above.
    const Fabric ecmp_one = with_plane_zero_down({});
    EXPECT_NEAR(busbw(ecmp_one, network), half_nic, 1e-9 * half_nic);
    EXPECT_LE(busbw(ecmp_one, network), busbw(bundled_fabric("hpn-dual-plane", 16), network) * (1 + 1e-9));
  }
}

TEST(PlaneClos, BadInputNamesTheField) {
  // A zone count the cores' ports cannot wire.
  EXPECT_NE(error_of({"fabric.pods=200"}, "hpn-dual-plane").find("/fabric/pods: 200 zones need 200 ports"),
            std::string::npos);
  EXPECT_NE(error_of({"fabric.zones=600"}, "meta-ai-zones").find("/fabric/zones"), std::string::npos);
  // A build beyond the design's zones.
  EXPECT_NE(error_of({"fabric.pods=1"}, "hpn-dual-plane", 15 * 1024 + 8).find("/fabric/pods"), std::string::npos);
  // ToR ports: 128 x 200G down take 64 ports; 65 aggregation switches leave no room.
  EXPECT_NE(error_of({"fabric.aggregation_switches=65"}, "hpn-dual-plane").find("/fabric/nodes_per_segment"),
            std::string::npos);
  // Spine ports: 120 leaves per plane at 1:1 need 120 core uplinks too.
  EXPECT_NE(error_of({"fabric.aggregation_oversubscription=1"}, "hpn-dual-plane").find("/fabric/segments_per_pod"),
            std::string::npos);
  // A fat-tree field is unknown here, not silently ignored.
  EXPECT_NE(error_of({"fabric.nodes_per_su=4"}, "meta-ai-zones").find("nodes_per_su"), std::string::npos);
}

}  // namespace
}  // namespace ctwin::fabric

// Building fabrics from the bundled topologies (fabric/cluster_spec.hpp, fabric/fabric.hpp,
// fabric/summary.hpp): switch and cable counts against NVIDIA's published reference
// architecture, bisection against its closed form, and structural invariants of the link arrays.

#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/summary.hpp"
#include "cables_of.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ctwin::fabric {
namespace {

using namespace ctwin::literals;

std::filesystem::path topology(const std::string& name) {
  return std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / (name + ".json");
}

std::vector<std::filesystem::path> all_topologies() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

const SwitchTier* find_tier(const FabricSummary& summary, const std::string& name) {
  for (const auto& tier : summary.switch_tiers) {
    if (tier.tier == name) return &tier;
  }
  return nullptr;
}

int switches_in(const FabricSummary& summary, const std::string& name) {
  const SwitchTier* tier = find_tier(summary, name);
  return tier == nullptr ? 0 : tier->switches;
}

// Links leaving each vertex.
std::vector<int> out_degree(const Fabric& fabric) {
  std::vector<int> degree(fabric.vertex_count(), 0);
  for (const Link& link : fabric.links()) ++degree[link.from];
  return degree;
}

TEST(Topology, EveryBundledFileLoadsAndBuildsAtItsNaturalSizes) {
  const auto files = all_topologies();
  ASSERT_GE(files.size(), 6U) << "topologies/*.json not found";
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    const ClusterSpec spec = load_cluster(file);
    EXPECT_FALSE(spec.name.empty());
    EXPECT_EQ(spec.file, file.string());
    EXPECT_EQ(spec.name, file.stem().string()) << "the name inside a file matches the file name";
    const int per_node = spec.server.gpus;
    for (const int gpus : {per_node, 64, 1024}) {
      SCOPED_TRACE(gpus);
      const Fabric fabric(spec, gpus);
      EXPECT_EQ(fabric.gpus(), gpus);
      EXPECT_EQ(fabric.nodes(), (gpus + per_node - 1) / per_node);
      const FabricSummary summary = summarize(fabric);
      EXPECT_EQ(summary.gpus, gpus);
      // A dual plane cables each NIC's two ports, one per plane.
      const auto planes = spec.fabric.parameters.find("planes");
      const long long ports_per_nic = planes == spec.fabric.parameters.end() ? 1 : static_cast<long long>(planes->second);
      EXPECT_EQ(cables_of(summary, LinkKind::kAccess),
                static_cast<long long>(fabric.nodes()) * spec.server.nics.count * ports_per_nic);
      for (const auto& tier : summary.switch_tiers) {
        EXPECT_LE(tier.ports_used, tier.ports_total) << tier.tier;
      }
      // Every GPU reaches every other: distances from GPU 0 are all finite.
      const auto distance = fabric.hop_distances(fabric.gpu_vertex(0));
      for (GpuId g = 0; g < gpus; ++g) ASSERT_GE(distance[fabric.gpu_vertex(g)], 0) << "GPU " << g;
    }
  }
}

// NVIDIA DGX SuperPOD Reference Architecture featuring DGX H100, RA-11333-001 V11 (2023-09-22),
// "Network Fabrics", Table 4 "Compute fabric component count" (see topologies/README.md):
//   SU  nodes  leaf  spine  node-leaf cables  spine-leaf cables
//    1    31     8     4         252              256
//    2    63    16     8         508              512
//    3    95    24    16         764              768
//    4   127    32    16        1020             1024
// The RA fills 31 of the 32 node slots per SU with DGX H100 and gives the last to UFM (4
// ports), so its node-leaf count is 8 x 31 + 4 per SU. ctwin builds all 32 slots as GPU nodes:
// 8 cables per node, 256 per SU; the switch and spine-leaf counts must match exactly.
TEST(Topology, DgxH100SuperPodMatchesReferenceArchitectureTable4) {
  struct Row {
    int scalable_units;
    int leaves;
    int spines;
    long long spine_leaf_cables;
  };
  const std::vector<Row> table4{{1, 8, 4, 256}, {2, 16, 8, 512}, {3, 24, 16, 768}, {4, 32, 16, 1024}};
  const ClusterSpec spec = load_cluster(topology("dgx-h100-superpod"));
  for (const Row& row : table4) {
    SCOPED_TRACE(row.scalable_units);
    const int gpus = 256 * row.scalable_units;
    const FabricSummary summary = summarize(Fabric(spec, gpus));
    EXPECT_EQ(summary.nodes, 32 * row.scalable_units);
    EXPECT_EQ(summary.scalable_units, row.scalable_units);
    EXPECT_EQ(summary.tiers, 2);
    EXPECT_EQ(switches_in(summary, "leaf"), row.leaves);
    EXPECT_EQ(switches_in(summary, "spine"), row.spines);
    EXPECT_EQ(switches_in(summary, "core"), 0);
    EXPECT_EQ(cables_of(summary, LinkKind::kLeafSpine), row.spine_leaf_cables);
    EXPECT_EQ(cables_of(summary, LinkKind::kAccess), 8LL * summary.nodes);
    // RA compute + UFM cables, less the UFM's 4 and the 8 of the UFM slot's missing node.
    const long long ra_node_leaf = (8LL * 31 + 4) * row.scalable_units;
    EXPECT_EQ(cables_of(summary, LinkKind::kAccess), ra_node_leaf + 4LL * row.scalable_units);
    EXPECT_EQ(cables_of(summary, LinkKind::kSpineCore), 0);
    // Non-blocking: a leaf has as many uplinks as downlinks, 32 + 32 of its 64 ports.
    const SwitchTier* leaf = find_tier(summary, "leaf");
    ASSERT_NE(leaf, nullptr);
    EXPECT_DOUBLE_EQ(leaf->oversubscription, 1.0);
    EXPECT_EQ(leaf->ports_used, 64LL * row.leaves);
  }
}

TEST(Topology, DgxH100SuperPodLeafSpineTransceivers) {
  // topologies/README.md (derived from RA-11333-001): twin-port OSFP at every switch port, so
  // 4 SU = 512 leaf-side (up) + 512 spine-side transceivers for the 1024 leaf-spine cables.
  const FabricSummary summary = summarize(Fabric(load_cluster(topology("dgx-h100-superpod")), 1024));
  long long leaf_spine = -1;
  for (const auto& group : summary.cables) {
    if (group.kind == LinkKind::kLeafSpine) leaf_spine = group.transceivers;
  }
  EXPECT_EQ(leaf_spine, 1024);
}

// NVIDIA DGX SuperPOD RA featuring DGX B200, "DGX SuperPOD architecture" table (see
// topologies/README.md): leaf / spine / core switches and node-leaf, leaf-spine, spine-core
// cables for 2 to 64 SUs of 32 nodes on 64-port QM9700. Three tiers from 16 SUs.
TEST(Topology, DgxB200SuperPodMatchesReferenceArchitecture) {
  struct Row {
    int scalable_units;
    int leaves;
    int spines;
    int cores;
    long long spine_core_cables;
  };
  const std::vector<Row> table{{2, 16, 8, 0, 0},          {4, 32, 16, 0, 0},           {8, 64, 32, 0, 0},
                               {16, 128, 128, 64, 4096}, {32, 256, 256, 128, 8192}, {64, 512, 512, 256, 16384}};
  const ClusterSpec spec = load_cluster(topology("dgx-b200-superpod"));
  for (const Row& row : table) {
    SCOPED_TRACE(row.scalable_units);
    const int gpus = 256 * row.scalable_units;
    const FabricSummary summary = summarize(Fabric(spec, gpus));
    EXPECT_EQ(summary.tiers, row.cores > 0 ? 3 : 2);
    EXPECT_EQ(switches_in(summary, "leaf"), row.leaves);
    EXPECT_EQ(switches_in(summary, "spine"), row.spines);
    EXPECT_EQ(switches_in(summary, "core"), row.cores);
    EXPECT_EQ(cables_of(summary, LinkKind::kAccess), gpus);
    EXPECT_EQ(cables_of(summary, LinkKind::kLeafSpine), gpus);
    EXPECT_EQ(cables_of(summary, LinkKind::kSpineCore), row.spine_core_cables);
  }
}

TEST(Topology, DgxA100SuperPodDerivedCounts) {
  // topologies/README.md (derived from RA-09950-001): 20 nodes x 8 rails per SU on 40-port
  // QM8790 = 8 leaves of 20 downlinks; two tiers up to 40 leaves (5 SUs); 140 nodes need three.
  const ClusterSpec spec = load_cluster(topology("dgx-a100-superpod"));
  const FabricSummary one_su = summarize(Fabric(spec, 160));
  EXPECT_EQ(switches_in(one_su, "leaf"), 8);
  EXPECT_EQ(switches_in(one_su, "spine"), 4);
  EXPECT_EQ(cables_of(one_su, LinkKind::kAccess), 160);
  EXPECT_EQ(cables_of(one_su, LinkKind::kLeafSpine), 160);
  EXPECT_EQ(summarize(Fabric(spec, 800)).tiers, 2);
  const FabricSummary full = summarize(Fabric(spec, 1120));
  EXPECT_EQ(full.tiers, 3);
  EXPECT_EQ(switches_in(full, "leaf"), 56);
}

TEST(Topology, HopLatenciesFollowFromLinkLatencies) {
  // DGX H100 file: NVLink hop 250 ns, PCIe hop 200 ns, NIC hop 500 ns (topologies/README.md).
  const FabricSummary summary = summarize(Fabric(load_cluster(topology("dgx-h100-superpod")), 1024));
  std::map<std::string, HopCount> hops;
  for (const auto& hop : summary.hops) hops[hop.pair_class] = hop;
  ASSERT_TRUE(hops.count("same node"));
  EXPECT_EQ(hops["same node"].links, 2);
  EXPECT_EQ(hops["same node"].latency, 500_ns);
  // Bottlenecks are achieved rates: NVLink4 at NCCL's 20.6 of every 25 GB/s.
  EXPECT_NEAR(hops["same node"].bottleneck.bytes_per_second(), 450e9 * 20.6 / 25, 1e3);
  ASSERT_TRUE(hops.count("same rail"));
  // GPU -> PCIe switch -> NIC -> leaf -> NIC -> PCIe switch -> GPU = 4 x 200 + 2 x 500 ns, the
  // README's "1.8 us for NDR".
  EXPECT_EQ(hops["same rail"].links, 6);
  EXPECT_EQ(hops["same rail"].fewest_links, 6);
  EXPECT_EQ(hops["same rail"].latency, 1800_ns);
  // The NIC's 50 GB/s is not the narrowest: PCIe Gen5 x16 carries NCCL's 48 GB/s.
  EXPECT_NEAR(hops["same rail"].bottleneck.bytes_per_second(), 63e9 * 12 / 15.75, 1e3);
  EXPECT_EQ(hops["same rail"].switches, 3);  // PCIe switch, leaf, PCIe switch
  ASSERT_TRUE(hops.count("cross rail"));
  ASSERT_TRUE(hops.count("cross rail (PXN)"));
  // Without PXN the pair climbs leaf -> spine -> leaf (2 more links of 300 ns).
  EXPECT_EQ(hops["cross rail"].links, 8);
  EXPECT_EQ(hops["cross rail"].latency, 1800_ns + 2 * 300_ns);
  // With PXN: an NVLink hop to the rail's GPU first, then the same-rail path.
  EXPECT_EQ(hops["cross rail (PXN)"].links, 8);
  EXPECT_EQ(hops["cross rail (PXN)"].latency, 500_ns + 1800_ns);
  ASSERT_TRUE(hops.count("cross SU"));
  EXPECT_EQ(hops["cross SU"].latency, 1800_ns + 2 * 300_ns);
  EXPECT_FALSE(hops.count("cross pod"));  // two tiers
}

TEST(Topology, HgxH100RoceAt100kGpusBuildsThreeTiers) {
  const Fabric fabric(load_cluster(topology("hgx-h100-roce")), 100000);
  EXPECT_EQ(fabric.nodes(), 12500);
  EXPECT_EQ(fat_tree(fabric).plan().tiers, 3);
  EXPECT_GT(fat_tree(fabric).plan().pods, 1);
  // 196 SUs of 8 rail leaves; 128-port switches: 64 leaves (8 SUs) per pod.
  EXPECT_EQ(fat_tree(fabric).plan().leaves, 196 * 8);
  EXPECT_EQ(fat_tree(fabric).plan().leaves_per_pod, 64);
  EXPECT_EQ(fat_tree(fabric).plan().pods, 25);
  for (const auto& tier : summarize(fabric).switch_tiers) EXPECT_LE(tier.ports_used, tier.ports_total) << tier.tier;
}

TEST(Topology, BisectionOfNonBlockingBuildIsHalfTheNicBandwidth) {
  // 1024 GPUs, one 400 Gb/s NIC each: 51.2 TB/s injected, 25.6 TB/s across the middle.
  const Fabric fabric(load_cluster(topology("dgx-h100-superpod")), 1024);
  ASSERT_EQ(fat_tree(fabric).plan().tiers, 2);
  const double nic_total = (400_Gbps).bytes_per_second() * 1024;
  EXPECT_DOUBLE_EQ(summarize(fabric).bisection.bytes_per_second(), nic_total / 2);
  EXPECT_DOUBLE_EQ(summarize(fabric).bisection.bytes_per_second(), 25.6e12);
}

TEST(Topology, LeafOversubscriptionHalvesBisection) {
  const Fabric full(load_cluster(topology("dgx-h100-superpod")), 1024);
  const Fabric tapered(load_cluster(topology("dgx-h100-superpod"), {"fabric.oversubscription.leaf=2"}), 1024);
  EXPECT_EQ(fat_tree(tapered).plan().leaf_downlinks, 32);
  EXPECT_EQ(fat_tree(tapered).plan().leaf_uplinks, 16);
  const FabricSummary tapered_summary = summarize(tapered);
  EXPECT_DOUBLE_EQ(tapered_summary.bisection.bytes_per_second(), summarize(full).bisection.bytes_per_second() / 2);
  const SwitchTier* leaf = find_tier(tapered_summary, "leaf");
  ASSERT_NE(leaf, nullptr);
  EXPECT_DOUBLE_EQ(leaf->oversubscription, 2.0);
  EXPECT_EQ(cables_of(tapered_summary, LinkKind::kLeafSpine), 32LL * 16);
}

TEST(Topology, EveryLinkHasAReverseTwin) {
  for (const auto& [name, gpus] : std::vector<std::pair<std::string, int>>{
           {"dgx-h100-superpod", 1024}, {"dgx-a100-superpod", 1024}, {"pcie-l40s", 96}, {"gb200-nvl72", 576}}) {
    SCOPED_TRACE(name);
    const Fabric fabric(load_cluster(topology(name)), gpus);
    ASSERT_EQ(fabric.links().size() % 2, 0U);
    for (LinkId id = 0; id < fabric.links().size(); ++id) {
      const Link& link = fabric.link(id);
      const Link& back = fabric.link(reverse(id));
      ASSERT_EQ(reverse(reverse(id)), id);
      ASSERT_EQ(back.from, link.to) << "link " << id;
      ASSERT_EQ(back.to, link.from) << "link " << id;
      ASSERT_NE(link.from, link.to) << "link " << id;
      ASSERT_EQ(back.bandwidth, link.bandwidth) << "link " << id;
      ASSERT_EQ(back.latency, link.latency) << "link " << id;
      ASSERT_EQ(back.kind, link.kind) << "link " << id;
      ASSERT_LT(link.from, fabric.vertex_count());
      ASSERT_LT(link.to, fabric.vertex_count());
    }
  }
}

TEST(Topology, LinkIdLayoutMatchesAccessors) {
  const Fabric fabric(load_cluster(topology("dgx-a100-superpod")), 1024);  // three tiers
  ASSERT_EQ(fat_tree(fabric).plan().tiers, 3);
  const TierPlan& plan = fat_tree(fabric).plan();
  for (int node = 0; node < fabric.nodes(); ++node) {
    for (int nic = 0; nic < plan.rails; ++nic) {
      const Link& access = fabric.link(fabric.access_link(node, nic));
      ASSERT_EQ(access.kind, LinkKind::kAccess);
      ASSERT_EQ(fabric.vertex_kind(access.from), VertexKind::kNic);
      ASSERT_EQ(access.to, fat_tree(fabric).leaf_vertex(fabric, fabric.switch_of_nic(node, nic)));
    }
  }
  for (int leaf = 0; leaf < plan.leaves; ++leaf) {
    for (int k = 0; k < plan.leaf_uplinks; ++k) {
      const Link& up = fabric.link(fat_tree(fabric).leaf_uplink(fabric, leaf, k));
      ASSERT_EQ(up.kind, LinkKind::kLeafSpine);
      ASSERT_EQ(up.from, fat_tree(fabric).leaf_vertex(fabric, leaf));
      ASSERT_EQ(fabric.vertex_kind(up.to), VertexKind::kSpine);
    }
  }
  for (int spine = 0; spine < plan.spines(); ++spine) {
    for (int k = 0; k < plan.spine_uplinks; ++k) {
      const Link& up = fabric.link(fat_tree(fabric).spine_uplink(fabric, spine, k));
      ASSERT_EQ(up.kind, LinkKind::kSpineCore);
      ASSERT_EQ(up.from, fat_tree(fabric).spine_vertex(fabric, spine));
      ASSERT_EQ(fabric.vertex_kind(up.to), VertexKind::kCore);
    }
  }
}

TEST(Topology, EachSwitchHasItsPlannedDownlinksAndUplinks) {
  // Full SUs so every leaf is fully populated.
  for (const auto& [name, gpus] : std::vector<std::pair<std::string, int>>{
           {"dgx-h100-superpod", 1024}, {"dgx-a100-superpod", 1120}, {"hgx-h100-roce", 4096}}) {
    SCOPED_TRACE(name);
    const Fabric fabric(load_cluster(topology(name)), gpus);
    const TierPlan& plan = fat_tree(fabric).plan();
    const auto degree = out_degree(fabric);
    const int ports = fabric.spec().fabric.switch_spec.ports;
    for (int leaf = 0; leaf < plan.leaves; ++leaf) {
      ASSERT_EQ(degree[fat_tree(fabric).leaf_vertex(fabric, leaf)], plan.leaf_downlinks + plan.leaf_uplinks) << "leaf " << leaf;
    }
    long long spine_ports = 0;
    for (int spine = 0; spine < plan.spines(); ++spine) {
      const int d = degree[fat_tree(fabric).spine_vertex(fabric, spine)];
      ASSERT_LE(d, ports) << "spine " << spine;
      spine_ports += d;
    }
    // Conservation: every leaf uplink lands on a spine, every spine uplink leaves one.
    EXPECT_EQ(spine_ports, static_cast<long long>(plan.leaves) * plan.leaf_uplinks +
                               static_cast<long long>(plan.spines()) * plan.spine_uplinks);
    for (int core = 0; core < plan.cores(); ++core) ASSERT_LE(degree[fat_tree(fabric).core_vertex(fabric, core)], ports);
    // NICs: one link to the leaf plus one into the server.
    int nics = 0;
    for (VertexId v = 0; v < fabric.vertex_count(); ++v) {
      if (fabric.vertex_kind(v) != VertexKind::kNic) continue;
      ++nics;
      ASSERT_EQ(degree[v], 2) << "NIC vertex " << v;
    }
    EXPECT_EQ(nics, fabric.nodes() * plan.rails);
  }
}

// Issue 35: 10,240 H100 in 10 pods provisioned 256 cores (8 a plane, the smallest number that
// takes an even share of each spine's 32 uplinks) though 160 hold the 10,240 spine uplinks on
// 64 ports. The uplinks are dealt to the cores in turn: 5 a plane, every port used, every spine
// reaching every core of its plane.
TEST(Topology, CoresAreAsFewAsHoldTheSpineUplinks) {
  const Fabric fabric(load_cluster(topology("dgx-h100-superpod")), 10240);
  const FatTree& tree = fat_tree(fabric);
  const TierPlan& plan = tree.plan();
  ASSERT_EQ(plan.tiers, 3);
  ASSERT_EQ(plan.pods, 10);
  ASSERT_EQ(plan.spine_uplinks, 32);
  EXPECT_EQ(plan.cores_per_plane, 5);
  EXPECT_EQ(plan.cores(), 160);
  const auto degree = out_degree(fabric);
  for (int core = 0; core < plan.cores(); ++core) EXPECT_EQ(degree[tree.core_vertex(fabric, core)], 64) << "core " << core;
  std::map<std::pair<int, VertexId>, int> links;  // (spine, core) -> parallel links
  for (int spine = 0; spine < plan.spines(); ++spine) {
    for (int k = 0; k < plan.spine_uplinks; ++k) ++links[{spine, fabric.link(tree.spine_uplink(fabric, spine, k)).to}];
  }
  EXPECT_EQ(links.size(), static_cast<std::size_t>(plan.spines() * plan.cores_per_plane));
  for (const auto& [pair, count] : links) {
    EXPECT_TRUE(count == 6 || count == 7) << "spine " << pair.first << ": " << count;
    const int pod = pair.first / plan.spines_per_pod;
    const int core = static_cast<int>(pair.second - tree.core_vertex(fabric, 0)) % plan.cores_per_plane;
    EXPECT_EQ(count, plan.uplinks_to_core(pod, core));
  }
  // Full pods keep the even wiring: 16 pods of 32 uplinks, 8 cores a plane of 4 links from each spine.
  const Fabric full(load_cluster(topology("dgx-h100-superpod")), 16384);
  EXPECT_EQ(fat_tree(full).plan().cores(), 256);
  EXPECT_EQ(fat_tree(full).plan().uplinks_to_core(3, 5), 4);
}

TEST(Topology, TooManyGpusNamesTheClusterFileAndItsLimit) {
  const ClusterSpec spec = load_cluster(topology("dgx-h100-superpod"));
  try {
    const Fabric fabric(spec, 10'000'000);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), spec.file);
    EXPECT_EQ(e.pointer(), "/fabric/switch/ports");
    EXPECT_NE(std::string(e.what()).find("10000000 GPUs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("65536"), std::string::npos) << e.what();  // the largest build
  }
  // 64-port switches in three tiers: 64 x (32 / 8) SUs of 32 nodes = 8192 nodes = 65536 GPUs.
  EXPECT_NO_THROW(Fabric(spec, 65536));
  EXPECT_THROW(Fabric(spec, 65537), InputError);
}

// Regression (bug found with this test; src/ctwin/fabric/fabric.cpp, checked_node_count):
// (gpus + gpus_per_node - 1) computed in int overflowed for --gpus near INT_MAX, giving a
// negative node count that passed the size check; the build then died in vector::reserve
// (std::length_error, reported by the CLI as an internal error with exit status 1). The node
// count must be computed in 64 bits.
TEST(Topology, GpusNearIntMaxIsAnInputError) {
  const ClusterSpec spec = load_cluster(topology("dgx-h100-superpod"));
  for (const int gpus : {INT_MAX, INT_MAX - 6}) {
    try {
      const Fabric fabric(spec, gpus);
      ADD_FAILURE() << gpus << " GPUs built";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "--gpus");
    } catch (const std::exception& e) {
      ADD_FAILURE() << gpus << " GPUs: expected InputError, got " << e.what();
    }
  }
}

TEST(Topology, NonPositiveGpusThrows) {
  const ClusterSpec spec = load_cluster(topology("dgx-h100-superpod"));
  for (const int gpus : {0, -8, INT_MIN}) {
    try {
      const Fabric fabric(spec, gpus);
      ADD_FAILURE() << gpus << " GPUs built";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "--gpus");
    }
  }
}

TEST(Topology, PartialLastNode) {
  const Fabric fabric(load_cluster(topology("dgx-h100-superpod")), 12);
  EXPECT_EQ(fabric.gpus(), 12);
  EXPECT_EQ(fabric.nodes(), 2);
  EXPECT_EQ(fabric.node_of(11), 1);
  EXPECT_EQ(fabric.local_index(11), 3);
  // Node 1's GPU 3 is the 4th GPU vertex of the second copy of the server.
  EXPECT_EQ(fabric.gpu_vertex(11), static_cast<VertexId>(fabric.server().vertex_count() + 3));
  EXPECT_THROW((void)fabric.gpu_vertex(12), InternalError);
  const FabricSummary summary = summarize(fabric);
  EXPECT_EQ(summary.gpus, 12);
  EXPECT_EQ(summary.nodes, 2);
  EXPECT_EQ(cables_of(summary, LinkKind::kAccess), 16);  // both nodes are cabled in full
  EXPECT_GE(fabric.hop_distances(fabric.gpu_vertex(0))[fabric.gpu_vertex(11)], 1);

  const Fabric rack(load_cluster(topology("gb200-nvl72")), 64);  // part of one 72-GPU rack
  EXPECT_EQ(rack.nodes(), 1);
  EXPECT_EQ(rack.gpus(), 64);
}

TEST(Topology, OverridesChangeTheSpecAndAreValidated) {
  const ClusterSpec spec = load_cluster(topology("dgx-h100-superpod"), {"fabric.switch.ports=128", "fabric.max_tiers=2"});
  EXPECT_EQ(spec.fabric.switch_spec.ports, 128);
  EXPECT_EQ(spec.fabric.max_tiers, 2);
  try {
    (void)load_cluster(topology("dgx-h100-superpod"), {"fabric.switch.ports=abc"});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/fabric/switch/ports");
    EXPECT_EQ(e.source(), topology("dgx-h100-superpod").string());
  }
  EXPECT_THROW((void)load_cluster(topology("dgx-h100-superpod"), {"fabric.link.bandwidth=400"}), InputError);
  EXPECT_THROW((void)load_cluster(topology("dgx-h100-superpod"), {"fabric.bogus=1"}), InputError);
}

// Issue 36: a server of 4,096 GPUs took minutes in `fabric` (its routes are held for every pair
// of endpoints). A server is at most 1,024 GPUs (the largest NVLink domain announced is 576);
// the bundled rack-scale servers (72) build as before.
TEST(Topology, AServerPastTheLargestNvlinkDomainIsRefused) {
  try {
    (void)load_cluster(topology("dgx-h100-superpod"), {"server.gpus=4096", "server.nics.count=8"});
    FAIL() << "a 4,096-GPU server was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/server/gpus");
    EXPECT_NE(std::string(e.what()).find("1024"), std::string::npos) << e.what();
  }
  const ClusterSpec nvl = load_cluster(topology("dgx-h100-superpod"), {"server.gpus=1024", "server.nics.count=8"});
  const Fabric built(nvl, 1024);
  EXPECT_EQ(built.gpus_per_node(), 1024);
}

// Issue 36: a 16.7M-GPU build reached 6.4 GB (on its way to 22) before printing a word. A build
// past 2^25 links is refused before anything is allocated, with its size.
TEST(Topology, ABuildPastTheLinkBoundIsRefusedWithItsSize) {
  const ClusterSpec spec = load_cluster(topology("dgx-h100-superpod"), {"fabric.switch.ports=1024"});
  try {
    const Fabric fabric(spec, 1 << 24);
    FAIL() << "a 16.7M-GPU build was made";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--gpus");
    EXPECT_NE(std::string(e.what()).find("2.22e+08 links, about 22 GB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ctwin::fabric

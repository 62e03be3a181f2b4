// Routing (fabric/router.hpp): paths are continuous and loop-free, take NCCL's placement-aware
// shape (NVLink in a node, own rail out, up the tree only as far as needed, PXN staying on one
// rail), and ECMP is a deterministic hash that still spreads flows.

#include "ctwin/fabric/router.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ctwin::fabric {
namespace {

Fabric build(const std::string& name, int gpus) {
  return Fabric(load_cluster(std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / (name + ".json")), gpus);
}

std::vector<LinkKind> kinds(const Fabric& fabric, const std::vector<LinkId>& path) {
  std::vector<LinkKind> out;
  for (LinkId id : path) out.push_back(fabric.link(id).kind);
  return out;
}

int count_kind(const Fabric& fabric, const std::vector<LinkId>& path, LinkKind kind) {
  const auto k = kinds(fabric, path);
  return static_cast<int>(std::count(k.begin(), k.end(), kind));
}

// A path from src to dst: non-empty, starts at src's GPU vertex, each link starts where the
// previous one ended, ends at dst's GPU vertex, and never visits a vertex twice.
::testing::AssertionResult is_valid_path(const Fabric& fabric, GpuId src, GpuId dst, const std::vector<LinkId>& path) {
  if (src == dst) {
    return path.empty() ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << "non-empty self path";
  }
  if (path.empty()) return ::testing::AssertionFailure() << "empty path " << src << " -> " << dst;
  if (fabric.link(path.front()).from != fabric.gpu_vertex(src)) {
    return ::testing::AssertionFailure() << "path " << src << " -> " << dst << " does not start at the source GPU";
  }
  if (fabric.link(path.back()).to != fabric.gpu_vertex(dst)) {
    return ::testing::AssertionFailure() << "path " << src << " -> " << dst << " does not end at the destination GPU";
  }
  std::set<VertexId> visited{fabric.link(path.front()).from};
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] >= fabric.links().size()) return ::testing::AssertionFailure() << "link id out of range";
    if (i + 1 < path.size() && fabric.link(path[i]).to != fabric.link(path[i + 1]).from) {
      return ::testing::AssertionFailure() << "path " << src << " -> " << dst << " breaks after link " << i;
    }
    if (!visited.insert(fabric.link(path[i]).to).second) {
      return ::testing::AssertionFailure() << "path " << src << " -> " << dst << " revisits a vertex at link " << i;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(Router, PathsAreContinuousForAllPairs) {
  // Two nodes of three server types, every ordered pair, with and without PXN.
  for (const auto& [name, gpus] : std::vector<std::pair<std::string, int>>{
           {"dgx-h100-superpod", 16}, {"pcie-l40s", 16}, {"gb200-nvl72", 144}}) {
    SCOPED_TRACE(name);
    const Fabric fabric = build(name, gpus);
    for (GpuId src = 0; src < gpus; ++src) {
      for (GpuId dst = 0; dst < gpus; ++dst) {
        for (const bool pxn : {false, true}) {
          ASSERT_TRUE(is_valid_path(fabric, src, dst, route(fabric, src, dst, {.flow_label = 0, .pxn = pxn})))
              << "pxn " << pxn;
        }
      }
    }
  }
}

TEST(Router, PathsAreContinuousAcrossTiersForManyFlows) {
  for (const auto& [name, gpus] : std::vector<std::pair<std::string, int>>{
           {"dgx-h100-superpod", 1024}, {"dgx-a100-superpod", 1024}, {"hgx-h100-roce", 8192 + 512},
           {"dgx-h100-superpod", 10240}}) {  // 10 pods: a spine has 6 or 7 links to each core
    SCOPED_TRACE(name);
    const Fabric fabric = build(name, gpus);
    // A fixed stride covers same-node, same-SU, cross-SU and (for 3 tiers) cross-pod pairs.
    for (GpuId src = 0; src < gpus; src += 61) {
      for (GpuId dst = 0; dst < gpus; dst += 97) {
        for (std::uint64_t label = 0; label < 3; ++label) {
          ASSERT_TRUE(is_valid_path(fabric, src, dst, route(fabric, src, dst, {.flow_label = label, .pxn = label == 2})));
        }
      }
    }
  }
}

TEST(Router, AppendRouteAppendsToExistingLinks) {
  const Fabric fabric = build("dgx-h100-superpod", 16);
  std::vector<LinkId> out{12345};
  append_route(fabric, 0, 9, {}, out);
  ASSERT_GE(out.size(), 2U);
  EXPECT_EQ(out.front(), 12345U);
  EXPECT_EQ(std::vector<LinkId>(out.begin() + 1, out.end()), route(fabric, 0, 9));
  append_route(fabric, 3, 3, {}, out);  // nothing for src == dst
  EXPECT_EQ(out.size(), 1 + route(fabric, 0, 9).size());
}

TEST(Router, SameNodeOnDgxH100IsTwoNvlinkHops) {
  const Fabric fabric = build("dgx-h100-superpod", 16);
  for (GpuId dst = 1; dst < 8; ++dst) {
    const auto path = route(fabric, 0, dst);
    EXPECT_EQ(kinds(fabric, path), (std::vector<LinkKind>{LinkKind::kNvlink, LinkKind::kNvlink})) << dst;
    EXPECT_EQ(fabric.vertex_kind(fabric.link(path.front()).to), VertexKind::kNvSwitch);
  }
  // Second node: offset copies of the same links.
  const auto path = route(fabric, 8, 15);
  EXPECT_EQ(count_kind(fabric, path, LinkKind::kNvlink), 2);
  EXPECT_TRUE(is_valid_path(fabric, 8, 15, path));
}

TEST(Router, SameRailInterNodeStaysUnderOneLeafAndIsShortest) {
  const Fabric fabric = build("dgx-h100-superpod", 256);
  for (const GpuId src : {0, 3, 7}) {
    const GpuId dst = src + 8 * 5;  // same local index on node 5: same rail, same SU
    const auto path = route(fabric, src, dst);
    EXPECT_EQ(count_kind(fabric, path, LinkKind::kLeafSpine), 0) << src;
    EXPECT_EQ(count_kind(fabric, path, LinkKind::kAccess), 2) << src;
    EXPECT_EQ(static_cast<int>(path.size()), fabric.hop_distances(fabric.gpu_vertex(src))[fabric.gpu_vertex(dst)]) << src;
    // GPU -> PCIe switch -> NIC -> leaf -> NIC -> PCIe switch -> GPU.
    EXPECT_EQ(path.size(), 6U) << src;
  }
}

TEST(Router, SameNodePathIsShortestToo) {
  const Fabric fabric = build("dgx-h100-superpod", 16);
  const auto path = route(fabric, 2, 6);
  EXPECT_EQ(static_cast<int>(path.size()), fabric.hop_distances(fabric.gpu_vertex(2))[fabric.gpu_vertex(6)]);
}

TEST(Router, CrossRailWithoutPxnClimbsToASpine) {
  const Fabric fabric = build("dgx-h100-superpod", 256);
  const GpuId src = 0;   // node 0, rail 0
  const GpuId dst = 9;   // node 1, rail 1
  const auto path = route(fabric, src, dst, {.flow_label = 0, .pxn = false});
  ASSERT_TRUE(is_valid_path(fabric, src, dst, path));
  EXPECT_EQ(count_kind(fabric, path, LinkKind::kLeafSpine), 2);  // up and down
  EXPECT_EQ(count_kind(fabric, path, LinkKind::kNvlink), 0);
  EXPECT_EQ(fabric.link(path.front()).kind, LinkKind::kPcie);  // straight to its own NIC
}

TEST(Router, CrossRailWithPxnCrossesNvlinkAndStaysOnTheDestinationRail) {
  const Fabric fabric = build("dgx-h100-superpod", 256);
  const GpuId src = 0;
  const GpuId dst = 9;
  const auto path = route(fabric, src, dst, {.flow_label = 0, .pxn = true});
  ASSERT_TRUE(is_valid_path(fabric, src, dst, path));
  EXPECT_EQ(count_kind(fabric, path, LinkKind::kLeafSpine), 0);
  EXPECT_EQ(fabric.link(path.front()).kind, LinkKind::kNvlink);
  // NVLink to local GPU 1 (the destination's rail), then out of NIC 1 into rail 1's leaf.
  ASSERT_GE(path.size(), 3U);
  EXPECT_EQ(fabric.link(path[1]).to, fabric.gpu_vertex(1));
  for (LinkId id : path) {
    const Link& link = fabric.link(id);
    if (link.kind == LinkKind::kAccess && fabric.vertex_kind(link.to) == VertexKind::kLeaf) {
      EXPECT_EQ(link.to, fat_tree(fabric).leaf_vertex(fabric, fabric.switch_of_nic(0, 1)));
    }
  }
  // PXN on a same-rail pair changes nothing.
  EXPECT_EQ(route(fabric, 0, 8, {.flow_label = 0, .pxn = true}), route(fabric, 0, 8, {.flow_label = 0, .pxn = false}));
}

TEST(Router, CrossSuInTwoTiersUsesOneSpineAndNoCore) {
  const Fabric fabric = build("dgx-h100-superpod", 1024);
  const auto path = route(fabric, 0, 256 * 3);  // SU 0 -> SU 3, same rail
  ASSERT_TRUE(is_valid_path(fabric, 0, 256 * 3, path));
  EXPECT_EQ(count_kind(fabric, path, LinkKind::kLeafSpine), 2);
  EXPECT_EQ(count_kind(fabric, path, LinkKind::kSpineCore), 0);
}

TEST(Router, CrossPodOnThreeTiersGoesThroughACore) {
  {
    // DGX A100 SuperPOD at 1024 GPUs: 7 SUs of 20 nodes, 40-port switches, pods of 2 SUs.
    const Fabric fabric = build("dgx-a100-superpod", 1024);
    ASSERT_EQ(fat_tree(fabric).plan().tiers, 3);
    const TierPlan& plan = fat_tree(fabric).plan();
    const int nodes_per_pod = plan.leaves_per_pod / plan.leaves_per_su * fabric.spec().fabric.nodes_per_su;
    const GpuId dst = nodes_per_pod * 8;  // first GPU of pod 1
    ASSERT_EQ(plan.pod_of_leaf(fabric.switch_of_nic(nodes_per_pod, 0)), 1);
    const auto path = route(fabric, 0, dst);
    ASSERT_TRUE(is_valid_path(fabric, 0, dst, path));
    EXPECT_EQ(count_kind(fabric, path, LinkKind::kSpineCore), 2);
    EXPECT_EQ(count_kind(fabric, path, LinkKind::kLeafSpine), 2);
    // Up and down: leaf, spine, core, spine, leaf.
    std::vector<VertexKind> switches;
    for (LinkId id : path) {
      const VertexKind kind = fabric.vertex_kind(fabric.link(id).to);
      if (kind == VertexKind::kLeaf || kind == VertexKind::kSpine || kind == VertexKind::kCore) switches.push_back(kind);
    }
    EXPECT_EQ(switches, (std::vector<VertexKind>{VertexKind::kLeaf, VertexKind::kSpine, VertexKind::kCore,
                                                 VertexKind::kSpine, VertexKind::kLeaf}));
    // Within pod 0 (SU 0 -> SU 1) there is no core hop.
    const GpuId same_pod = fabric.spec().fabric.nodes_per_su * 8;
    EXPECT_EQ(count_kind(fabric, route(fabric, 0, same_pod), LinkKind::kSpineCore), 0);
  }
  {
    const Fabric fabric = build("hgx-h100-roce", 100000);
    ASSERT_EQ(fat_tree(fabric).plan().tiers, 3);
    const GpuId far = 99999;
    const auto path = route(fabric, 0, far, {.flow_label = 5, .pxn = true});
    ASSERT_TRUE(is_valid_path(fabric, 0, far, path));
    EXPECT_EQ(count_kind(fabric, path, LinkKind::kSpineCore), 2);
  }
}

TEST(Router, EcmpIsDeterministicPerFlowLabel) {
  const Fabric fabric = build("dgx-h100-superpod", 1024);
  for (std::uint64_t label = 0; label < 16; ++label) {
    EXPECT_EQ(route(fabric, 0, 1023, {.flow_label = label}), route(fabric, 0, 1023, {.flow_label = label}));
  }
  // A fresh build of the same topology routes identically (no address- or run-dependent hashing).
  const Fabric again = build("dgx-h100-superpod", 1024);
  EXPECT_EQ(route(fabric, 5, 777, {.flow_label = 3}), route(again, 5, 777, {.flow_label = 3}));
}

TEST(Router, EcmpSpreadsFlowLabelsOverUplinksAndSpines) {
  const Fabric fabric = build("dgx-h100-superpod", 1024);  // 32 uplinks per leaf over 16 spines
  std::set<LinkId> uplinks;
  std::set<VertexId> spines;
  std::set<std::vector<LinkId>> paths;
  for (std::uint64_t label = 0; label < 256; ++label) {
    const auto path = route(fabric, 0, 9, {.flow_label = label});  // cross rail: climbs to a spine
    paths.insert(path);
    for (LinkId id : path) {
      const Link& link = fabric.link(id);
      if (link.kind == LinkKind::kLeafSpine && fabric.vertex_kind(link.to) == VertexKind::kSpine) {
        uplinks.insert(id);
        spines.insert(link.to);
      }
    }
  }
  EXPECT_GT(paths.size(), 1U);
  EXPECT_GE(uplinks.size(), 16U);
  EXPECT_EQ(spines.size(), static_cast<std::size_t>(fat_tree(fabric).plan().spines()));
  // Different GPU pairs with one label also spread.
  std::set<VertexId> pair_spines;
  for (GpuId dst = 9; dst < 1024; dst += 8) {
    for (LinkId id : route(fabric, 0, dst)) {
      const Link& link = fabric.link(id);
      if (link.kind == LinkKind::kLeafSpine && fabric.vertex_kind(link.to) == VertexKind::kSpine) pair_spines.insert(link.to);
    }
  }
  EXPECT_GT(pair_spines.size(), 1U);
}

TEST(Router, PcieServerCrossesTheCpuLinkBetweenSockets) {
  const Fabric fabric = build("pcie-l40s", 8);
  ASSERT_FALSE(fabric.spec().server.nvlink.has_value());
  // GPUs 0-3 hang off socket 0's PCIe switches, 4-7 off socket 1's.
  const auto across = route(fabric, 0, 4);
  ASSERT_TRUE(is_valid_path(fabric, 0, 4, across));
  EXPECT_EQ(count_kind(fabric, across, LinkKind::kCpuLink), 1);
  EXPECT_EQ(count_kind(fabric, across, LinkKind::kNvlink), 0);
  // GPU -> PCIe sw -> CPU 0 -> CPU 1 -> PCIe sw -> GPU.
  EXPECT_EQ(across.size(), 5U);
  // Same socket: no socket link; same PCIe switch: two hops.
  EXPECT_EQ(count_kind(fabric, route(fabric, 0, 2), LinkKind::kCpuLink), 0);
  EXPECT_EQ(route(fabric, 0, 1).size(), 2U);
  EXPECT_EQ(kinds(fabric, route(fabric, 0, 1)), (std::vector<LinkKind>{LinkKind::kPcie, LinkKind::kPcie}));
}

TEST(Router, PxnIsIgnoredWithoutNvlink) {
  const Fabric fabric = build("pcie-l40s", 64);
  // Node 0 GPU 0 (rail 0, leaf 0) -> node 1 GPU 4 (rail 2, leaf 1): must climb to a spine.
  const auto plain = route(fabric, 0, 12, {.flow_label = 0, .pxn = false});
  const auto pxn = route(fabric, 0, 12, {.flow_label = 0, .pxn = true});
  EXPECT_EQ(plain, pxn);
  EXPECT_EQ(count_kind(fabric, pxn, LinkKind::kLeafSpine), 2);
  // Two rails per leaf: rail 0 -> rail 1 (GPU 0 -> node 1 GPU 2) shares a leaf, no spine.
  EXPECT_EQ(count_kind(fabric, route(fabric, 0, 10), LinkKind::kLeafSpine), 0);
}

// No bundled file is top-of-rack: derive one from the DGX H100 file (the reader rejects
// nodes_per_su and rails_per_leaf there, so they are removed, not overridden).
Fabric build_top_of_rack(const std::string& name, int gpus) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / (name + ".json");
  nlohmann::json doc = load_json_file(path);
  doc["fabric"]["kind"] = "top_of_rack";
  doc["fabric"].erase("nodes_per_su");
  doc["fabric"].erase("rails_per_leaf");
  return Fabric(parse_cluster(doc, path.string()), gpus);
}

TEST(Router, TopOfRackKeepsEveryRailOfALeafBelowIt) {
  // 64-port leaves, 32 down: 4 nodes of 8 NICs per leaf; 8192 GPUs need three tiers.
  const Fabric fabric = build_top_of_rack("dgx-h100-superpod", 8192);
  ASSERT_EQ(fat_tree(fabric).plan().nodes_per_leaf, 4);
  ASSERT_EQ(fat_tree(fabric).plan().tiers, 3);
  // Node 0 GPU 0 -> node 3 GPU 5: another rail, but the same leaf, so no spine.
  const auto same_leaf = route(fabric, 0, 3 * 8 + 5);
  ASSERT_TRUE(is_valid_path(fabric, 0, 3 * 8 + 5, same_leaf));
  EXPECT_EQ(count_kind(fabric, same_leaf, LinkKind::kLeafSpine), 0);
  // Node 4 sits under the next leaf.
  EXPECT_EQ(count_kind(fabric, route(fabric, 0, 4 * 8), LinkKind::kLeafSpine), 2);
  for (GpuId src = 0; src < 8192; src += 37) {
    for (GpuId dst = 0; dst < 8192; dst += 53) {
      ASSERT_TRUE(is_valid_path(fabric, src, dst, route(fabric, src, dst, {.flow_label = static_cast<std::uint64_t>(dst)})));
    }
  }
  EXPECT_EQ(count_kind(fabric, route(fabric, 0, 8191), LinkKind::kSpineCore), 2);
}

// fabric.ecmp_seed re-draws which equal-cost path each flow takes (size's --ecmp-seeds measures
// what that moves): 0 is the hash of every earlier report; another seed moves flows between
// spines and cores but never changes a path's length or its tiers.
TEST(Router, EcmpSeedRedrawsEqualCostPathsOnly) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "dgx-h100-superpod.json";
  nlohmann::json doc = load_json_file(path);
  const Fabric unseeded(parse_cluster(doc, path.string()), 10240);
  doc["fabric"]["ecmp_seed"] = 0;
  const Fabric zero(parse_cluster(doc, path.string()), 10240);
  doc["fabric"]["ecmp_seed"] = 7;
  const Fabric seven(parse_cluster(doc, path.string()), 10240);
  int moved = 0;
  int pairs = 0;
  for (GpuId src = 0; src < 10240; src += 211) {
    for (GpuId dst = 5; dst < 10240; dst += 389) {
      const auto before = route(unseeded, src, dst);
      EXPECT_EQ(route(zero, src, dst), before);
      const auto after = route(seven, src, dst);
      ASSERT_TRUE(is_valid_path(seven, src, dst, after));
      EXPECT_EQ(kinds(seven, after), kinds(unseeded, before));
      moved += after != before ? 1 : 0;
      pairs += count_kind(unseeded, before, LinkKind::kLeafSpine) > 0 ? 1 : 0;
    }
  }
  // Nearly every pair that climbs to a spine has 32 or more equal-cost ways: a new seed moves most.
  EXPECT_GT(moved, pairs / 2);
  doc["fabric"]["ecmp_seed"] = -1;
  EXPECT_THROW((void)parse_cluster(doc, path.string()), InputError);
}

// fabric.routing adaptive spreads a transfer over every equal-cost path: conservation (each hop
// of the switch part carries the whole transfer between its cables), the hashed ECMP path is one
// of the spread's paths, ECMP's spread is its path at share 1, and bad values are refused.
TEST(Router, AdaptiveSpreadConservesBytesOverEqualCostPaths) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "dgx-h100-superpod.json";
  nlohmann::json doc = load_json_file(path);
  const Fabric ecmp(parse_cluster(doc, path.string()), 10240);
  doc["fabric"]["routing"] = "adaptive";
  const Fabric adaptive(parse_cluster(doc, path.string()), 10240);
  for (const auto& [src, dst] : std::vector<std::pair<GpuId, GpuId>>{{0, 1}, {0, 8}, {0, 300}, {0, 8191}}) {
    const auto hashed = route(ecmp, src, dst);
    std::vector<std::pair<LinkId, double>> same;
    append_spread_route(ecmp, src, dst, {}, same);
    ASSERT_EQ(same.size(), hashed.size());
    for (std::size_t i = 0; i < same.size(); ++i) {
      EXPECT_EQ(same[i].first, hashed[i]);
      EXPECT_EQ(same[i].second, 1.0);
    }
    std::vector<std::pair<LinkId, double>> spread;
    append_spread_route(adaptive, src, dst, {}, spread);
    std::map<LinkKind, double> per_kind;
    std::set<LinkId> links;
    for (const auto& [link, share] : spread) {
      EXPECT_GT(share, 0.0);
      EXPECT_LE(share, 1.0);
      per_kind[adaptive.link(link).kind] += share;
      links.insert(link);
    }
    for (LinkId link : hashed) EXPECT_TRUE(links.count(link)) << src << " -> " << dst;
    // Up and down each tier: the shares of one kind add to the hops the hashed path makes of it.
    for (const auto& [kind, total] : per_kind) {
      EXPECT_NEAR(total, count_kind(ecmp, hashed, kind), 1e-9) << src << " -> " << dst;
    }
  }
  doc["fabric"]["routing"] = "random";
  EXPECT_THROW((void)parse_cluster(doc, path.string()), InputError);
  nlohmann::json sites = load_json_file(std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "two-site-h100-roce.json");
  sites["fabric"]["routing"] = "adaptive";
  EXPECT_THROW((void)parse_cluster(sites, "sites"), InputError);
}

// On a dragonfly, adaptive routing spreads a flow between groups evenly over the group pair's 16
// parallel global links (the hashed one among them), with the local hops of the hashed path's
// kinds in the same total; inside a group the direct local link is the only path, and the spread
// is the hashed path at share 1. Flow's parts are those paths, one per global link.
TEST(Router, AdaptiveOnADragonflySpreadsOverTheGroupPairsGlobalLinks) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "slingshot-a100-dragonfly.json";
  nlohmann::json doc = load_json_file(path);
  const Fabric ecmp(parse_cluster(doc, path.string()), 2048);
  doc["fabric"]["routing"] = "adaptive";
  const Fabric adaptive(parse_cluster(doc, path.string()), 2048);
  // GPU 600 is in group 1 (512 GPUs a group), GPU 40 in group 0 on another router than GPU 0.
  for (const auto& [src, dst, parts] : std::vector<std::tuple<GpuId, GpuId, int>>{{0, 600, 16}, {0, 40, 1}}) {
    const auto hashed = route(ecmp, src, dst);
    std::vector<std::pair<LinkId, double>> spread;
    append_spread_route(adaptive, src, dst, {}, spread);
    std::map<LinkKind, double> per_kind;
    std::set<LinkId> globals;
    std::set<LinkId> links;
    for (const auto& [link, share] : spread) {
      per_kind[adaptive.link(link).kind] += share;
      links.insert(link);
      if (adaptive.link(link).kind == LinkKind::kGlobal) {
        globals.insert(link);
        EXPECT_DOUBLE_EQ(share, 1.0 / parts);
      }
    }
    EXPECT_EQ(static_cast<int>(globals.size()), parts == 1 ? 0 : parts) << src << " -> " << dst;
    for (LinkId link : hashed) EXPECT_TRUE(links.count(link)) << src << " -> " << dst;
    for (const auto& [kind, total] : per_kind) {
      EXPECT_NEAR(total, count_kind(ecmp, hashed, kind), 1e-9) << src << " -> " << dst;
    }
    const int src_router = adaptive.topology().access_switch(static_cast<int>(src / 4), 0);
    const int dst_router = adaptive.topology().access_switch(static_cast<int>(dst / 4), 0);
    EXPECT_EQ(adaptive.topology().split_switch_paths(src_router, dst_router), parts);
  }
}

// Adaptive routing on flow splits a transfer into equal parts over equal-cost routes: each part
// a valid route with the hashed path's link kinds, one part per leaf uplink, and the parts
// together load every leaf uplink and leaf downlink (and, on two tiers, every cable) exactly as
// the analytical spread does; between pods the spine-core tier carries the same total.
TEST(Router, AdaptiveSplitRoutesLoadEachTierAsTheSpread) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "dgx-h100-superpod.json";
  nlohmann::json doc = load_json_file(path);
  doc["fabric"]["oversubscription"]["leaf"] = 2;
  const Fabric ecmp(parse_cluster(doc, path.string()), 10240);
  doc["fabric"]["routing"] = "adaptive";
  const Fabric adaptive(parse_cluster(doc, path.string()), 10240);
  for (const auto& [src, dst] : std::vector<std::pair<GpuId, GpuId>>{{0, 1}, {0, 8}, {0, 300}, {5, 8191}, {9, 300}}) {
    for (bool pxn : {false, true}) {
      const RouteOptions options{.flow_label = 3, .pxn = pxn};
      EXPECT_EQ(split_route_count(ecmp, src, dst, options), 1);
      const auto hashed = route(ecmp, src, dst, options);
      const int parts = split_route_count(adaptive, src, dst, options);
      const bool climbs = count_kind(ecmp, hashed, LinkKind::kLeafSpine) > 0;
      EXPECT_EQ(parts, climbs ? 16 : 1) << src << " -> " << dst;  // a leaf of 32 nodes at 2:1: 16 uplinks
      std::map<LinkId, double> load;
      for (int index = 0; index < parts; ++index) {
        std::vector<LinkId> part;
        append_split_route(adaptive, src, dst, options, index, parts, part);
        ASSERT_TRUE(is_valid_path(adaptive, src, dst, part)) << index;
        EXPECT_EQ(kinds(adaptive, part), kinds(ecmp, hashed)) << src << " -> " << dst << " part " << index;
        for (LinkId link : part) load[link] += 1.0 / parts;
      }
      std::vector<std::pair<LinkId, double>> spread;
      append_spread_route(adaptive, src, dst, options, spread);
      std::map<LinkId, double> spread_load;
      for (const auto& [link, share] : spread) spread_load[link] += share;
      const bool across_pods = count_kind(ecmp, hashed, LinkKind::kSpineCore) > 0;
      std::map<LinkKind, double> per_kind;
      for (const auto& [link, share] : spread_load) {
        per_kind[adaptive.link(link).kind] += share;
        if (across_pods && adaptive.link(link).kind == LinkKind::kSpineCore) continue;
        EXPECT_NEAR(load[link], share, 1e-12) << src << " -> " << dst << " link " << link;
      }
      for (const auto& [link, share] : load) {
        EXPECT_TRUE(spread_load.count(link)) << "a part leaves the equal-cost paths at link " << link;
        per_kind[adaptive.link(link).kind] -= share;
      }
      for (const auto& [kind, left] : per_kind) EXPECT_NEAR(left, 0.0, 1e-9) << src << " -> " << dst;
    }
  }
}

TEST(Router, OutOfRangeGpuIsAnInternalError) {
  const Fabric fabric = build("dgx-h100-superpod", 12);
  EXPECT_THROW((void)route(fabric, 0, 12), InternalError);
  EXPECT_THROW((void)route(fabric, -1, 0), InternalError);
}

}  // namespace
}  // namespace ctwin::fabric

// Lockstep links (fabric/lockstep.hpp): node_route_parts() holds every route's runs of node
// links, links of one set are crossed together or not at all by every route, each set stands
// as its slowest link, and on a DGX H100 SuperPOD a cross-pod route keeps 6 of its 10 links.

#include "ctwin/fabric/lockstep.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ctwin/fabric/router.hpp"
#include "bundled_fabric.hpp"

namespace ctwin::fabric {
namespace {

using testing::bundled_fabric;

struct Build {
  const char* topology;
  int gpus;  // two nodes at least, so routes leave the node
};

const std::vector<Build>& builds() {
  static const std::vector<Build> all = {
      {"dgx-a100-superpod", 24}, {"dgx-h100-superpod", 24}, {"dgx-b200-superpod", 24}, {"hgx-h100-roce", 24},
      {"pcie-l40s", 24},         {"gb200-nvl72", 144},      {"gb300-nvl72", 144},      {"jean-zay-a100-opa", 16},
  };
  return all;
}

// Every route the router can build between the GPUs of `fabric`: each pair with and without
// PXN, and both NVSwitch legs of pairs inside a node.
template <typename Visit>
void for_each_route(const Fabric& fabric, Visit visit) {
  const bool nvlink = fabric.spec().server.nvlink.has_value();
  for (GpuId src = 0; src < fabric.gpus(); ++src) {
    for (GpuId dst = 0; dst < fabric.gpus(); ++dst) {
      if (src == dst) continue;
      for (bool pxn : {false, true}) visit(route(fabric, src, dst, {0, pxn}));
      if (nvlink && fabric.node_of(src) == fabric.node_of(dst)) {
        for (SwitchLeg leg : {SwitchLeg::kToSwitch, SwitchLeg::kFromSwitch}) visit(route(fabric, src, dst, {0, false, leg}));
      }
    }
  }
}

// Node of each link, -1 above the leaves.
std::vector<int> node_of_links(const Fabric& fabric) {
  std::vector<int> node_of(fabric.links().size(), -1);
  const auto server_links = static_cast<LinkId>(fabric.server().links().size());
  for (int node = 0; node < fabric.nodes(); ++node) {
    for (LinkId local = 0; local < server_links; ++local) node_of[fabric.node_link(node, local)] = node;
    for (int nic = 0; nic < fat_tree(fabric).plan().rails; ++nic) {
      node_of[fabric.access_link(node, nic)] = node;
      node_of[reverse(fabric.access_link(node, nic))] = node;
    }
  }
  return node_of;
}

TEST(Lockstep, NodeRoutePartsHoldEveryRoutesRunsOfNodeLinks) {
  for (const Build& build : builds()) {
    const auto fabric = bundled_fabric(build.topology, build.gpus);
    const std::vector<int> node_of = node_of_links(fabric);
    std::vector<std::set<std::vector<LinkId>>> parts(static_cast<std::size_t>(fabric.nodes()));
    for (int node = 0; node < fabric.nodes(); ++node) {
      for (auto& part : node_route_parts(fabric, node)) parts[static_cast<std::size_t>(node)].insert(part);
    }
    std::size_t runs = 0;
    for_each_route(fabric, [&](const std::vector<LinkId>& path) {
      for (std::size_t begin = 0; begin < path.size();) {
        const int node = node_of[path[begin]];
        std::size_t end = begin + 1;
        while (end < path.size() && node_of[path[end]] == node) ++end;
        if (node >= 0) {
          const std::vector<LinkId> run(path.begin() + static_cast<std::ptrdiff_t>(begin),
                                        path.begin() + static_cast<std::ptrdiff_t>(end));
          ASSERT_TRUE(parts[static_cast<std::size_t>(node)].contains(run))
              << build.topology << ": a run of " << run.size() << " links of node " << node << " is no part";
          ++runs;
        }
        begin = end;
      }
    });
    EXPECT_GT(runs, 0U) << build.topology;
  }
}

TEST(Lockstep, EveryRouteCrossesAllOfASetOrNoneAndTheSlowestStandsForIt) {
  for (const Build& build : builds()) {
    const auto fabric = bundled_fabric(build.topology, build.gpus);
    const std::vector<LinkId> representative = lockstep_representatives(fabric);
    ASSERT_EQ(representative.size(), fabric.links().size());
    std::map<LinkId, std::vector<LinkId>> sets;
    for (LinkId link = 0; link < representative.size(); ++link) {
      const LinkId stands_for = representative[link];
      EXPECT_EQ(representative[stands_for], stands_for) << build.topology << ": link " << link;
      EXPECT_LE(fabric.link(stands_for).achieved(), fabric.link(link).achieved()) << build.topology;
      if (stands_for != link) sets[stands_for].push_back(link);
    }
    // Every server here has NICs with one PCIe link and one cable each: at least those fold.
    EXPECT_GE(sets.size(), static_cast<std::size_t>(2 * fabric.nodes() * fat_tree(fabric).plan().rails)) << build.topology;
    for_each_route(fabric, [&](const std::vector<LinkId>& path) {
      const std::multiset<LinkId> crossed(path.begin(), path.end());
      for (LinkId link : path) {
        const LinkId stands_for = representative[link];
        ASSERT_EQ(crossed.count(link), crossed.count(stands_for))
            << build.topology << ": link " << link << " without its representative " << stands_for;
        const auto set = sets.find(link);
        if (set == sets.end()) continue;
        for (LinkId member : set->second) {
          ASSERT_EQ(crossed.count(member), crossed.count(link))
              << build.topology << ": representative " << link << " without its link " << member;
        }
      }
    });
  }
}

TEST(Lockstep, CrossPodRouteOnDgxH100KeepsSixOfTenLinks) {
  const auto fabric = bundled_fabric("dgx-h100-superpod", 16384);  // three tiers, pods of 1,024 GPUs
  const std::vector<LinkId> representative = lockstep_representatives(fabric);
  const std::vector<LinkId> path = route(fabric, 0, 1024 + 9);
  ASSERT_EQ(path.size(), 10U);
  const auto tracked = std::count_if(path.begin(), path.end(), [&](LinkId link) { return representative[link] == link; });
  EXPECT_EQ(tracked, 6);
  // The GPU's PCIe link, the PCIe switch's link to the NIC and the NIC's cable stand as one,
  // as do the three on the way in; the four switch-to-switch links stand for themselves.
  for (std::size_t hop : {1U, 2U}) EXPECT_EQ(representative[path[hop]], path[0]);
  for (std::size_t hop : {3U, 4U, 5U, 6U}) EXPECT_EQ(representative[path[hop]], path[hop]);
  EXPECT_EQ(representative[path[7]], representative[path[9]]);
  EXPECT_EQ(representative[path[8]], representative[path[9]]);
}

}  // namespace
}  // namespace ctwin::fabric

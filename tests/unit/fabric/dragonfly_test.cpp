// Dragonfly through the topology seam (fabric/topologies/dragonfly.hpp). Oracles: the closed
// forms of Kim, Dally, Scott and Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology"
// (ISCA 2008) for a maximal dragonfly of g = a*h + 1 groups (a*g routers, g*a(a-1)/2 local
// links, g*a*h/2 global links, a*p*g terminals, radix p + a - 1 + h), port conservation, route
// shape (minimal: at most local-global-local; Valiant: two global hops via a third group), and
// names that survive a round trip.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cables_of.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"
#include "ctwin/fabric/summary.hpp"
#include "ctwin/fabric/topologies/dragonfly.hpp"

namespace ctwin::fabric {
namespace {

// A small dragonfly: 2-GPU nodes with one NIC each, p = 2 nodes per router, a = 4 routers per
// group, h = 2 global ports per router: at most a*h + 1 = 9 groups, radix 2 + 3 + 2 = 7.
ClusterSpec spec_of(int groups, const std::string& paths = "minimal") {
  nlohmann::json document = nlohmann::json::parse(R"({
    "name": "small-dragonfly",
    "server": {"name": "s", "gpu": "h100-sxm", "gpus": 2,
               "nvlink": {"generation": 4, "bandwidth": "450GBps", "latency": "250ns"},
               "cpus": 1, "pcie_switches": 0, "pcie": {"generation": 5, "bandwidth": "63GBps", "latency": "200ns"},
               "nics": {"count": 1, "bandwidth": "400Gbps", "latency": "500ns", "technology": "infiniband"}},
    "fabric": {"kind": "dragonfly", "switch": {"ports": 7},
               "link": {"bandwidth": "400Gbps", "latency": "300ns"},
               "routers_per_group": 4, "nodes_per_router": 2, "global_ports": 2,
               "global_link": {"bandwidth": "200Gbps", "latency": "600ns"}}
  })");
  document["fabric"]["groups"] = groups;
  document["fabric"]["paths"] = paths;
  return parse_cluster(document, "small-dragonfly.json");
}

std::string error_of(nlohmann::json document) {
  try {
    (void)parse_cluster(document, "bad.json");
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.message();
  }
  return "";
}

TEST(Dragonfly, MaximalBuildMatchesKimClosedForms) {
  const int a = 4, p = 2, h = 2, g = a * h + 1;
  const ClusterSpec spec = spec_of(g);
  const int nodes = a * p * g;  // every terminal of the largest dragonfly of these routers
  const Fabric fabric(spec, nodes * spec.server.gpus);
  const FabricSummary summary = summarize(fabric);
  ASSERT_EQ(summary.switch_tiers.size(), 1U);
  EXPECT_EQ(summary.switch_tiers[0].tier, "router");
  EXPECT_EQ(summary.switch_tiers[0].switches, a * g);
  EXPECT_EQ(cables_of(summary, LinkKind::kLocal), static_cast<long long>(g) * a * (a - 1) / 2);
  EXPECT_EQ(cables_of(summary, LinkKind::kGlobal), static_cast<long long>(g) * a * h / 2);
  EXPECT_EQ(cables_of(summary, LinkKind::kAccess), nodes);
  // Every port of every router is used: radix p + (a - 1) + h, as Kim et al. size it.
  EXPECT_EQ(summary.switch_tiers[0].ports_used, static_cast<long long>(a * g) * (p + a - 1 + h));
  EXPECT_EQ(summary.switch_tiers[0].ports_used, summary.switch_tiers[0].ports_total);
  EXPECT_EQ(summary.pods, g);
  // One global link per pair of groups; half the groups against the other half.
  EXPECT_DOUBLE_EQ(summary.bisection.bytes_per_second(), 200e9 / 8 * (g / 2) * (g - g / 2));
  EXPECT_TRUE(check_build(spec, fabric.topology()).empty());
  // One more node than the design holds is refused, naming the field that caps it.
  try {
    (void)Fabric(spec, (nodes + 1) * spec.server.gpus);
    ADD_FAILURE() << "a build beyond a*p*g nodes was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/fabric/groups");
  }
}

TEST(Dragonfly, PartialBuildWiresOnlyItsGroupsAndWarnsOfDarkPorts) {
  // 5 groups designed: each pair gets floor(8 / 4) = 2 global links; 3 groups built.
  const ClusterSpec spec = spec_of(5);
  const Fabric fabric(spec, 2 * 8 * 3 - 2);  // the last node of group 2 left out
  const FabricSummary summary = summarize(fabric);
  EXPECT_EQ(summary.switch_tiers[0].switches, 12);
  EXPECT_EQ(cables_of(summary, LinkKind::kLocal), 3 * 6);
  EXPECT_EQ(cables_of(summary, LinkKind::kGlobal), 3 * 2);
  EXPECT_TRUE(check_build(spec, fabric.topology()).empty()) << "4 x 2 = 8 ports wire 4 peers exactly";
  const auto warnings = check_build(spec_of(4), Dragonfly(spec_of(4), 8));
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].check, "global_ports_idle");  // 3 peers x floor(8 / 3) = 6 of 8 ports
}

// Walks every GPU pair: the route is a chain from source to destination, and its switch cables
// have the dragonfly's shape.
void check_routes(const Fabric& fabric, bool valiant) {
  const auto& topology = dynamic_cast<const Dragonfly&>(fabric.topology());
  const int a = topology.shape().routers_per_group;
  const int per_group_gpus = a * topology.shape().nodes_per_router * fabric.gpus_per_node();
  for (GpuId s = 0; s < fabric.gpus(); ++s) {
    for (GpuId d = 0; d < fabric.gpus(); ++d) {
      if (s == d) continue;
      const auto path = route(fabric, s, d, {.flow_label = static_cast<std::uint64_t>(s + d)});
      ASSERT_FALSE(path.empty());
      ASSERT_EQ(fabric.link(path.front()).from, fabric.gpu_vertex(s));
      ASSERT_EQ(fabric.link(path.back()).to, fabric.gpu_vertex(d));
      int local = 0, global = 0;
      std::set<int> groups;
      for (std::size_t i = 0; i < path.size(); ++i) {
        if (i > 0) { ASSERT_EQ(fabric.link(path[i - 1]).to, fabric.link(path[i]).from); }
        const Link& link = fabric.link(path[i]);
        local += link.kind == LinkKind::kLocal;
        global += link.kind == LinkKind::kGlobal;
        if (is_switch_cable(link.kind)) {
          for (const VertexId end : {link.from, link.to}) groups.insert(static_cast<int>(end - fabric.switch_vertex(0)) / a);
        }
      }
      const bool same_group = s / per_group_gpus == d / per_group_gpus;
      if (same_group) {
        EXPECT_EQ(global, 0);
        EXPECT_LE(local, 1);
      } else if (!valiant) {
        EXPECT_EQ(global, 1) << s << "->" << d;
        EXPECT_LE(local, 2);
      } else {
        EXPECT_EQ(global, 2) << s << "->" << d;
        EXPECT_LE(local, 3);
        EXPECT_EQ(groups.size(), 3U) << "through a third group";
      }
    }
  }
}

TEST(Dragonfly, MinimalRoutesAreLocalGlobalLocal) {
  const Fabric fabric(spec_of(9), 2 * 8 * 4);  // 4 of 9 groups
  check_routes(fabric, false);
}

TEST(Dragonfly, ValiantRoutesCrossOneIntermediateGroup) {
  const Fabric fabric(spec_of(9, "valiant"), 2 * 8 * 4);
  check_routes(fabric, true);
}

TEST(Dragonfly, CableNamesRoundTrip) {
  const Fabric fabric(spec_of(9), 2 * 8 * 3);
  for (long long n = 0; n < fabric.switch_link_count(); ++n) {
    const LinkId even = fabric.switch_link(n);
    const std::string name = cable_name(fabric, even);
    ASSERT_FALSE(name.empty());
    const Degradation d = parse_degradation("link:" + name + "=0.5", "--degrade", fabric);
    EXPECT_EQ(static_cast<LinkId>(d.index), even) << name;
  }
  EXPECT_EQ(cable_name(fabric, fabric.switch_link(0)), "g0.r0-r1");
  EXPECT_THROW((void)parse_degradation("link:g0-g7.0=0.5", "--degrade", fabric), InputError);  // group 7 not built
  EXPECT_THROW((void)parse_degradation("leaf:0=uplinks:0.5", "--degrade", fabric), InputError);  // no leaves
}

TEST(Dragonfly, BadFilesNameTheirField) {
  nlohmann::json document = nlohmann::json::parse(R"({
    "name": "d",
    "server": {"name": "s", "gpu": "h100-sxm", "gpus": 2, "cpus": 1, "pcie_switches": 0,
               "nvlink": {"generation": 4, "bandwidth": "450GBps", "latency": "250ns"},
               "pcie": {"generation": 5, "bandwidth": "63GBps", "latency": "200ns"},
               "nics": {"count": 1, "bandwidth": "400Gbps", "latency": "500ns", "technology": "infiniband"}},
    "fabric": {"kind": "dragonfly", "switch": {"ports": 7}, "link": {"bandwidth": "400Gbps", "latency": "300ns"},
               "routers_per_group": 4, "nodes_per_router": 2, "global_ports": 2, "groups": 10}
  })");
  EXPECT_EQ(error_of(document),
            "/fabric/groups: 10 groups need 9 global links per group, but 4 routers x 2 global_ports wire at most 8 "
            "(at most 9 groups)");
  document["fabric"]["groups"] = 9;
  document["fabric"]["switch"]["ports"] = 6;
  EXPECT_EQ(error_of(document), "/fabric/nodes_per_router: a router needs 2 NIC ports, 3 local and 2 global ports (7) "
                                "but has 6 (fabric.switch.ports)");
  document["fabric"]["switch"]["ports"] = 7;
  document["fabric"]["oversubscription"] = {{"leaf", 2}};
  EXPECT_NE(error_of(document).find("/fabric/oversubscription"), std::string::npos) << "a fat-tree field is refused";
  document["fabric"].erase("oversubscription");
  document["fabric"]["kind"] = "torus";
  EXPECT_NE(error_of(document).find("/fabric/kind: unknown value 'torus'"), std::string::npos) << error_of(document);
}

TEST(Dragonfly, BundledSlingshotFileHasTheCrayExGroup) {
  const ClusterSpec spec =
      load_cluster(std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "slingshot-a100-dragonfly.json");
  const Dragonfly plan(spec, 16384 / 4);
  // 32 switches per group, 16 node ports + 31 local + 16 global of 64 (the file's sources).
  EXPECT_EQ(plan.shape().routers_per_group, 32);
  EXPECT_EQ(plan.shape().links_per_group_pair(), 16);
  EXPECT_EQ(plan.shape().built_groups, 32);
  EXPECT_EQ(plan.nodes_per_unit(), 128);
  EXPECT_FALSE(plan.rail_aligned());
}

}  // namespace
}  // namespace ctwin::fabric

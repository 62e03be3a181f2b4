// Sites joined by DCI (fabric/topologies/multi_site.hpp). Oracles: counts (each site a copy of
// the single-site build, one border cable per access switch, dci.links per site pair), routes
// inside a site identical to the single-site build's, a cross-site route that crosses exactly one
// DCI link with the latency of its links summed, names that survive a round trip, and a two-site
// ring all_reduce against its alpha-beta closed form with the DCI latency.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bundled_fabric.hpp"
#include "cables_of.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/collectives/tuning.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"
#include "ctwin/fabric/summary.hpp"
#include "ctwin/fabric/topologies/multi_site.hpp"

namespace ctwin::fabric {
namespace {

using namespace ctwin::literals;

const char* const kTwoSites = "two-site-h100-roce";

std::string sites_error(const std::vector<std::string>& overrides) {
  try {
    (void)testing::bundled_cluster(kTwoSites, overrides);
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.message();
  }
  return "";
}

TEST(MultiSite, EachSiteIsACopyOfTheSingleSiteBuildJoinedByItsDci) {
  const int gpus = 2 * 1024;  // 256 nodes: two 64-node SUs per site
  const Fabric two(testing::bundled_cluster(kTwoSites), gpus);
  const Fabric one(testing::bundled_cluster("hgx-h100-roce", {"fabric.oversubscription.leaf=1.016"}), gpus / 2);
  const auto& sites = dynamic_cast<const MultiSite&>(two.topology());
  ASSERT_EQ(sites.sites(), 2);
  const FabricSummary a = summarize(two);
  const FabricSummary b = summarize(one);
  ASSERT_EQ(a.switch_tiers.size(), b.switch_tiers.size() + 1);
  for (std::size_t t = 0; t < b.switch_tiers.size(); ++t) {
    EXPECT_EQ(a.switch_tiers[t].switches, 2 * b.switch_tiers[t].switches) << b.switch_tiers[t].tier;
  }
  EXPECT_EQ(a.switch_tiers.back().tier, "border");
  EXPECT_EQ(a.switch_tiers.back().switches, 2);
  EXPECT_EQ(cables_of(a, LinkKind::kAccess), 2 * cables_of(b, LinkKind::kAccess));
  EXPECT_EQ(cables_of(a, LinkKind::kLeafSpine), 2 * cables_of(b, LinkKind::kLeafSpine));
  EXPECT_EQ(cables_of(a, LinkKind::kBorder), 2LL * b.switch_tiers.front().switches);
  EXPECT_EQ(cables_of(a, LinkKind::kDci), 16);
  // Halving the two sites cuts the 16 DCI links of 400 Gb/s.
  EXPECT_DOUBLE_EQ(a.bisection.bytes_per_second(), 16 * 400e9 / 8);
  EXPECT_EQ(check_build(two.spec(), two.topology()).size(), check_build(one.spec(), one.topology()).size());

  // Inside a site, routes are the single-site build's (site 0: link for link).
  const long long site_cables = one.switch_link_count();
  for (const auto [src, dst] : {std::pair{0, 8 * 63 + 3}, std::pair{5, 8 * 17 + 5}}) {
    const auto single = route(one, src, dst, {7});
    const auto first = route(two, src, dst, {7});
    const auto second = route(two, src + gpus / 2, dst + gpus / 2, {7});
    ASSERT_EQ(single.size(), first.size());
    ASSERT_EQ(single.size(), second.size());
    for (std::size_t i = 0; i < single.size(); ++i) {
      EXPECT_EQ(two.link(first[i]).kind, one.link(single[i]).kind);
      EXPECT_EQ(two.link(second[i]).kind, one.link(single[i]).kind);
      if (is_switch_cable(one.link(single[i]).kind)) {
        EXPECT_EQ(first[i] - two.switch_link(0), single[i] - one.switch_link(0));
        // The ECMP hash takes the GPU ids, so site 1's pair may take other cables, all of site 1.
        const long long n = (second[i] - two.switch_link(0)) / 2;
        EXPECT_GE(n, site_cables);
        EXPECT_LT(n, 2 * site_cables);
      }
    }
  }
}

TEST(MultiSite, CrossSiteRouteCrossesOneDciLinkAndAddsItsLatency) {
  const Fabric two(testing::bundled_cluster(kTwoSites), 64);  // 4 nodes, 2 per site
  for (std::uint64_t label = 0; label < 8; ++label) {
    const auto path = route(two, 3, 32 + 3, {label});
    int dci = 0;
    int border = 0;
    for (const LinkId id : path) {
      dci += two.link(id).kind == LinkKind::kDci;
      border += two.link(id).kind == LinkKind::kBorder;
    }
    EXPECT_EQ(dci, 1);
    EXPECT_EQ(border, 2);
    // GPU, PCIe, NIC, leaf, border, DCI, border, leaf, NIC, PCIe, GPU: the links' latencies add.
    const PathProperties properties = path_properties(two, path);
    const PathProperties inside = path_properties(two, route(two, 3, 8 + 3, {label}));
    // Same leaf inside a site: NIC up and down; across: plus border up, DCI, border down.
    EXPECT_EQ(properties.latency.ps() - inside.latency.ps(), 500'000'000LL + 2 * 750'000LL);
  }
}

TEST(MultiSite, CableNamesSurviveARoundTripAndDegrade) {
  const Fabric two(testing::bundled_cluster(kTwoSites), 2 * 1024);
  const Topology& topology = two.topology();
  for (long long n = 0; n < two.switch_link_count(); n += 7) {
    const LinkId even = two.switch_link(n);
    const std::string name = topology.cable_name(two, even);
    ASSERT_FALSE(name.empty()) << n;
    std::string problem;
    EXPECT_EQ(topology.find_cable(two, name, problem), std::optional<LinkId>(even)) << name;
  }
  std::string problem;
  EXPECT_FALSE(topology.find_cable(two, "dci0-2.0", problem));
  EXPECT_NE(problem.find("no such DCI link"), std::string::npos);
  // Losing one of the 16 DCI links takes it, and only it, off the cut.
  Fabric degraded(testing::bundled_cluster(kTwoSites), 2 * 1024);
  apply_degradation(degraded, parse_degradation("link:dci0-1.5=0.5", "--degrade", degraded));
  const LinkId dci = *topology.find_cable(two, "dci0-1.5", problem);
  EXPECT_DOUBLE_EQ(degraded.link(dci).bandwidth.bytes_per_second(), 0.5 * two.link(dci).bandwidth.bytes_per_second());
}

TEST(MultiSite, BadSitesAreOneLineErrorsNamingTheField) {
  EXPECT_EQ(sites_error({"fabric.sites.dci=null"}).substr(0, 17), "/fabric/sites/dci");
  EXPECT_NE(sites_error({"fabric.sites.dci.latency=500"}).find("/fabric/sites/dci/latency"), std::string::npos);
  EXPECT_NE(sites_error({"fabric.sites.count=1"}).find("/fabric/sites/count"), std::string::npos);
  EXPECT_NE(sites_error({"fabric.sites.dci.links=0"}).find("/fabric/sites/dci/links"), std::string::npos);
  EXPECT_NE(sites_error({"fabric.sites.distance=3"}).find("/fabric/sites/distance"), std::string::npos);
}

// A ring all_reduce over two sites: every step's slowest transfer is the one crossing the DCI
// (twice per ring, in opposite directions, so no two share a DCI link), so in the alpha-beta form
//   T = T0 + 2(n-1) * (latency of the crossing path) + 2(n-1)/n * S / B_DCI
// the DCI latency enters 2(n-1) times and the DCI bandwidth sets the size slope. (T0, the
// protocol's base and per-hop costs, is the collective model's own, tested elsewhere.)
double two_site_ring_seconds(const std::string& latency, Bytes size) {
  const Fabric two(testing::bundled_cluster(kTwoSites, {"fabric.sites.dci.bandwidth=100Gbps",
                                                        "fabric.sites.dci.latency=" + latency}), 32);
  collectives::CollectiveQuery query;
  query.op = collectives::Op::kAllReduce;
  query.algorithm = collectives::Algorithm::kRing;
  query.protocol = collectives::Protocol::kSimple;
  query.sizes = {size};
  query.network = network::parse_model_kind("analytical", "test", "network");
  query.tuning.channels = 1;
  return collectives::predict_collective(two, query).rows.at(0).time.seconds();
}

TEST(MultiSite, TwoSiteRingAllReduceMatchesTheAlphaBetaClosedForm) {
  const double n = 32;
  const Fabric two(testing::bundled_cluster(kTwoSites, {"fabric.sites.dci.bandwidth=100Gbps"}), 32);
  ASSERT_DOUBLE_EQ(path_properties(two, route(two, 15, 16)).bottleneck.bytes_per_second(), 100e9 / 8);
  for (const Bytes size : {64_KiB, 16_MiB, 1_GiB}) {
    const double alpha = two_site_ring_seconds("500us", size) - two_site_ring_seconds("100us", size);
    EXPECT_NEAR(alpha, 2 * (n - 1) * 400e-6, 1e-9) << size.count();
  }
  const double beta = two_site_ring_seconds("500us", 1_GiB) - two_site_ring_seconds("500us", 16_MiB);
  const double expected = 2 * (n - 1) / n * static_cast<double>((1_GiB).count() - (16_MiB).count()) / (100e9 / 8);
  EXPECT_NEAR(beta, expected, 1e-6 * expected);
}

}  // namespace
}  // namespace ctwin::fabric

// The hierarchical all_reduce across the sites of a build (collectives/plan.cpp): a ring
// reduce-scatter inside each site, a ring over the sites of each GPU's shard across the DCI, a
// ring all-gather inside each site. Oracles: on `analytical` its time is the two intra-site rings
// (timed alone on one site) plus the cross-site closed form 2(k−1)·(L_DCI path + NCCL's network
// hop) + 2(k−1)/k·S/B_DCI, to 1e-6; the DCI latency enters 2(k−1) times (k sites), not 2(n−1)
// (k − 1 for reduce_scatter and all_gather);
// on `flow` the same within 1 %; a single site or an uneven split is refused.

#include <gtest/gtest.h>

#include "bundled_fabric.hpp"
#include "ctwin/collectives/plan.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::collectives {
namespace {

using namespace ctwin::literals;
using fabric::Fabric;

constexpr double kNetHopSimple = 14e-6;  // NCCL's ring network latency, Simple (tuning.cpp)
constexpr double kRingBaseSimple = 8.4e-6;

Fabric sites_fabric(int gpus, const std::string& latency, int sites = 2) {
  return testing::bundled_fabric("two-site-h100-roce", gpus,
                                 {"fabric.sites.count=" + std::to_string(sites), "fabric.sites.dci.links=1",
                                  "fabric.sites.dci.bandwidth=100Gbps", "fabric.sites.dci.latency=" + latency});
}

// One site alone: the two-site file's site (hgx-h100-roce with one leaf port kept for the border).
Fabric one_site(int gpus) {
  return testing::bundled_fabric("hgx-h100-roce", gpus, {"fabric.oversubscription.leaf=1.016"});
}

double seconds(const Fabric& built, Op op, Algorithm algorithm, Bytes size, const char* network = "analytical") {
  CollectiveQuery query;
  query.op = op;
  query.algorithm = algorithm;
  query.protocol = Protocol::kSimple;
  query.sizes = {size};
  query.network = network::parse_model_kind(network, "test", "network");
  query.tuning.channels = 1;
  return predict_collective(built, query).rows.at(0).time.seconds();
}

// 2(k−1) steps over the DCI, each waiting for the crossing path and NCCL's network hop; the one
// DCI link carries 2(k−1)/k of the buffer each way (each of the m GPUs sends its S/m shard).
double cross_site_closed_form(const Fabric& built, int sites, Bytes size) {
  const int m = built.gpus() / sites;
  const double path = fabric::path_properties(built, fabric::route(built, 0, m)).latency.seconds();
  const double k = sites;
  return 2 * (k - 1) * (path + kNetHopSimple) + 2 * (k - 1) / k * static_cast<double>(size.count()) / (100e9 / 8);
}

TEST(HierarchicalAllReduce, IsTheSiteRingsPlusTheDciClosedFormOnAnalytical) {
  const Fabric two = sites_fabric(32, "500us");
  const Fabric site = one_site(16);
  for (const Bytes size : {64_KiB, 16_MiB, 1_GiB}) {
    const double inside = seconds(site, Op::kReduceScatter, Algorithm::kRing, size) +
                          seconds(site, Op::kAllGather, Algorithm::kRing, size) - 2 * kRingBaseSimple;
    const double expected = kRingBaseSimple + inside + cross_site_closed_form(two, 2, size);
    const double got = seconds(two, Op::kAllReduce, Algorithm::kHierarchical, size);
    EXPECT_NEAR(got, expected, 1e-6 * expected) << size.count();
  }
}

TEST(HierarchicalAllReduce, DciLatencyEntersTwiceKMinusOneTimes) {
  for (const int sites : {2, 4}) {
    const int gpus = 16 * sites;
    const double alpha = seconds(sites_fabric(gpus, "500us", sites), Op::kAllReduce, Algorithm::kHierarchical, 16_MiB) -
                         seconds(sites_fabric(gpus, "100us", sites), Op::kAllReduce, Algorithm::kHierarchical, 16_MiB);
    EXPECT_NEAR(alpha, 2 * (sites - 1) * 400e-6, 1e-9) << sites;
  }
  // reduce_scatter and all_gather cross once per site but one: k − 1 waits.
  for (const Op op : {Op::kReduceScatter, Op::kAllGather}) {
    const double alpha = seconds(sites_fabric(64, "500us", 4), op, Algorithm::kHierarchical, 16_MiB) -
                         seconds(sites_fabric(64, "100us", 4), op, Algorithm::kHierarchical, 16_MiB);
    EXPECT_NEAR(alpha, 3 * 400e-6, 1e-9) << name(op);
  }
  // The flat ring over the same 32 GPUs waits 2(n−1) = 62 times.
  const double ring = seconds(sites_fabric(32, "500us"), Op::kAllReduce, Algorithm::kRing, 16_MiB) -
                      seconds(sites_fabric(32, "100us"), Op::kAllReduce, Algorithm::kRing, 16_MiB);
  EXPECT_NEAR(ring, 62 * 400e-6, 1e-9);
}

TEST(HierarchicalAllReduce, FlowAgreesWithTheClosedFormWithinOnePercent) {
  const Fabric two = sites_fabric(32, "500us");
  for (const Bytes size : {16_MiB, 1_GiB}) {
    const double analytical = seconds(two, Op::kAllReduce, Algorithm::kHierarchical, size);
    const double flow = seconds(two, Op::kAllReduce, Algorithm::kHierarchical, size, "flow");
    EXPECT_NEAR(flow, analytical, 0.01 * analytical) << size.count();
  }
}

TEST(HierarchicalAllReduce, AutoPicksItAcrossSitesAndNeverOnOneSite) {
  const Fabric two = sites_fabric(32, "500us");
  const auto across = candidate_algorithms(Op::kAllReduce, two);
  EXPECT_NE(std::find(across.begin(), across.end(), Algorithm::kHierarchical), across.end());
  CollectiveQuery query;
  query.sizes = {1_GiB};
  query.network = network::ModelKind::kAnalytical;
  EXPECT_EQ(predict_collective(two, query).rows.at(0).algorithm, Algorithm::kHierarchical);
  const Fabric site = one_site(16);
  const auto inside = candidate_algorithms(Op::kAllReduce, site);
  EXPECT_EQ(std::find(inside.begin(), inside.end(), Algorithm::kHierarchical), inside.end());
}

std::string refusal(const Fabric& built, Op op) {
  try {
    (void)make_plan(op, Algorithm::kHierarchical, built, 1);
  } catch (const InputError& e) {
    return e.pointer() + ": " + e.message();
  }
  return "";
}

TEST(HierarchicalAllReduce, IsRefusedOnOneSiteOnUnevenSitesAndForAlltoall) {
  EXPECT_NE(refusal(one_site(16), Op::kAllReduce).find("one site"), std::string::npos);
  // 24 GPUs = 3 nodes: two in site 0, one in site 1.
  const Fabric uneven = sites_fabric(24, "500us");
  EXPECT_NE(refusal(uneven, Op::kAllReduce).find("same GPU count in every site"), std::string::npos);
  const auto list = candidate_algorithms(Op::kAllReduce, uneven);
  EXPECT_EQ(std::find(list.begin(), list.end(), Algorithm::kHierarchical), list.end());
  EXPECT_NE(refusal(sites_fabric(32, "500us"), Op::kAlltoall).find("cannot run alltoall"), std::string::npos);
}

}  // namespace
}  // namespace ctwin::collectives

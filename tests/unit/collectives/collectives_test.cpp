#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "ctwin/collectives/plan_timing.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "bundled_fabric.hpp"

namespace ctwin::collectives {
namespace {

using namespace ctwin::literals;

using testing::bundled_fabric;

CollectiveRow predict_one(const fabric::Fabric& built, Op op, Algorithm algorithm, Protocol protocol, Bytes size,
                          const std::string& network, int channels = 0, bool every_transfer = false) {
  CollectiveQuery query;
  query.op = op;
  query.algorithm = algorithm;
  query.protocol = protocol;
  query.sizes = {size};
  query.network = network::parse_model_kind(network, "test", "network");
  query.tuning.channels = channels;
  query.every_transfer = every_transfer;
  return predict_collective(built, query).rows.at(0);
}

TEST(Collectives, BusBandwidthFactorsMatchNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllGather, 16), 15.0 / 16);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAlltoall, 2), 1.0 / 2);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kBroadcast, 64), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kReduce, 64), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kSendRecv, 64), 1.0);
}

// On one NVSwitch node every ring hop is GPU -> switch -> GPU over equal links, so the ring is
// the textbook one: T = 2(n-1)/n * S/B + 2(n-1) * alpha, alpha = path latency + protocol hop.
TEST(Collectives, RingAllReduceMatchesTheClosedFormOnUniformLinks) {
  const auto built = bundled_fabric("dgx-h100-superpod", 8);
  const CollectiveTuning tuning;
  const double n = 8;
  const auto path = fabric::route(built, 0, 1);
  const auto properties = fabric::path_properties(built, path);
  const double bandwidth = properties.bottleneck.bytes_per_second();
  for (Bytes size : {64_KiB, 16_MiB, 1_GiB}) {
    const auto row = predict_one(built, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, size, "analytical", 1);
    const auto cost = tuning.cost({Algorithm::kRing, Op::kAllReduce, 8, 1, 1, GpuArch::kHopper}, Protocol::kSimple, HopClass::kNvlink);
    const double alpha = properties.latency.seconds() + cost.hop_latency.seconds();
    const double expected = cost.base_latency.seconds() + 2 * (n - 1) / n * static_cast<double>(size.count()) / bandwidth +
                            2 * (n - 1) * alpha;
    EXPECT_NEAR(row.time.seconds(), expected, 1e-6 * expected) << size.count();
  }
}

// fabric.routing adaptive (analytical): spreading over equal-cost paths never loses to ECMP's
// hash on a permutation (alltoall at 2:1, where hashing collides), and changes nothing where a
// transfer has a single path (two nodes on one leaf per rail).
TEST(Collectives, AdaptiveRoutingNeverSlowerThanEcmpAndEqualOnASinglePath) {
  for (const auto& [gpus, oversubscription] : std::vector<std::pair<int, std::string>>{{512, "2"}, {512, "1"}, {16, "2"}}) {
    const std::string leaf = "fabric.oversubscription.leaf=" + oversubscription;
    const auto ecmp = bundled_fabric("dgx-h100-superpod", gpus, {leaf});
    const auto adaptive = bundled_fabric("dgx-h100-superpod", gpus, {leaf, "fabric.routing=adaptive"});
    const auto hashed = predict_one(ecmp, Op::kAlltoall, Algorithm::kDirect, Protocol::kSimple, 1_GiB, "analytical");
    const auto spread = predict_one(adaptive, Op::kAlltoall, Algorithm::kDirect, Protocol::kSimple, 1_GiB, "analytical");
    EXPECT_LE(spread.time.seconds(), hashed.time.seconds() * (1 + 1e-12)) << gpus << " " << leaf;
    if (gpus == 16) { EXPECT_DOUBLE_EQ(spread.time.seconds(), hashed.time.seconds()); }
    if (gpus == 512 && oversubscription == "2") { EXPECT_LT(spread.time.seconds(), 0.95 * hashed.time.seconds()); }
  }
}

// On a small dragonfly (four groups of four one-node routers, four global links per group pair),
// adaptive routing evens an alltoall's flows over each pair's global links, where ECMP hashes
// each onto one: never slower on either network; a ring inside one group (one local link per
// router pair: a single path) is unchanged.
TEST(Collectives, AdaptiveRoutingOnADragonflyNeverSlowerThanEcmp) {
  const std::vector<std::string> small{"fabric.routers_per_group=4", "fabric.nodes_per_router=1", "fabric.global_ports=4",
                                       "fabric.groups=5"};
  std::vector<std::string> spread_over = small;
  spread_over.push_back("fabric.routing=adaptive");
  const auto ecmp = bundled_fabric("slingshot-a100-dragonfly", 64, small);
  const auto adaptive = bundled_fabric("slingshot-a100-dragonfly", 64, spread_over);
  for (const char* network : {"analytical", "flow"}) {
    const auto hashed = predict_one(ecmp, Op::kAlltoall, Algorithm::kDirect, Protocol::kSimple, 256_MiB, network);
    const auto spread = predict_one(adaptive, Op::kAlltoall, Algorithm::kDirect, Protocol::kSimple, 256_MiB, network);
    EXPECT_LE(spread.time.seconds(), hashed.time.seconds() * (1 + 1e-9)) << network;
  }
  const auto group_ecmp = bundled_fabric("slingshot-a100-dragonfly", 16, small);
  const auto group_adaptive = bundled_fabric("slingshot-a100-dragonfly", 16, spread_over);
  for (const char* network : {"analytical", "flow"}) {
    const auto ring = predict_one(group_ecmp, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, 64_MiB, network);
    const auto ring_adaptive = predict_one(group_adaptive, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, 64_MiB, network);
    EXPECT_DOUBLE_EQ(ring_adaptive.time.seconds(), ring.time.seconds()) << network;
  }
}

// flow and analytical agree on what adaptive routing does to a collective: alltoall at 2:1,
// where ECMP's hash collides, is faster under adaptive on both, and the ring all_reduce, whose
// rail-local transfers have one path each, is unchanged on both.
TEST(Collectives, AdaptiveRoutingOnFlowAgreesWithAnalyticalOnTheDirection) {
  // Two scalable units of 8 nodes, so that the alltoall climbs to the spines (PXN keeps it on
  // its rail's leaf inside one SU).
  const std::vector<std::string> small{"fabric.oversubscription.leaf=2", "fabric.nodes_per_su=8"};
  const auto ecmp = bundled_fabric("dgx-h100-superpod", 128, small);
  const auto adaptive = bundled_fabric("dgx-h100-superpod", 128, {small[0], small[1], "fabric.routing=adaptive"});
  for (const char* network : {"analytical", "flow"}) {
    const auto hashed = predict_one(ecmp, Op::kAlltoall, Algorithm::kDirect, Protocol::kSimple, 64_MiB, network);
    const auto spread = predict_one(adaptive, Op::kAlltoall, Algorithm::kDirect, Protocol::kSimple, 64_MiB, network);
    EXPECT_LT(spread.time.seconds(), 0.9 * hashed.time.seconds()) << network;  // 40.1 -> 48.7 GB/s, measured
    const auto ring = predict_one(ecmp, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, 64_MiB, network);
    const auto ring_adaptive = predict_one(adaptive, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, 64_MiB, network);
    EXPECT_LE(ring_adaptive.time.seconds(), ring.time.seconds() * (1 + 1e-9)) << network;
  }
}

// On one node a step's transfers share each GPU's port alike, so analytical's load bound is
// exactly what flow's fair sharing gives, channels and all; and with 8 channels no ring moves
// faster than the port (before analytical counted a step's sharing, each channel had the whole
// port: 1,347 GB/s busbw for an 8-GPU all_gather on 371 GB/s links).
TEST(Collectives, AnalyticalCountsTheStepsOwnSharingOfLinksAsFlowDoesOnOneNode) {
  for (const char* topology : {"dgx-h100-superpod", "dgx-a100-superpod"}) {
    const auto built = bundled_fabric(topology, 8);
    const double port = fabric::path_properties(built, fabric::route(built, 0, 1)).bottleneck.bytes_per_second() / 1e9;
    struct Run {
      Op op;
      Algorithm algorithm;
    };
    for (const Run run : {Run{Op::kAllReduce, Algorithm::kRing}, Run{Op::kAllGather, Algorithm::kRing},
                          Run{Op::kReduceScatter, Algorithm::kRing}, Run{Op::kAlltoall, Algorithm::kDirect}}) {
      for (Bytes size : {1_MiB, 64_MiB, 1_GiB}) {
        const auto analytical = predict_one(built, run.op, run.algorithm, Protocol::kSimple, size, "analytical", 8);
        const auto flow = predict_one(built, run.op, run.algorithm, Protocol::kSimple, size, "flow", 8);
        EXPECT_NEAR(analytical.time.seconds(), flow.time.seconds(), 1e-6 * flow.time.seconds())
            << topology << " " << name(run.op) << " " << size.count();
        EXPECT_LE(analytical.busbw_GBps, port * (1 + 1e-9)) << topology << " " << name(run.op) << " " << size.count();
      }
    }
  }
}

// The textbook forms of the other ops on the same ring: all_gather and reduce_scatter take
// n-1 steps of S/n; halving-doubling all_reduce moves 2(n-1)/n S in 2 log2(n) steps.
TEST(Collectives, AllGatherReduceScatterAndHalvingDoublingMatchTheirClosedForms) {
  const auto built = bundled_fabric("dgx-h100-superpod", 8);
  const CollectiveTuning tuning;
  const auto properties = fabric::path_properties(built, fabric::route(built, 0, 1));
  const double bandwidth = properties.bottleneck.bytes_per_second();
  const double size = static_cast<double>((256_MiB).count());
  const double n = 8;
  for (Op op : {Op::kAllGather, Op::kReduceScatter}) {
    const auto row = predict_one(built, op, Algorithm::kRing, Protocol::kSimple, 256_MiB, "analytical", 1);
    const auto cost = tuning.cost({Algorithm::kRing, op, 8, 1, 1, GpuArch::kHopper}, Protocol::kSimple, HopClass::kNvlink);
    const double expected = cost.base_latency.seconds() + (n - 1) / n * size / bandwidth +
                            (n - 1) * (properties.latency.seconds() + cost.hop_latency.seconds());
    EXPECT_NEAR(row.time.seconds(), expected, 1e-6 * expected) << name(op);
  }
  const auto hd = predict_one(built, Op::kAllReduce, Algorithm::kHalvingDoubling, Protocol::kSimple, 256_MiB, "analytical", 1);
  const auto cost = tuning.cost({Algorithm::kHalvingDoubling, Op::kAllReduce, 8, 1, 1, GpuArch::kHopper}, Protocol::kSimple, HopClass::kNvlink);
  const double expected = cost.base_latency.seconds() + 2 * (n - 1) / n * size / (bandwidth * cost.bandwidth_share) +
                          2 * 3 * (properties.latency.seconds() + cost.hop_latency.seconds());
  EXPECT_NEAR(hd.time.seconds(), expected, 1e-6 * expected);
}

// The steady state simulates one step per phase and scales; the every-transfer path plays
// every step with its dependencies. Where every hop is alike (one node) they agree exactly.
TEST(Collectives, SteadyStateEqualsEveryTransferOnOneNode) {
  struct Case {
    const char* topology;
    int gpus;
    Op op;
    Algorithm algorithm;
  };
  const std::vector<Case> cases = {
      {"dgx-h100-superpod", 8, Op::kAllReduce, Algorithm::kRing},
      {"dgx-h100-superpod", 8, Op::kAllGather, Algorithm::kRing},
      {"dgx-h100-superpod", 8, Op::kAllReduce, Algorithm::kNvls},
      {"dgx-h100-superpod", 8, Op::kAllReduce, Algorithm::kHalvingDoubling},
      {"dgx-a100-superpod", 8, Op::kReduceScatter, Algorithm::kRing},
  };
  for (const auto& test : cases) {
    const auto built = bundled_fabric(test.topology, test.gpus);
    for (Bytes size : {64_KiB, 1_MiB, 64_MiB}) {
      const auto steady = predict_one(built, test.op, test.algorithm, Protocol::kSimple, size, "flow");
      const auto every = predict_one(built, test.op, test.algorithm, Protocol::kSimple, size, "flow", 0, true);
      EXPECT_NEAR(steady.time.seconds(), every.time.seconds(), 1e-6 * every.time.seconds())
          << test.topology << " " << test.gpus << " " << name(test.op) << " " << name(test.algorithm) << " "
          << size.count();
    }
  }
}

// Across nodes, a tree or NVLS-tree is one pipelined step: both paths pay its depth's latency
// once, as NCCL counts it, then the slowest transfer with every transfer sharing the fabric.
// (Before, the every-transfer path charged each transfer its own hop on top of the depth less
// the mean hop, and the steady state let the mean transfer stand in for the slowest: up to
// 12 % apart at small and mid sizes.)
TEST(Collectives, SteadyStateEqualsEveryTransferAcrossNodesForTrees) {
  struct Case {
    const char* topology;
    int gpus;
    Algorithm algorithm;
  };
  const std::vector<Case> cases = {
      {"dgx-h100-superpod", 16, Algorithm::kTree},     {"dgx-h100-superpod", 32, Algorithm::kTree},
      {"dgx-h100-superpod", 16, Algorithm::kNvlsTree}, {"dgx-h100-superpod", 32, Algorithm::kNvlsTree},
      {"dgx-a100-superpod", 16, Algorithm::kTree},     {"dgx-a100-superpod", 32, Algorithm::kTree},
  };
  for (const auto& test : cases) {
    const auto built = bundled_fabric(test.topology, test.gpus);
    for (Bytes size : {64_KiB, 1_MiB, 4_MiB, 64_MiB, 1_GiB}) {
      for (const char* network : {"flow", "analytical"}) {
        const auto steady = predict_one(built, Op::kAllReduce, test.algorithm, Protocol::kSimple, size, network);
        const auto every = predict_one(built, Op::kAllReduce, test.algorithm, Protocol::kSimple, size, network, 0, true);
        EXPECT_NEAR(steady.time.seconds(), every.time.seconds(), 1e-6 * every.time.seconds())
            << test.topology << " " << test.gpus << " " << name(test.algorithm) << " " << network << " "
            << size.count();
      }
    }
  }
}

// Not agreement: the measured gap, pinned so that it cannot change unnoticed. A ring across
// nodes mixes fast NVLink hops with a slow network hop (PXN, PCIe-bound). Played step by step,
// the slow connection throttles each channel's ring, the channels drift out of phase and each
// NVLink then carries channels at different points of their rings, so transfers share links
// with fewer others than in the steady state's one step with every transfer started together.
// How far they drift depends on the ratio of hop latency to drain time, that is on the size,
// which one simulation scaled linearly cannot see. Latency-bound (<= 1 MiB) and
// bandwidth-bound (1 GiB) sizes agree; mid sizes do not (docs/communication.md, "Steady state vs every transfer across nodes").
TEST(Collectives, RingAcrossNodesKeepsTheMeasuredMidSizeGap) {
  struct Case {
    const char* topology;
    int gpus;
    Op op;
    double gap_16MiB;  // steady / every-transfer - 1, as measured
    double gap_64MiB;
  };
  const std::vector<Case> cases = {
      {"dgx-h100-superpod", 16, Op::kAllReduce, 0.227, 0.176},
      {"dgx-h100-superpod", 32, Op::kAllReduce, 0.156, 0.260},
      {"dgx-h100-superpod", 32, Op::kAllGather, 0.130, 0.208},
      {"dgx-a100-superpod", 16, Op::kAllReduce, 0.186, 0.000},
      {"dgx-a100-superpod", 32, Op::kAllReduce, 0.216, 0.062},
  };
  for (const auto& test : cases) {
    const auto built = bundled_fabric(test.topology, test.gpus);
    const auto gap = [&](Bytes size) {
      const auto steady = predict_one(built, test.op, Algorithm::kRing, Protocol::kSimple, size, "flow");
      const auto every = predict_one(built, test.op, Algorithm::kRing, Protocol::kSimple, size, "flow", 0, true);
      return steady.time.seconds() / every.time.seconds() - 1;
    };
    const std::string what = std::string(test.topology) + " " + std::to_string(test.gpus) + " " + std::string(name(test.op));
    EXPECT_NEAR(gap(64_KiB), 0, 0.02) << what;
    EXPECT_NEAR(gap(1_MiB), 0, 0.02) << what;
    EXPECT_NEAR(gap(16_MiB), test.gap_16MiB, 0.01) << what << ": the gap changed; update this test and the README";
    EXPECT_NEAR(gap(64_MiB), test.gap_64MiB, 0.01) << what << ": the gap changed; update this test and the README";
  }
}

TEST(Collectives, AutoPicksNvlsOnOneH100NodeForLargeAllReduce) {
  const auto built = bundled_fabric("dgx-h100-superpod", 8);
  const auto row = predict_one(built, Op::kAllReduce, Algorithm::kAuto, Protocol::kAuto, 1_GiB, "flow");
  EXPECT_EQ(row.algorithm, Algorithm::kNvls);
}

TEST(Collectives, BusBandwidthIsNeverAboveTheLinksOnFlow) {
  // Ring all_reduce busbw cannot beat one GPU's NVLink on one node, nor the NICs across nodes.
  const auto one_node = bundled_fabric("dgx-h100-superpod", 8);
  const double nvlink = fabric::path_properties(one_node, fabric::route(one_node, 0, 1)).bottleneck.bytes_per_second();
  const auto ring = predict_one(one_node, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, 4_GiB, "flow");
  EXPECT_LE(ring.busbw_GBps * 1e9, nvlink * 1.0001);
  EXPECT_GE(ring.busbw_GBps * 1e9, nvlink * 0.9);
  const auto two_nodes = bundled_fabric("dgx-h100-superpod", 16);
  const double nics = 8 * two_nodes.spec().server.nics.link.bandwidth.bytes_per_second();
  const auto across = predict_one(two_nodes, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, 4_GiB, "flow");
  EXPECT_LE(across.busbw_GBps * 1e9, nics * 1.0001);
}

TEST(Collectives, RejectsWhatCannotRun) {
  const auto pcie = bundled_fabric("pcie-l40s", 8);
  EXPECT_THROW((void)predict_one(pcie, Op::kAllReduce, Algorithm::kNvls, Protocol::kSimple, 1_MiB, "flow"), InputError);
  const auto h100 = bundled_fabric("dgx-h100-superpod", 24);
  EXPECT_THROW((void)predict_one(h100, Op::kAllReduce, Algorithm::kHalvingDoubling, Protocol::kSimple, 1_MiB, "flow"),
               InputError);
  EXPECT_THROW((void)predict_one(h100, Op::kAlltoall, Algorithm::kRing, Protocol::kSimple, 1_MiB, "flow"), InputError);
  EXPECT_THROW((void)predict_one(h100, Op::kAllReduce, Algorithm::kRing, Protocol::kSimple, 1_MiB, "simgrid"), InputError);
  EXPECT_THROW((void)parse_op("allreduce"), InputError);
  EXPECT_EQ(parse_algorithm("Ring"), Algorithm::kRing);
  EXPECT_EQ(parse_protocol("LL128"), Protocol::kLL128);
}

TEST(Collectives, SizeSweepFollowsNcclTestsFlags) {
  const auto sizes = size_sweep(Bytes(8), Bytes(128), 2);
  ASSERT_EQ(sizes.size(), 5u);
  EXPECT_EQ(sizes.back(), Bytes(128));
  EXPECT_THROW((void)size_sweep(Bytes(0), Bytes(8), 2), InputError);
  EXPECT_THROW((void)size_sweep(Bytes(8), Bytes(4), 2), InputError);
  EXPECT_THROW((void)size_sweep(Bytes(8), Bytes(64), 1), InputError);
}

}  // namespace
}  // namespace ctwin::collectives

namespace ctwin::collectives {
namespace {

// One GPU per node, every node under one leaf: PAT's rounds are the textbook aggregated
// exchange, round r moving min(2^r, n − 2^r)/n of the buffer at NCCL's 0.75 bus share:
// T = base + 2.8 us·n + Σ_r (path latency + min(2^r, n − 2^r)/n · S/(0.75·B) + round latency).
TEST(Collectives, PatAllGatherMatchesItsClosedFormWithOneGpuPerNode) {
  const std::vector<std::string> one_gpu = {"server.gpus=1", "server.nics.count=1", "server.pcie_switches=1",
                                            "server.cpus=1"};
  const auto built = fabric::Fabric(
      ctwin::testing::load_cluster_with_arch(std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies/dgx-h100-superpod.json", one_gpu), 16);
  const auto properties = fabric::path_properties(built, fabric::route(built, 0, 1));
  const double bandwidth = properties.bottleneck.bytes_per_second();
  const CollectiveTuning tuning;
  const CostContext where{Algorithm::kPat, Op::kAllGather, 16, 16, 1, GpuArch::kHopper};
  const auto cost = tuning.cost(where, Protocol::kSimple, HopClass::kNet);
  EXPECT_DOUBLE_EQ(cost.bandwidth_share, 0.75);
  EXPECT_FALSE(tuning.cost(where, Protocol::kLL, HopClass::kNet).supported);
  for (Bytes size : {64_KiB, 16_MiB}) {
    const auto row = predict_one(built, Op::kAllGather, Algorithm::kPat, Protocol::kSimple, size, "analytical", 1);
    double expected = cost.base_latency.seconds();
    for (int distance = 1; distance < 16; distance *= 2) {
      expected += properties.latency.seconds() + std::min(distance, 16 - distance) / 16.0 *
                                                     static_cast<double>(size.count()) / (0.75 * bandwidth) +
                  cost.hop_latency.seconds();
    }
    EXPECT_NEAR(row.time.seconds(), expected, 1e-6 * expected) << size.count();
  }
  // auto considers PAT where NCCL does, and never on nodes with several GPUs.
  const auto picks = candidate_algorithms(Op::kAllGather, built);
  EXPECT_NE(std::find(picks.begin(), picks.end(), Algorithm::kPat), picks.end());
  const auto eight = candidate_algorithms(Op::kAllGather, bundled_fabric("dgx-h100-superpod", 16));
  EXPECT_EQ(std::find(eight.begin(), eight.end(), Algorithm::kPat), eight.end());
}

}  // namespace
}  // namespace ctwin::collectives

namespace ctwin::collectives {
namespace {

// NCCL's chunk sizes (src/enqueue.cc, src/include/device.h constants): Simple steps of
// 4 MiB / 8, LL 64 KiB steps carrying half, LL128 steps carrying 15/16; trees shrink LL128
// chunks for small collectives; NVLS uses 128 KiB chunks, shrunk for small ones.
TEST(Collectives, PipelineChunksFollowNcclsSizing) {
  const CostContext tree{Algorithm::kTree, Op::kAllReduce, 16, 2, 8, GpuArch::kHopper};
  EXPECT_EQ(pipeline_chunk(tree, Protocol::kSimple, 1_GiB), Bytes(524288));
  EXPECT_EQ(pipeline_chunk(tree, Protocol::kLL, 1_GiB), Bytes(32768));
  EXPECT_EQ(pipeline_chunk(tree, Protocol::kLL128, 1_GiB), Bytes(576000));
  // 8 MiB over 8 channels holds fewer than 2.8 · 64 / 8 chunks per channel: halved while above
  // 131,072 B (576,000 → 288,000 → 144,000 → 72,000); 14.6 chunks then pass the 2.8 · 16 / 8 test.
  EXPECT_EQ(pipeline_chunk(tree, Protocol::kLL128, 8_MiB), Bytes(72000));
  const CostContext nvls{Algorithm::kNvls, Op::kAllReduce, 8, 1, 8, GpuArch::kHopper};
  EXPECT_EQ(pipeline_chunk(nvls, Protocol::kSimple, 1_GiB), Bytes(131072));
  EXPECT_EQ(pipeline_chunk(nvls, Protocol::kSimple, 64_KiB), Bytes(16384));
  const CostContext ring{Algorithm::kRing, Op::kAllReduce, 16, 2, 8, GpuArch::kHopper};
  EXPECT_EQ(pipeline_chunk(ring, Protocol::kSimple, 1_GiB), Bytes(0));
}

// A pipelined tree pays (depth − 1) chunk times before its chunks flow; a ring pays nothing.
TEST(Collectives, PipelineFillIsDepthMinusOneChunksAtTheSlowestPace) {
  const auto built = bundled_fabric("dgx-h100-superpod", 16);
  const CollectiveTuning tuning;
  const Plan ring = make_plan(Op::kAllReduce, Algorithm::kRing, built, 8);
  EXPECT_EQ(PlanProfile(ring, built, network::ModelKind::kFlow).pipeline_fill(64_MiB, Protocol::kSimple, tuning), SimTime());

  const Plan tree = make_plan(Op::kAllReduce, Algorithm::kTree, built, 8);
  const PlanProfile profile(tree, built, network::ModelKind::kAnalytical);
  int depth = 0;
  for (int hops : tree.phases.front().pipeline_hops) depth += hops;
  EXPECT_EQ(depth, 2 * (8 - 1) + 2 * 1);  // NCCL's 2·(ppn − 1) + 2·log2(nodes)
  // analytical: a transfer drains in the time the busiest link of its path needs for all the
  // step puts there; the slowest tree edges cross PCIe Gen5 and a NIC (48 GB/s achieved).
  std::map<fabric::LinkId, double> load;
  for (const auto& t : tree.phases.front().transfers) {
    for (fabric::LinkId link : fabric::route(built, t.src, t.dst, t.route)) load[link] += t.fraction;
  }
  double slowest = 0;  // seconds per byte of the transfer's own
  for (const auto& t : tree.phases.front().transfers) {
    for (fabric::LinkId link : fabric::route(built, t.src, t.dst, t.route)) {
      slowest = std::max(slowest, load[link] / built.link(link).achieved().bytes_per_second() / t.fraction);
    }
  }
  EXPECT_GT(slowest * 48e9, 1.0) << "tree edges share the PCIe and NIC links of their rail";
  const double share = tuning.cost(tree.context(), Protocol::kSimple, HopClass::kNvlink).bandwidth_share;
  const double expected = (depth - 1) * 524288.0 * slowest / share;
  EXPECT_NEAR(profile.pipeline_fill(1_GiB, Protocol::kSimple, tuning).seconds(), expected, 1e-12 + 1e-9 * expected);
  // A collective smaller than a chunk per channel fills with what it has.
  const double small = (depth - 1) * (64.0 * 1024 / 8) * slowest / share;
  EXPECT_NEAR(profile.pipeline_fill(64_KiB, Protocol::kSimple, tuning).seconds(), small, 1e-12 + 1e-9 * small);
}

}  // namespace
}  // namespace ctwin::collectives

namespace ctwin::collectives {
namespace {

// The tuning bucket comes from the GPU profile's "arch", not from the GPU's name: Ada shares
// Ampere's tables (NCCL buckets SM80 to SM89 together); an unknown or unmodelled family is the
// topology's error, naming its server's GPU.
TEST(CollectiveTuningArch, FamiliesMapToNcclBucketsAndTheRestIsRefused) {
  EXPECT_EQ(nccl_arch_of("volta", "v100", "t.json"), GpuArch::kVolta);
  EXPECT_EQ(nccl_arch_of("ampere", "a100", "t.json"), GpuArch::kAmpere);
  EXPECT_EQ(nccl_arch_of("ada", "l40s", "t.json"), GpuArch::kAmpere);
  EXPECT_EQ(nccl_arch_of("hopper", "h100", "t.json"), GpuArch::kHopper);
  EXPECT_EQ(nccl_arch_of("blackwell", "b200", "t.json"), GpuArch::kBlackwell);
  for (const std::string family : {"", "cdna3"}) {
    try {
      (void)nccl_arch_of(family, "h800", "t.json");
      ADD_FAILURE() << "accepted family '" << family << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "t.json");
      EXPECT_EQ(e.pointer(), "/server/gpu");
      EXPECT_NE(std::string(e.what()).find("h800"), std::string::npos) << e.what();
    }
  }
}

// A fabric read without its GPU's profile (the arch left empty) plans nothing: before issue 37
// an unrecognised name silently got Ampere's tables. With the profile's arch, the H100 build
// plans on Hopper's.
TEST(CollectiveTuningArch, APlanNeedsTheGpuFamily) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies/dgx-h100-superpod.json";
  const fabric::Fabric bare(fabric::load_cluster(path), 16);
  EXPECT_THROW((void)make_plan(Op::kAllReduce, Algorithm::kRing, bare, 2), InputError);
  const fabric::Fabric known(ctwin::testing::load_cluster_with_arch(path), 16);
  EXPECT_EQ(make_plan(Op::kAllReduce, Algorithm::kRing, known, 2).arch, GpuArch::kHopper);
  const fabric::Fabric gb200 = bundled_fabric("gb200-nvl72", 16);
  EXPECT_EQ(make_plan(Op::kAllReduce, Algorithm::kRing, gb200, 2).arch, GpuArch::kBlackwell);
  const fabric::Fabric l40s = bundled_fabric("pcie-l40s", 16);
  EXPECT_EQ(make_plan(Op::kAllReduce, Algorithm::kRing, l40s, 2).arch, GpuArch::kAmpere);
}

}  // namespace
}  // namespace ctwin::collectives

#include <algorithm>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/network/analytical_model.hpp"
#include "ctwin/network/flow_model.hpp"
#include "ctwin/network/traffic_pattern.hpp"
#include "bundled_fabric.hpp"

namespace ctwin::network {
namespace {

using namespace ctwin::literals;

using testing::bundled_fabric;

TrafficResult play(const fabric::Fabric& built, const TrafficPattern& pattern, const std::string& model_name,
                   FlowModelOptions flow_options = {}) {
  engine::Simulator simulator;
  std::unique_ptr<NetworkModel> model;
  if (model_name == "flow") model = std::make_unique<FlowModel>(built, simulator, flow_options);
  else model = make_network_model(parse_model_kind(model_name, "test", "network"), built, simulator);
  return run_pattern(*model, pattern);
}

// A small build of a bundled topology, for tests that run random traffic over several.
struct Build {
  const char* topology;
  int gpus;
  std::vector<std::string> overrides;
};

TrafficPattern single(GpuId src, GpuId dst, Bytes size) {
  return {"single", {{TransferRequest{src, dst, size, {}}, -1}}};
}

TEST(AnalyticalModel, SingleTransferIsLatencyPlusBytesOverBottleneck) {
  const auto built = bundled_fabric("dgx-h100-superpod", 64);
  for (auto [src, dst] : {std::pair{0, 1}, std::pair{0, 8}, std::pair{0, 9}, std::pair{3, 60}}) {
    const auto path = fabric::route(built, src, dst);
    const PathProperties properties = path_properties(built, path);
    const Bytes size = 64_MiB;
    const auto result = play(built, single(src, dst, size), "analytical");
    EXPECT_EQ(result.makespan, properties.latency + transfer_time(size, properties.bottleneck)) << src << "->" << dst;
  }
}

TEST(AnalyticalModel, IgnoresContention) {
  // Every transfer of an incast finishes exactly when it would alone.
  const auto built = bundled_fabric("dgx-h100-superpod", 64);
  const auto pattern = make_pattern("incast", built, {16_MiB});
  const auto result = play(built, pattern, "analytical");
  for (std::size_t i = 0; i < pattern.transfers.size(); ++i) {
    const auto& request = pattern.transfers[i].request;
    EXPECT_EQ(result.completed_at[i], play(built, single(request.src, request.dst, request.size), "analytical").makespan);
  }
}

TEST(FlowModel, SingleTransferEqualsAnalyticalExactly) {
  const auto built = bundled_fabric("dgx-h100-superpod", 64);
  for (auto [src, dst] : {std::pair{0, 1}, std::pair{0, 8}, std::pair{0, 9}, std::pair{5, 63}}) {
    for (Bytes size : {1_B, 4_KiB, 64_MiB, 1_GiB}) {
      EXPECT_EQ(play(built, single(src, dst, size), "flow").makespan,
                play(built, single(src, dst, size), "analytical").makespan);
    }
  }
}

TEST(FlowModel, EqualsAnalyticalWhenNoLinkIsShared) {
  // Same-rail ring: every NIC sends one flow and receives one, all under one leaf per rail.
  const auto built = bundled_fabric("dgx-h100-superpod", 256);
  const auto pattern = make_pattern("rail_ring", built, {32_MiB});
  EXPECT_EQ(play(built, pattern, "flow").completed_at, play(built, pattern, "analytical").completed_at);
}

TEST(FlowModel, FlowsThroughOneLinkEachGetOneNth) {
  // Incast from one GPU on each of n other nodes: they share GPU 0's NIC link and PCIe link
  // (the narrower of the two as achieved: PCIe Gen5 at NCCL's 48 GB/s).
  const auto built = bundled_fabric("dgx-h100-superpod", 256);
  for (int senders : {1, 2, 4, 16}) {
    TrafficPattern pattern{"incast", {}};
    for (int s = 1; s <= senders; ++s) pattern.transfers.push_back({{s * 8, 0, 64_MiB, {}}, -1});
    const auto result = play(built, pattern, "flow");
    const double shared = std::min(built.spec().server.nics.link.achieved().bytes_per_second(),
                                   built.spec().server.pcie.achieved().bytes_per_second());
    const double drain_s = senders * static_cast<double>((64_MiB).count()) / shared;
    for (std::size_t i = 0; i < pattern.transfers.size(); ++i) {
      const auto path = fabric::route(built, pattern.transfers[i].request.src, 0);
      const double expected = drain_s + path_properties(built, path).latency.seconds();
      EXPECT_NEAR(result.completed_at[i].seconds(), expected, 1e-9) << senders << " senders";
    }
  }
}

TEST(FlowModel, ConservesBytesOnEveryLink) {
  const auto built = bundled_fabric("dgx-h100-superpod", 128, {"fabric.oversubscription.leaf=2"});
  const auto pattern = make_pattern("alltoall_chain", built, {8_MiB, false, 4, 2});
  engine::Simulator simulator;
  FlowModel model(built, simulator);
  const auto result = run_pattern(model, pattern);
  EXPECT_EQ(result.stats.bytes_started, result.stats.bytes_delivered);
  EXPECT_EQ(result.stats.started, pattern.transfers.size());
  EXPECT_EQ(result.stats.completed, pattern.transfers.size());
  std::vector<double> expected(built.links().size(), 0.0);
  for (const auto& transfer : pattern.transfers) {
    for (auto link : fabric::route(built, transfer.request.src, transfer.request.dst, transfer.request.route)) {
      expected[link] += static_cast<double>(transfer.request.size.count());
    }
  }
  for (std::size_t l = 0; l < expected.size(); ++l) {
    ASSERT_NEAR(model.link_bytes(static_cast<fabric::LinkId>(l)), expected[l], 1e-6 * expected[l] + 1e-3) << "link " << l;
  }
}

TEST(FlowModel, IncrementalSolveEqualsFullSolve) {
  for (const char* oversubscription : {"fabric.oversubscription.leaf=1", "fabric.oversubscription.leaf=3"}) {
    const auto built = bundled_fabric("dgx-h100-superpod", 128, {oversubscription});
    const auto pattern = make_pattern("alltoall_chain", built, {4_MiB, false, 6, 2});
    const auto incremental = play(built, pattern, "flow", {true});
    const auto full = play(built, pattern, "flow", {false});
    ASSERT_EQ(incremental.completed_at.size(), full.completed_at.size());
    for (std::size_t i = 0; i < full.completed_at.size(); ++i) {
      ASSERT_NEAR(incremental.completed_at[i].seconds(), full.completed_at[i].seconds(), 1e-9) << oversubscription << " #" << i;
    }
  }
}

// The incremental solve holds outside flows fixed and grows only where a boundary check fails;
// these patterns mix the ways a change spreads: shared PCIe (several flows per pair), an
// oversubscribed spine, incast at one NIC, PXN over NVLink, and a non-rail ToR fabric.
TEST(FlowModel, IncrementalSolveEqualsFullSolveOnMixedPatterns) {
  struct Case {
    const char* topology;
    int gpus;
    std::vector<std::string> overrides;
    const char* pattern;
    PatternOptions options;
  };
  const std::vector<Case> cases = {
      {"dgx-h100-superpod", 64, {"fabric.nodes_per_su=2", "fabric.oversubscription.leaf=2"}, "alltoall", {2_MiB}},
      {"dgx-h100-superpod", 128, {}, "alltoall_chain", {3_MiB, false, 5, 3}},
      {"dgx-h100-superpod", 64, {}, "incast", {1_MiB}},
      {"dgx-h100-superpod", 64, {}, "cross_rail", {5_MiB, true}},
      {"hgx-h100-roce", 96, {"fabric.oversubscription.leaf=3"}, "alltoall_chain", {2_MiB, false, 7, 2}},
      {"pcie-l40s", 32, {}, "alltoall_chain", {1_MiB, false, 4, 2}},
  };
  for (const auto& test : cases) {
    const auto built = bundled_fabric(test.topology, test.gpus, test.overrides);
    const auto pattern = make_pattern(test.pattern, built, test.options);
    const auto incremental = play(built, pattern, "flow", {true});
    const auto full = play(built, pattern, "flow", {false});
    ASSERT_EQ(incremental.completed_at.size(), full.completed_at.size());
    for (std::size_t i = 0; i < full.completed_at.size(); ++i) {
      ASSERT_NEAR(incremental.completed_at[i].seconds(), full.completed_at[i].seconds(), 1e-9)
          << test.topology << " " << test.pattern << " #" << i;
    }
  }
}

// A step of a collective: flows start together and drain over time, fastest first. The solve
// after a drain holds every flow slower than the one that left (see flow_model.hpp); on a
// three-tier build, where ECMP collisions spread rates widely, and with unequal sizes (so that
// slow small flows also leave before fast big ones), that must still equal a full re-solve.
TEST(FlowModel, HoldingSlowerFlowsEqualsFullSolve) {
  const auto built = bundled_fabric("dgx-h100-superpod", 512, {"fabric.nodes_per_su=8", "fabric.switch.ports=16"});
  ASSERT_EQ(fat_tree(built).plan().tiers, 3);
  for (bool mixed_sizes : {false, true}) {
    auto pattern = make_pattern("permutation", built, {8_MiB, false, 1, 4});
    if (mixed_sizes) {
      for (std::size_t i = 0; i < pattern.transfers.size(); ++i) pattern.transfers[i].request.size = Bytes((1 + i % 5) << 20);
    }
    const auto incremental = play(built, pattern, "flow", {true});
    const auto full = play(built, pattern, "flow", {false});
    ASSERT_EQ(incremental.completed_at.size(), full.completed_at.size());
    for (std::size_t i = 0; i < full.completed_at.size(); ++i) {
      ASSERT_NEAR(incremental.completed_at[i].seconds(), full.completed_at[i].seconds(), 1e-9)
          << (mixed_sizes ? "mixed" : "equal") << " sizes #" << i;
    }
  }
}

// What makes collectives at scale cheap: equal flows that start together drain fastest first,
// and each drain leaves the slower flows' rates alone, so after the first solve hardly any
// flow is solved again (a full re-solve would solve every remaining flow at every drain).
TEST(FlowModel, DrainsOfEqualFlowsLeaveSlowerFlowsOutOfTheSolve) {
  const auto built = bundled_fabric("dgx-h100-superpod", 512, {"fabric.nodes_per_su=8", "fabric.switch.ports=16"});
  const auto pattern = make_pattern("permutation", built, {8_MiB, false, 1, 4});
  engine::Simulator simulator;
  FlowModel model(built, simulator);
  const auto result = run_pattern(model, pattern);
  // ECMP collisions give the flows many rates: there are drains to hold flows through.
  const auto [first, last] = std::minmax_element(result.completed_at.begin(), result.completed_at.end());
  ASSERT_GT(last->seconds(), 1.5 * first->seconds());
  const double transfers = static_cast<double>(pattern.transfers.size());
  EXPECT_LT(static_cast<double>(model.solved_flows()), 1.5 * transfers) << model.solves() << " solves";
}

// Random traffic on small builds: random pairs and sizes, several flows per pair, chains of
// dependent transfers and bursts that start together, so that solves grow over several rounds
// and large problems split into parts. Every completion must equal a full re-solve's.
TEST(FlowModel, IncrementalSolveEqualsFullSolveOnRandomTraffic) {
  const std::vector<Build> builds = {
      {"dgx-h100-superpod", 64, {"fabric.nodes_per_su=2", "fabric.oversubscription.leaf=2"}},
      {"dgx-h100-superpod", 128, {"fabric.nodes_per_su=4", "fabric.switch.ports=16"}},
      {"hgx-h100-roce", 96, {"fabric.oversubscription.leaf=3"}},
      {"pcie-l40s", 32, {}},
  };
  std::mt19937 random(2024);
  for (const auto& build : builds) {
    const auto built = bundled_fabric(build.topology, build.gpus, build.overrides);
    for (int trial = 0; trial < 3; ++trial) {
      TrafficPattern pattern{"random", {}};
      const int transfers = 200 + static_cast<int>(random() % 600);
      for (int i = 0; i < transfers; ++i) {
        const auto src = static_cast<GpuId>(random() % static_cast<unsigned>(build.gpus));
        const auto dst = static_cast<GpuId>(random() % static_cast<unsigned>(build.gpus));
        const Bytes size((1 + static_cast<std::int64_t>(random() % 64)) << 16);
        const std::int64_t after = i > 0 && random() % 3 != 0 ? static_cast<std::int64_t>(random() % i) : -1;
        pattern.transfers.push_back({{src, dst, size, {random() % 4, false}}, after});
      }
      const auto incremental = play(built, pattern, "flow", {true});
      const auto full = play(built, pattern, "flow", {false});
      ASSERT_EQ(incremental.completed_at.size(), full.completed_at.size());
      for (std::size_t i = 0; i < full.completed_at.size(); ++i) {
        ASSERT_NEAR(incremental.completed_at[i].seconds(), full.completed_at[i].seconds(), 1e-9)
            << build.topology << " trial " << trial << " #" << i;
      }
    }
  }
}

TEST(FlowModel, OversubscriptionSlowsCrossLeafTraffic) {
  // 8 nodes in SUs of 2: most of the all-to-all crosses the spine tier.
  const auto pattern_of = [](const fabric::Fabric& built) { return make_pattern("alltoall", built, {4_MiB}); };
  const auto full = bundled_fabric("dgx-h100-superpod", 64, {"fabric.nodes_per_su=2"});
  const auto half = bundled_fabric("dgx-h100-superpod", 64, {"fabric.nodes_per_su=2", "fabric.oversubscription.leaf=2"});
  const SimTime full_time = play(full, pattern_of(full), "flow").makespan;
  const SimTime half_time = play(half, pattern_of(half), "flow").makespan;
  EXPECT_GT(half_time.seconds(), 1.3 * full_time.seconds());
  // The analytical model cannot see it.
  EXPECT_EQ(play(full, pattern_of(full), "analytical").makespan, play(half, pattern_of(half), "analytical").makespan);
}

TEST(FlowModel, PxnAvoidsSpineContentionOfCrossRailTraffic) {
  const auto built = bundled_fabric("dgx-h100-superpod", 128, {"fabric.oversubscription.leaf=4"});
  const SimTime without = play(built, make_pattern("cross_rail", built, {64_MiB, false}), "flow").makespan;
  const SimTime with = play(built, make_pattern("cross_rail", built, {64_MiB, true}), "flow").makespan;
  EXPECT_LT(with.seconds(), without.seconds());
}

TEST(FlowModel, ZeroBytesTakeThePathLatency) {
  const auto built = bundled_fabric("dgx-h100-superpod", 16);
  const auto result = play(built, single(0, 9, Bytes(0)), "flow");
  EXPECT_EQ(result.makespan, path_properties(built, fabric::route(built, 0, 9)).latency);
  EXPECT_EQ(play(built, single(3, 3, 1_MiB), "flow").makespan, SimTime());
}

// Latencies numbered inside the link states (the default) and kept per link (a fabric with
// too many distinct latencies to number) give the same times to the picosecond, and both
// equal a full re-solve, on random traffic with zero-byte transfers and PXN.
TEST(FlowModel, LatencyClassesEqualLatenciesKeptPerLink) {
  std::mt19937 random(77);
  for (const char* topology : {"dgx-h100-superpod", "pcie-l40s"}) {
    const int gpus = std::string(topology) == "pcie-l40s" ? 32 : 64;
    const auto built = bundled_fabric(topology, gpus);
    TrafficPattern pattern{"random", {}};
    for (int i = 0; i < 400; ++i) {
      const auto src = static_cast<GpuId>(random() % static_cast<unsigned>(gpus));
      const auto dst = static_cast<GpuId>(random() % static_cast<unsigned>(gpus));
      const Bytes size(random() % 8 == 0 ? 0 : (1 + static_cast<std::int64_t>(random() % 32)) << 16);
      const std::int64_t after = i > 0 && random() % 2 == 0 ? static_cast<std::int64_t>(random() % i) : -1;
      pattern.transfers.push_back({{src, dst, size, {random() % 3, random() % 3 == 0}}, after});
    }
    FlowModelOptions per_link;
    per_link.latency_classes = 0;
    const auto numbered = play(built, pattern, "flow");
    const auto apart = play(built, pattern, "flow", per_link);
    const auto full = play(built, pattern, "flow", {false});
    ASSERT_EQ(numbered.completed_at.size(), apart.completed_at.size());
    for (std::size_t i = 0; i < numbered.completed_at.size(); ++i) {
      ASSERT_EQ(numbered.completed_at[i], apart.completed_at[i]) << topology << " #" << i;
      ASSERT_NEAR(numbered.completed_at[i].seconds(), full.completed_at[i].seconds(), 1e-9) << topology << " #" << i;
    }
  }
}

// Random transfers over all GPUs of `built`: a third with PXN, some NVSwitch legs inside a
// node, some of zero bytes, two thirds started by the completion of an earlier one.
TrafficPattern random_traffic(const fabric::Fabric& built, int transfers, std::mt19937& random) {
  const auto gpus = static_cast<unsigned>(built.gpus());
  const bool nvlink = built.spec().server.nvlink.has_value();
  TrafficPattern pattern{"random", {}};
  for (int i = 0; i < transfers; ++i) {
    const auto src = static_cast<GpuId>(random() % gpus);
    auto dst = static_cast<GpuId>(random() % gpus);
    fabric::RouteOptions route{random() % 4, random() % 3 == 0};
    if (nvlink && random() % 8 == 0) {  // an NVLS leg inside the source's node
      dst = static_cast<GpuId>(built.node_of(src) * built.gpus_per_node() +
                               static_cast<int>(random() % static_cast<unsigned>(built.gpus_per_node())));
      route.leg = random() % 2 == 0 ? fabric::SwitchLeg::kToSwitch : fabric::SwitchLeg::kFromSwitch;
    }
    const Bytes size(random() % 10 == 0 ? 0 : (1 + static_cast<std::int64_t>(random() % 64)) << 16);
    const std::int64_t after = i > 0 && random() % 3 != 0 ? static_cast<std::int64_t>(random() % i) : -1;
    pattern.transfers.push_back({{src, dst, size, route}, after});
  }
  return pattern;
}

// Tracking one link per lockstep set (fabric/lockstep.hpp) instead of every link gives the
// same completion times to the picosecond and the same bytes on every link, on random traffic
// over every server layout, with PXN, NVSwitch legs and zero-byte transfers.
TEST(FlowModel, LockstepLinksTrackedAsOneGiveIdenticalResults) {
  const std::vector<Build> builds = {
      {"dgx-h100-superpod", 64, {"fabric.nodes_per_su=2", "fabric.oversubscription.leaf=2"}},
      {"dgx-a100-superpod", 64, {"fabric.nodes_per_su=2"}},
      {"dgx-b200-superpod", 48, {}},
      {"hgx-h100-roce", 96, {"fabric.oversubscription.leaf=3"}},
      {"pcie-l40s", 32, {}},
      {"gb200-nvl72", 144, {}},
  };
  std::mt19937 random(4242);
  for (const auto& build : builds) {
    const auto built = bundled_fabric(build.topology, build.gpus, build.overrides);
    const auto pattern = random_traffic(built, 600, random);
    engine::Simulator folded_simulator;
    engine::Simulator every_link_simulator;
    FlowModelOptions every_link_options;
    every_link_options.lockstep = false;
    FlowModel folded(built, folded_simulator);
    FlowModel every_link(built, every_link_simulator, every_link_options);
    const auto with_sets = run_pattern(folded, pattern);
    const auto without = run_pattern(every_link, pattern);
    ASSERT_EQ(with_sets.completed_at, without.completed_at) << build.topology;
    for (fabric::LinkId link = 0; link < built.links().size(); ++link) {
      ASSERT_EQ(folded.link_bytes(link), every_link.link_bytes(link)) << build.topology << " link " << link;
    }
    EXPECT_LE(folded.solved_flows(), every_link.solved_flows()) << build.topology;
  }
}

// A flow keeps the first hops of its path inside its state and the rest, on longer routes,
// apart. Routes with PXN across the pods of a three-tier build cross 12 links when every link
// is tracked: those flows take the second way, and must give what the inline one gives with
// lockstep sets (at most 8 links) and what full re-solves give.
TEST(FlowModel, RoutesLongerThanItsInlineHopsGiveTheSameResults) {
  const auto built = bundled_fabric("dgx-h100-superpod", 128, {"fabric.switch.ports=16", "fabric.nodes_per_su=1"});
  std::mt19937 random(77);
  const auto pattern = random_traffic(built, 800, random);
  std::size_t longest = 0;
  for (const auto& transfer : pattern.transfers) {
    const auto& request = transfer.request;
    longest = std::max(longest, fabric::route(built, request.src, request.dst, request.route).size());
  }
  ASSERT_GE(longest, 12U) << "the pattern must hold routes longer than the flow's inline hops";
  FlowModelOptions every_link_options;
  every_link_options.lockstep = false;
  FlowModelOptions full_options = every_link_options;
  full_options.incremental = false;
  const auto folded = play(built, pattern, "flow");
  const auto every_link = play(built, pattern, "flow", every_link_options);
  const auto full = play(built, pattern, "flow", full_options);
  ASSERT_EQ(folded.completed_at, every_link.completed_at);
  for (std::size_t i = 0; i < full.completed_at.size(); ++i) {
    ASSERT_NEAR(every_link.completed_at[i].seconds(), full.completed_at[i].seconds(), 1e-9) << "#" << i;
  }
}

TEST(FlowModel, RepeatedRunsAreIdentical) {
  const auto built = bundled_fabric("hgx-h100-roce", 128, {"fabric.oversubscription.leaf=2"});
  const auto pattern = make_pattern("alltoall_chain", built, {2_MiB, false, 5, 3});
  EXPECT_EQ(play(built, pattern, "flow").completed_at, play(built, pattern, "flow").completed_at);
}

// fabric.routing adaptive on flow: a transfer split in equal parts over its equal-cost paths.
// On a permutation it is never slower than ECMP's hash (which collides at 2:1 and at 1:1);
// where every transfer has a single path (two nodes, one leaf per rail) it is the same to the
// picosecond; and a split transfer counts once, with all its bytes.
TEST(FlowModel, AdaptiveRoutingNeverSlowerThanEcmpOnAPermutationAndEqualOnASinglePath) {
  for (const auto& [gpus, oversubscription] : std::vector<std::pair<int, std::string>>{{512, "2"}, {512, "1"}, {16, "1"}}) {
    const std::string leaf = "fabric.oversubscription.leaf=" + oversubscription;
    const auto ecmp = bundled_fabric("dgx-h100-superpod", gpus, {leaf});
    const auto adaptive = bundled_fabric("dgx-h100-superpod", gpus, {leaf, "fabric.routing=adaptive"});
    for (const char* name : {"permutation", "cross_rail"}) {
      const auto pattern = make_pattern(name, ecmp, {16_MiB});
      const auto hashed = play(ecmp, pattern, "flow");
      const auto split = play(adaptive, pattern, "flow");
      EXPECT_LE(split.makespan, hashed.makespan) << gpus << " " << leaf << " " << name;
      if (gpus == 16) { EXPECT_EQ(split.completed_at, hashed.completed_at) << name; }
      if (gpus == 512 && std::string(name) == "permutation") {
        EXPECT_LT(split.makespan.seconds(), 0.9 * hashed.makespan.seconds()) << leaf;  // hashing collides
      }
      EXPECT_EQ(split.stats.started, pattern.transfers.size());
      EXPECT_EQ(split.stats.completed, split.stats.started);
      EXPECT_EQ(split.stats.bytes_delivered, split.stats.bytes_started);
    }
  }
  // simgrid has one route per GPU pair: it refuses adaptive rather than hash it.
  const auto adaptive = bundled_fabric("dgx-h100-superpod", 16, {"fabric.routing=adaptive"});
  EXPECT_THROW(require_ecmp_routing(adaptive, "simgrid"), InputError);
  EXPECT_NO_THROW(require_ecmp_routing(bundled_fabric("dgx-h100-superpod", 16), "simgrid"));
}

TEST(NetworkModel, UnknownNameIsAnInputError) {
  const auto built = bundled_fabric("dgx-h100-superpod", 8);
  engine::Simulator simulator;
  try {
    (void)parse_model_kind("ns3", "--network", "");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--network");
  }
}

}  // namespace
}  // namespace ctwin::network

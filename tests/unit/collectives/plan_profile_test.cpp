// The steady-state profile is fast in two ways: its flow simulations hold every flow that a
// change cannot move (flow_model.hpp), and it keeps only what its formula reads (sums, hop
// counts, undominated transfers). Neither may change a result. The oracle here is the slow
// way: every transfer of every phase simulated with a full max-min re-solve at every change,
// and the formula of plan_timing.hpp evaluated transfer by transfer.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "ctwin/collectives/plan_timing.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/network/flow_model.hpp"
#include "bundled_fabric.hpp"

namespace ctwin::collectives {
namespace {

using namespace ctwin::literals;

using testing::bundled_fabric;

// Per transfer of one phase: path latency and drain seconds per byte of the collective.
struct SimulatedPhase {
  const Phase* phase = nullptr;
  std::vector<double> latency_s;
  std::vector<double> drain_s_per_byte;
};

// The profile's reference size: 1 GiB, while every transfer still gets 1 KiB at it.
constexpr double kReference = double(1 << 30);

// analytical, by hand: a transfer drains in the time the busiest link of its path needs for
// every byte the step puts on it.
SimulatedPhase load_bound(const Phase& phase, const fabric::Fabric& built) {
  std::map<fabric::LinkId, double> load;
  for (const auto& planned : phase.transfers) {
    for (fabric::LinkId link : fabric::route(built, planned.src, planned.dst, planned.route)) load[link] += planned.fraction;
  }
  SimulatedPhase bound{&phase, {}, {}};
  for (const auto& planned : phase.transfers) {
    const auto path = fabric::route(built, planned.src, planned.dst, planned.route);
    double busiest = 0;
    for (fabric::LinkId link : path) busiest = std::max(busiest, load[link] / built.link(link).achieved().bytes_per_second());
    bound.latency_s.push_back(fabric::path_properties(built, path).latency.seconds());
    bound.drain_s_per_byte.push_back(busiest);
  }
  return bound;
}

std::vector<SimulatedPhase> simulate_every_transfer(const Plan& plan, const fabric::Fabric& built,
                                                    const std::string& network) {
  std::vector<SimulatedPhase> phases;
  for (const auto& phase : plan.phases) {
    if (network == "analytical") {
      phases.push_back(load_bound(phase, built));
      continue;
    }
    engine::Simulator simulator;
    std::unique_ptr<network::NetworkModel> model;
    model = std::make_unique<network::FlowModel>(built, simulator, network::FlowModelOptions{.incremental = false});
    const std::size_t count = phase.transfers.size();
    std::vector<SimTime> done(count);
    std::vector<double> bytes(count);
    for (std::size_t i = 0; i < count; ++i) {
      const auto& planned = phase.transfers[i];
      EXPECT_GE(kReference * planned.fraction, 1024.0) << "the reference size gives every transfer 1 KiB";
      bytes[i] = static_cast<double>(std::max<std::int64_t>(1, std::llround(kReference * planned.fraction)));
      model->start_transfer({planned.src, planned.dst, Bytes(static_cast<std::int64_t>(bytes[i])), planned.route},
                            [&done, &simulator, i] { done[i] = simulator.now(); });
    }
    model->run();
    SimulatedPhase simulated{&phase, {}, {}};
    for (std::size_t i = 0; i < count; ++i) {
      const auto& planned = phase.transfers[i];
      const double latency =
          fabric::path_properties(built, fabric::route(built, planned.src, planned.dst, planned.route)).latency.seconds();
      simulated.latency_s.push_back(latency);
      simulated.drain_s_per_byte.push_back(std::max(0.0, done[i].seconds() - latency) / bytes[i] * planned.fraction);
    }
    phases.push_back(std::move(simulated));
  }
  return phases;
}

// plan_timing.hpp's formula, one transfer at a time.
double formula_s(const std::vector<SimulatedPhase>& phases, const CostContext& where, Bytes size, Protocol protocol,
                 const CollectiveTuning& tuning) {
  const ProtocolCost base = tuning.cost(where, protocol, HopClass::kNvlink);
  const double s = static_cast<double>(size.count());
  double total = base.base_latency.seconds();
  for (const auto& simulated : phases) {
    const auto& transfers = simulated.phase->transfers;
    const auto hop_of = [&](HopClass c) { return tuning.cost(where, protocol, c).hop_latency.seconds(); };
    double hop = 0;
    for (const auto& transfer : transfers) hop += hop_of(transfer.hop);
    const double n = static_cast<double>(std::max<std::size_t>(1, transfers.size()));
    hop /= n;
    const auto& depth_hops = simulated.phase->pipeline_hops;
    const bool pipelined =
        simulated.phase->latency_hops > 1 || std::any_of(depth_hops.begin(), depth_hops.end(), [](int h) { return h > 0; });
    const double repeat = simulated.phase->repeat;
    double connection = 0;
    double mean = 0;
    for (std::size_t t = 0; t < transfers.size(); ++t) {
      const bool leg = transfers[t].route.leg != fabric::SwitchLeg::kWhole;
      const double x = simulated.latency_s[t] + simulated.drain_s_per_byte[t] * s / (leg ? base.switch_share : base.bandwidth_share);
      connection = std::max(connection, (pipelined ? hop : hop_of(transfers[t].hop)) + repeat * x);
      mean += x;
    }
    mean /= n;
    // The depth beyond the first hop: per class where the plan counts them, else mean hops.
    double depth = 0;
    for (HopClass c : {HopClass::kNvlink, HopClass::kPcie, HopClass::kNet}) {
      depth += depth_hops[static_cast<std::size_t>(c)] * hop_of(c);
    }
    const double rest = depth == 0 ? (simulated.phase->latency_hops - 1) * hop : std::max(0.0, depth - hop);
    total += std::max(connection, repeat * (mean + hop)) + rest;
  }
  const double ceiling = base.max_bus_GBps > 0
                             ? base.base_latency.seconds() + s * base.bus_bytes_per_byte / (base.max_bus_GBps * 1e9)
                             : 0;
  return std::max(total, ceiling);
}

struct Case {
  const char* topology;
  int gpus;
  std::vector<std::string> overrides;
  Algorithm algorithm;
  std::string network;
};

// Three tiers on 512 GPUs: SUs of 8 nodes under 16-port switches, so that tree edges cross
// cores and ECMP collides there as at 16k GPUs.
const std::vector<std::string> kThreeTiers = {"fabric.nodes_per_su=8", "fabric.switch.ports=16"};

void expect_profile_equals_every_transfer_formula(const Case& test) {
  const auto built = bundled_fabric(test.topology, test.gpus, test.overrides);
  const Plan plan = make_plan(Op::kAllReduce, test.algorithm, built, default_channels(built));
  const PlanProfile profile(plan, built, network::parse_model_kind(test.network, "test", "network"));
  const auto oracle = simulate_every_transfer(plan, built, test.network);
  const CollectiveTuning tuning;
  for (Bytes size : size_sweep(8_B, 8_GiB, 4)) {
    for (Protocol protocol : concrete_protocols()) {
      if (!tuning.cost(plan.context(), protocol, HopClass::kNvlink).supported) continue;
      const double expected = formula_s(oracle, plan.context(), size, protocol, tuning);
      // Rounding of the result to whole picoseconds is all that may differ.
      EXPECT_NEAR(profile.time(size, protocol, tuning).seconds(), expected, 1e-12 + 1e-9 * expected)
          << test.topology << " " << test.gpus << " " << name(test.algorithm) << " " << test.network << " "
          << name(protocol) << " " << size.count();
    }
  }
}

TEST(PlanProfile, EqualsEveryTransferWithFullSolvesOnThreeTiers) {
  for (Algorithm algorithm : {Algorithm::kRing, Algorithm::kTree, Algorithm::kNvlsTree}) {
    for (const char* network : {"flow", "analytical"}) {
      expect_profile_equals_every_transfer_formula({"dgx-h100-superpod", 512, kThreeTiers, algorithm, network});
    }
  }
}

TEST(PlanProfile, EqualsEveryTransferWithFullSolvesAtThousandsOfGpus) {
  const std::vector<Case> cases = {
      {"dgx-h100-superpod", 2048, {}, Algorithm::kRing, "flow"},
      {"dgx-h100-superpod", 2048, {}, Algorithm::kNvlsTree, "flow"},
      {"dgx-h100-superpod", 4096, {}, Algorithm::kTree, "analytical"},
      {"hgx-h100-roce", 4096, {}, Algorithm::kRing, "analytical"},
  };
  for (const auto& test : cases) expect_profile_equals_every_transfer_formula(test);
}

TEST(PlanProfile, EqualsEveryTransferWithFullSolvesOnOneNodeAndManyPhases) {
  expect_profile_equals_every_transfer_formula({"dgx-h100-superpod", 8, {}, Algorithm::kNvls, "flow"});
  expect_profile_equals_every_transfer_formula({"dgx-h100-superpod", 64, {}, Algorithm::kHalvingDoubling, "flow"});
  expect_profile_equals_every_transfer_formula({"pcie-l40s", 32, {}, Algorithm::kRing, "flow"});
}

}  // namespace
}  // namespace ctwin::collectives

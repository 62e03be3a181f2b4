// Oracles for flows with a rate cap of their own (FlowModel::start_capped_flow): max-min
// fairness with demands. A capped flow beside an uncapped one on one bottleneck of capacity C
// gets min(cap, C/2) and the other C minus that; a cap at or above the fair share changes
// nothing, to the picosecond; bytes are conserved; the incremental solve equals a full one.

#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ctwin/fabric/router.hpp"
#include "ctwin/network/flow_model.hpp"
#include "bundled_fabric.hpp"

namespace ctwin::network {
namespace {

using namespace ctwin::literals;

// Completion times of an uncapped transfer GPU 0 -> 8 (`plain` bytes) beside a flow on the same
// links (`capped` bytes, at most `cap`; or a second plain transfer where `cap` is empty).
std::vector<SimTime> play_capped_pair(FlowModel& model, engine::Simulator& simulator, const fabric::Fabric& built,
                                      Bytes plain, Bytes capped, std::optional<Bandwidth> cap) {
  std::vector<SimTime> done(2);
  model.start_transfer({0, 8, plain, {}}, [&] { done[0] = simulator.now(); });
  if (cap) {
    model.start_capped_flow(fabric::route(built, 0, 8), capped, *cap, [&] { done[1] = simulator.now(); });
  } else {
    model.start_transfer({0, 8, capped, {}}, [&] { done[1] = simulator.now(); });
  }
  model.run();
  return done;
}

std::vector<SimTime> capped_pair(const fabric::Fabric& built, Bytes plain, Bytes capped, std::optional<Bandwidth> cap) {
  engine::Simulator simulator;
  FlowModel model(built, simulator);
  return play_capped_pair(model, simulator, built, plain, capped, cap);
}

TEST(CappedFlow, BesideAnUncappedFlowGetsItsCapBelowHalfTheLink) {
  const auto built = testing::bundled_fabric("dgx-h100-superpod", 64);
  const auto path = fabric::route(built, 0, 8);
  const PathProperties properties = path_properties(built, path);
  const double c = properties.bottleneck.bytes_per_second();
  const Bytes plain = 256_MiB;
  // A quarter of the link: the capped flow (long enough to outlast the other) runs at its cap
  // throughout, the other gets the rest.
  const Bandwidth quarter = Bandwidth::bytes_per_second(c / 4);
  const auto done = capped_pair(built, plain, 4_GiB, quarter);
  const double plain_s = static_cast<double>(plain.count()) / (c - c / 4);
  EXPECT_NEAR((done[0] - properties.latency).seconds(), plain_s, 1e-9);
  // The capped flow moved cap * plain_s while both ran, then the rest at its cap alone (the cap
  // stays: it is below the link).
  const double capped_s = static_cast<double>((4_GiB).count()) / (c / 4);
  EXPECT_NEAR((done[1] - properties.latency).seconds(), capped_s, 1e-9);
}

TEST(CappedFlow, CapsAtOrAboveTheFairShareChangeNothing) {
  const auto built = testing::bundled_fabric("dgx-h100-superpod", 64);
  const double c = path_properties(built, fabric::route(built, 0, 8)).bottleneck.bytes_per_second();
  const auto uncapped = capped_pair(built, 256_MiB, 64_MiB, std::nullopt);
  for (const double share : {0.5, 0.75, 1.0, 4.0}) {
    EXPECT_EQ(capped_pair(built, 256_MiB, 64_MiB, Bandwidth::bytes_per_second(share * c)), uncapped) << share;
  }
  // Not vacuous: a cap below half the link holds the capped flow back (the other, larger one
  // still ends when the link has carried both: the link never idles).
  const auto held = capped_pair(built, 256_MiB, 64_MiB, Bandwidth::bytes_per_second(0.25 * c));
  EXPECT_GT(held[1], uncapped[1]);
  EXPECT_NEAR(held[0].seconds(), uncapped[0].seconds(), 1e-12);
}

TEST(CappedFlow, ConservesBytesOnItsLinks) {
  const auto built = testing::bundled_fabric("dgx-h100-superpod", 64);
  const auto path = fabric::route(built, 0, 8);
  const double c = path_properties(built, path).bottleneck.bytes_per_second();
  engine::Simulator simulator;
  FlowModel model(built, simulator);
  (void)play_capped_pair(model, simulator, built, 96_MiB, 40_MiB, Bandwidth::bytes_per_second(0.1 * c));
  EXPECT_EQ(model.stats().bytes_started, model.stats().bytes_delivered);
  EXPECT_EQ(model.stats().completed, 2u);
  for (const fabric::LinkId link : path) {
    EXPECT_NEAR(model.link_bytes(link), static_cast<double>((136_MiB).count()), 1e-3) << link;
  }
}

// Random transfers and capped flows (random paths, caps from far below to above their fair
// shares, staggered starts) on an oversubscribed build: the incremental solve, which holds
// flows slower than every change and grows only at unfair boundaries, must give every flow the
// completion time a full re-solve gives.
TEST(CappedFlow, IncrementalSolveEqualsFullSolveWithCaps) {
  const auto built = testing::bundled_fabric("dgx-h100-superpod", 64, {"fabric.nodes_per_su=2", "fabric.oversubscription.leaf=2"});
  std::mt19937 random(39);
  struct Start {
    GpuId src, dst;
    Bytes size;
    std::optional<Bandwidth> cap;
    SimTime at;
  };
  std::vector<Start> starts;
  for (int i = 0; i < 300; ++i) {
    const auto src = static_cast<GpuId>(random() % 64);
    const auto dst = static_cast<GpuId>(random() % 64);
    const Bytes size((1 + static_cast<std::int64_t>(random() % 32)) << 16);
    std::optional<Bandwidth> cap;
    if (random() % 3 == 0) cap = Bandwidth::bits_per_second(1e9 * static_cast<double>(1 + random() % 400));
    starts.push_back({src, dst, size, cap, SimTime::from_ps(static_cast<std::int64_t>(random() % 200) * 1000000)});
  }
  const auto play_capped = [&](bool incremental) {
    engine::Simulator simulator;
    FlowModel model(built, simulator, {incremental});
    std::vector<SimTime> done(starts.size());
    for (std::size_t i = 0; i < starts.size(); ++i) {
      simulator.schedule_at(starts[i].at, [&, i] {
        const Start& s = starts[i];
        const auto record = [&, i] { done[i] = simulator.now(); };
        if (s.cap) {
          model.start_capped_flow(fabric::route(built, s.src, s.dst), s.size, *s.cap, record);
        } else {
          model.start_transfer({s.src, s.dst, s.size, {}}, record);
        }
      });
    }
    model.run();
    return done;
  };
  const auto incremental = play_capped(true);
  const auto full = play_capped(false);
  for (std::size_t i = 0; i < full.size(); ++i) {
    ASSERT_NEAR(incremental[i].seconds(), full[i].seconds(), 1e-9) << "#" << i;
  }
}

}  // namespace
}  // namespace ctwin::network

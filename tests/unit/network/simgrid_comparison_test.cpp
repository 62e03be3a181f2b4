// flow against SimGrid's solver on contended patterns. SimGrid permits one simulation per
// process, so CTest runs each test of this file as its own process.

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"
#include "ctwin/network/analytical_model.hpp"
#include "ctwin/network/flow_model.hpp"
#include "ctwin/network/simgrid_model.hpp"
#include "ctwin/network/traffic_pattern.hpp"

namespace ctwin::network {
namespace {

using namespace ctwin::literals;

fabric::Fabric build(int gpus, const std::vector<std::string>& overrides) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies/dgx-h100-superpod.json";
  return fabric::Fabric(fabric::load_cluster(path, overrides), gpus);
}

template <typename Model>
TrafficResult play(const fabric::Fabric& built, const TrafficPattern& pattern) {
  engine::Simulator simulator;
  Model model(built, simulator);
  return run_pattern(model, pattern);
}

// Every transfer within `tolerance` of SimGrid's completion time, and the makespan too.
void expect_agreement(const fabric::Fabric& built, const TrafficPattern& pattern, double tolerance) {
  const auto flow = play<FlowModel>(built, pattern);
  const auto reference = play<SimGridModel>(built, pattern);
  ASSERT_EQ(flow.completed_at.size(), reference.completed_at.size());
  double worst = 0;
  for (std::size_t i = 0; i < flow.completed_at.size(); ++i) {
    const double error = std::abs(flow.completed_at[i].seconds() / reference.completed_at[i].seconds() - 1);
    worst = std::max(worst, error);
  }
  ::testing::Test::RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("%s: %zu transfers, makespan flow %.3f us, simgrid %.3f us, worst transfer error %.4f%%\n",
              pattern.name.c_str(), pattern.transfers.size(), flow.makespan.microseconds(),
              reference.makespan.microseconds(), worst * 100);
  EXPECT_LE(worst, tolerance);
  EXPECT_EQ(reference.stats.bytes_started, reference.stats.bytes_delivered);
}

TEST(SimGridComparison, AllToAllOversubscribed) {
  // 8 nodes in SUs of 2 with 2:1 leaves: most of the all-to-all crosses the thin spine tier.
  const auto built = build(64, {"fabric.nodes_per_su=2", "fabric.oversubscription.leaf=2"});
  ASSERT_EQ(fat_tree(built).plan().tiers, 2);
  expect_agreement(built, make_pattern("alltoall", built, {4_MiB}), 0.05);
}

TEST(SimGridComparison, CrossRailWithoutPxn) {
  const auto built = build(128, {"fabric.oversubscription.leaf=2"});
  expect_agreement(built, make_pattern("cross_rail", built, {64_MiB, false}), 0.05);
}

TEST(SimGridComparison, Incast) {
  const auto built = build(64, {});
  expect_agreement(built, make_pattern("incast", built, {16_MiB}), 0.05);
}

TEST(SimGridComparison, SingleTransferMatchesAnalytical) {
  const auto built = build(16, {});
  const TrafficPattern pattern{"single", {{TransferRequest{0, 9, 64_MiB, {}}, -1}}};
  const auto analytical = play<AnalyticalModel>(built, pattern);
  const auto reference = play<SimGridModel>(built, pattern);
  EXPECT_NEAR(reference.makespan.seconds(), analytical.makespan.seconds(), 1e-9);
}

}  // namespace
}  // namespace ctwin::network

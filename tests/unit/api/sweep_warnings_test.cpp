// Warnings travel with a sweep's points (issue 35): 800G NICs behind a Gen5 x16 slot run at the
// slot's rate, so they silently equalled 400G in a sweep while `ctwin run` warned. Each point
// now carries its build and split warnings, in the JSON (every point, empty when none) and
// through a merge of shards.

#include "ctwin/api/sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "plan_scenario.hpp"

namespace ctwin::api {
namespace {

TEST(SweepWarnings, An800GNicBehindAGen5SlotIsWarnedAtItsPointOnly) {
  EvalContext context;
  const std::vector<GridAxis> grid = {parse_grid_axis("cluster.server.nics.bandwidth=400Gbps,800Gbps")};
  const SweepResult result = evaluate_sweep(analytical_default_scenario(), grid, context, {1, {}});
  ASSERT_EQ(result.points.size(), 2u);
  const auto has = [](const SweepPoint& p, const std::string& check) {
    return std::any_of(p.warnings.begin(), p.warnings.end(), [&](const auto& w) { return w.check == check; });
  };
  EXPECT_FALSE(has(result.points[0], "nic_above_pcie"));
  EXPECT_TRUE(has(result.points[1], "nic_above_pcie"));
  const nlohmann::json json = sweep_json(result);
  for (const auto& p : json["points"]) ASSERT_TRUE(p.contains("warnings") && p["warnings"].is_array()) << p.dump();
  EXPECT_EQ(json["points"][1]["warnings"][0]["check"], "nic_above_pcie");

  // Two shards merged give the same points, warnings included.
  std::vector<nlohmann::json> shards;
  for (std::size_t i = 0; i < 2; ++i) {
    shards.push_back(sweep_json(evaluate_sweep(analytical_default_scenario(), grid, context, {1, {}, i, 2})));
  }
  EXPECT_EQ(sweep_json(merge_sweeps(shards, {"a.json", "b.json"})).dump(), json.dump());
}

}  // namespace
}  // namespace ctwin::api

// Warnings travel with a sweep's points and a plan (issue 35): 800G NICs behind a Gen5 x16 slot run at the
// slot's rate, so they silently equalled 400G in a sweep while `ctwin run` warned. Each point
// now carries its build and split warnings, in the JSON (every point, empty when none) and
// through a merge of shards.

#include "ctwin/studies/sweep.hpp"

#include "ctwin/plan/plan.hpp"

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

// The planner's candidates share one build, so its warnings are the plan's: in the JSON
// (empty for a sound build), and through a merge of shards, which refuses shards that differ.
TEST(PlanWarnings, ANicFasterThanItsSlotIsWarnedOnThePlanAndThroughAMerge) {
  EvalContext context;
  PlanOptions options;
  options.fixes = {"training.micro_batch=1", "parallel.recompute=full", "parallel.cp=1",
                   "parallel.distributed_optimizer=true", "parallel.pp=4"};
  options.flow_top = 0;
  // The PCIe server's 400G NICs sit behind Gen4 x16 slots (252 Gb/s).
  const Scenario fast_nic =
      analytical_default_scenario().with("cluster", std::string(CTWIN_SOURCE_DIR) + "/topologies/pcie-l40s.json");
  const PlanResult sound = evaluate_plan(analytical_default_scenario(), context, options);
  EXPECT_TRUE(sound.warnings.empty());
  EXPECT_EQ(plan_json(sound, 1)["warnings"], nlohmann::json::array());
  const PlanResult warned = evaluate_plan(fast_nic, context, options);
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_EQ(warned.warnings[0].check, "nic_above_pcie");
  const nlohmann::json json = plan_json(warned, 0);
  EXPECT_EQ(json["warnings"][0]["check"], "nic_above_pcie");

  std::vector<nlohmann::json> shards;
  for (std::size_t i = 0; i < 2; ++i) {
    PlanOptions shard = options;
    shard.shard_index = i;
    shard.shard_count = 2;
    shards.push_back(plan_json(evaluate_plan(fast_nic, context, shard), 0));
  }
  EXPECT_EQ(plan_json(merge_plans(shards, {"a.json", "b.json"}), 0).dump(), json.dump());
  nlohmann::json damaged = shards[1];
  damaged["warnings"][0].erase("fix");
  EXPECT_THROW((void)merge_plans({shards[0], damaged}, {"a.json", "b.json"}), InputError);
}

}  // namespace
}  // namespace ctwin::api

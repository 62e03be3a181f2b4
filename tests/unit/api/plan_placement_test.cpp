// `ctwin plan --placement` (plan/plan_placement.hpp, docs/plan.md "Placement"):
// - the oracle of issue 39 on one build: a 64-GPU job on a 32-node top-of-rack fat tree at 2:1, spread
//   one node per leaf, ranks no better than the same job packed on two leaves, candidate by candidate, on
//   the analytical network (equal: it prices groups by members per node) and strictly slower on flow.
//   It is not a law: on a 16-node build spread puts two nodes under each of four leaves, whose 2:1
//   uplinks then carry only half a leaf, and the spread job is faster (docs/plan.md, "Placement");
// - the bound stays below the replay on a placed job: the pruned plan is the exhaustive one;
// - a node list that holds some candidates and not others drops the others under the rule
//   "placement"; one that holds none is one line naming --placement, exit 2.

#include "ctwin/plan/plan_placement.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/plan_scenario.hpp"
#include "cli/cli_runner.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/plan/plan.hpp"

namespace ctwin::api {
namespace {

const std::string kPlacementSource = CTWIN_SOURCE_DIR;

// The default scenario (Llama 3 8B on 64 H100, DP gradients exposed) on the DGX H100 build cut as a
// top-of-rack fat tree (all 8 NICs of a node on one leaf) with its leaves' uplinks at 2:1.
Scenario fat_tree_scenario() {
  nlohmann::json cluster = load_json_file(kPlacementSource + "/topologies/dgx-h100-superpod.json");
  cluster["fabric"]["kind"] = "top_of_rack";
  cluster["fabric"].erase("nodes_per_su");
  cluster["fabric"].erase("rails_per_leaf");
  cluster["fabric"]["oversubscription"]["leaf"] = 2;
  return exposed_dp_scenario().with("cluster", cluster);
}

// tp 8 (TP inside each node), so every DP ring and pipeline send crosses nodes.
PlanOptions fat_tree_plan(const char* policy) {
  PlanOptions options;
  options.fixes = {"parallel.tp=8", "parallel.cp=1", "parallel.vpp=1", "training.micro_batch=1",
                   "parallel.recompute=selective", "parallel.distributed_optimizer=true"};
  options.placement = {{"policy", policy}, {"build_nodes", 32}};
  options.flow_top = 2;
  options.top = 2;
  options.exhaustive = true;
  return options;
}

using SplitKey = std::tuple<std::int64_t, std::int64_t, bool>;  // pp, dp, pipeline accounting

std::map<SplitKey, const PlanEntry*> by_split(const PlanResult& plan) {
  std::map<SplitKey, const PlanEntry*> out;
  for (const auto& e : plan.entries) {
    if (e.invalid.empty()) out[{e.split.pp, e.dp, e.split.embedding_in_split}] = &e;
  }
  return out;
}

TEST(PlanPlacement, SpreadRanksNoBetterThanPackedOnAFatTreeAtTwoToOne) {
  EvalContext context;
  const Scenario scenario = fat_tree_scenario();
  const PlanResult packed = evaluate_plan(scenario, context, fat_tree_plan("packed"));
  const PlanResult spread = evaluate_plan(scenario, context, fat_tree_plan("spread"));
  EXPECT_EQ(plan_json(packed, 2)["placement"]["policy"], "packed");
  EXPECT_EQ(plan_json(spread, 2)["placement"]["policy"], "spread");
  ASSERT_EQ(packed.survivors, spread.survivors);
  ASSERT_GE(packed.survivors, 3);
  const auto packed_splits = by_split(packed);
  const auto spread_splits = by_split(spread);
  std::size_t on_flow = 0;
  for (const auto& [key, p] : packed_splits) {
    const PlanEntry* s = spread_splits.at(key);
    SCOPED_TRACE("pp " + std::to_string(std::get<0>(key)));
    EXPECT_GE(s->analytical.step_time_s, p->analytical.step_time_s);
    if (p->flow && s->flow) {
      ++on_flow;
      // Spread, every node under its own leaf: each DP ring hop climbs the 2:1 uplinks.
      EXPECT_GT(s->flow->step_time_s, p->flow->step_time_s);
    }
  }
  EXPECT_GE(on_flow, 1U);
  // The best of each plan: spread's is no better than packed's.
  const auto best = [](const PlanResult& r) { return r.entries.front().flow->tokens_per_s; };
  EXPECT_LE(best(spread), best(packed));
}

TEST(PlanPlacement, TheBoundStaysBelowThePlacedReplay) {
  EvalContext context;
  PlanOptions options;
  options.fixes = {"parallel.cp=1", "training.micro_batch=1", "parallel.recompute=selective",
                   "parallel.distributed_optimizer=true"};
  options.placement = {{"policy", "topology_aware"}, {"build_nodes", 24}, {"fragmentation", 0.25}, {"seed", 3}};
  options.flow_top = 0;
  options.top = 5;
  const PlanResult pruned = evaluate_plan(exposed_dp_scenario().with("network", "analytical"), context, options);
  options.exhaustive = true;
  const PlanResult all = evaluate_plan(exposed_dp_scenario().with("network", "analytical"), context, options);
  EXPECT_LT(pruned.replayed, all.replayed);
  nlohmann::json a = plan_json(pruned, 5), b = plan_json(all, 5);
  a.erase("search");
  b.erase("search");
  EXPECT_EQ(a.dump(), b.dump());
}

// GPT-3's 96 heads allow tp 3 and 6 (a sequence of 1,536 tokens divides over them with sequence
// parallelism), whose NVLink blocks do not divide an 8-GPU node: domain-aligned,
// 48 ranks then take 8 nodes instead of 6 (two blocks of 3, or one of 6, per node).
Scenario gpt3_on_48_gpus() {
  nlohmann::json model = load_json_file(kPlacementSource + "/models/llm/gpt3-175b.json");
  model["layers"] = 8;  // small enough that every tp fits in memory
  return plan_test_scenario("llama3-8b", 1536).with("model", model).with("gpus", 48).with("training.global_batch", 96);
}

TEST(PlanPlacement, ANodeListDropsTheSplitsItCannotHold) {
  EvalContext context;
  PlanOptions options;
  options.fixes = {"parallel.pp=1", "parallel.cp=1", "training.micro_batch=1", "parallel.recompute=selective",
                   "parallel.distributed_optimizer=true"};
  const Scenario scenario = gpt3_on_48_gpus();
  const PlanSetup free = prepare_plan(scenario, context, options);
  const PlannedSpace all = plan_space_of(free, scenario, options);
  options.placement = {{"nodes", {5, 4, 3, 2, 1, 0}}};
  const Scenario placed = with_plan_placement(scenario, options.placement);
  const PlanSetup setup = prepare_plan(placed, context, options);
  const PlannedSpace listed = plan_space_of(setup, placed, options);
  std::int64_t dropped = 0;
  for (const auto& r : listed.space.rules.rules()) {
    if (r.rule == "placement") dropped = r.removed;
  }
  EXPECT_GT(dropped, 0);
  EXPECT_EQ(listed.space.survivors.size() + static_cast<std::size_t>(dropped), all.space.survivors.size());
  for (const auto& c : listed.space.survivors) {
    EXPECT_TRUE(8 % (c.split.tp * c.split.cp) == 0) << "tp " << c.split.tp << " needs more than 6 nodes";
  }
  std::int64_t tp3 = 0;
  for (const auto& c : all.space.survivors) tp3 += c.split.tp == 3 || c.split.tp == 6;
  EXPECT_EQ(tp3, dropped);
  EXPECT_EQ(plan_header_json(listed.header)["placement"], options.placement);
  EXPECT_FALSE(plan_header_json(all.header).contains("placement"));
}

TEST(PlanPlacement, ANodeListThatHoldsNoSplitIsOneLine) {
  const auto outcome = cli_testing::run_ctwin("plan " + kPlacementSource +
                                              "/scenarios/default.json --placement '{\"nodes\": [0, 1, 2, 3]}'");
  EXPECT_TRUE(cli_testing::one_line_error(outcome, {"--placement", "rule 'placement'", "/placement"}));
  const auto unknown = cli_testing::run_ctwin("plan " + kPlacementSource + "/scenarios/default.json --placement scattered");
  EXPECT_TRUE(cli_testing::one_line_error(unknown, {"/placement", "unknown placement 'scattered'"}));
}

}  // namespace
}  // namespace ctwin::api

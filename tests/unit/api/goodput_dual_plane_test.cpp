// `goodput` on a dual-plane build (Alibaba HPN): a leaf failure halves its nodes' NICs instead of
// cutting them off, so it slows the job for the leaf's repair instead of restarting it. Oracles:
// it never interrupts the job; its slowdown is `run --degrade leaf:0=down`'s step over the healthy
// step; the same job on a single-plane build keeps counting leaf failures as interruptions.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/studies/goodput.hpp"
#include "plan_scenario.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B on 64 GPUs with its DP reduction exposed, so that a plane's lost bandwidth shows in
// the step. The study's own step on the analytical network; the leaf's effect is simulated on
// flow, where a leaf term acts. HPN under adaptive routing: under ECMP each flow takes one plane
// and gets one 200G port healthy or not (docs/fabric.md), so a leaf down would cost nothing.
Scenario dual_plane_job_on(const std::string& topology) {
  std::ifstream file(std::string(CTWIN_SOURCE_DIR) + "/topologies/" + topology);
  nlohmann::json cluster = nlohmann::json::parse(file);
  if (cluster["fabric"]["kind"] == "dual_plane") cluster["fabric"]["routing"] = "adaptive";
  return exposed_dp_scenario().with("cluster", cluster).with("network", "analytical");
}

GoodputQuery dual_plane_goodput_query(const Scenario& scenario) {
  GoodputQuery q;
  q.scenario = scenario;
  q.days = 30;
  q.runs = 200;
  q.interval = "1h";
  return q;
}

std::size_t leaf_cause_index(const analysis::GoodputStudy& s) {
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    if (s.sources[i].component->takes == analysis::FailureScope::kLeaf) return i;
  }
  ADD_FAILURE() << "the reliability model has no leaf failure";
  return 0;
}

TEST(GoodputDualPlane, ALeafFailureSlowsTheJobByTheDegradedStepAndNeverRestartsIt) {
  EvalContext context;
  const Scenario dual = dual_plane_job_on("hpn-dual-plane.json");
  const GoodputEvaluation g = evaluate_goodput(dual_plane_goodput_query(dual), context);
  ASSERT_TRUE(g.leaf_down);
  // The slowdown is what `ctwin run --degrade leaf:0=down` says, over the healthy step.
  StepQuery degraded;
  degraded.degrade = {"leaf:0=down"};
  const Scenario on_flow = dual.with("network", "flow");
  const double healthy_s = evaluate(on_flow, context).step.report.step_time_s;
  const double down_s = evaluate(on_flow, context, degraded).step.report.step_time_s;
  EXPECT_GT(down_s, healthy_s * 1.01) << "a plane's lost bandwidth shows in an exposed DP reduction";
  EXPECT_DOUBLE_EQ(g.leaf_down->effect, down_s / healthy_s);
  const std::size_t leaf = leaf_cause_index(g.study);
  EXPECT_EQ(g.study.result.interruptions_by_cause[leaf], 0);
  EXPECT_GT(g.study.slowdowns_per_hour, 0);
  EXPECT_DOUBLE_EQ(g.study.failures_per_hour + g.study.slowdowns_per_hour,
                   analysis::total_rate_per_hour(g.study.sources));
  const nlohmann::json out = goodput_json(g);
  EXPECT_EQ(out["causes"][leaf]["takes"], "slowdown");
  EXPECT_EQ(out["causes"][leaf]["expected"], 0.0);
  EXPECT_DOUBLE_EQ(out["dual_plane_leaf_failures"]["slowdown"].get<double>(), down_s / healthy_s);
}

TEST(GoodputDualPlane, ASinglePlaneBuildStillCountsLeafFailuresAsInterruptions) {
  EvalContext context;
  const GoodputEvaluation g = evaluate_goodput(dual_plane_goodput_query(dual_plane_job_on("hgx-h100-roce.json")), context);
  EXPECT_FALSE(g.leaf_down);
  EXPECT_TRUE(g.study.config.slowdowns.empty());
  EXPECT_EQ(g.study.slowdowns_per_hour, 0);
  const std::size_t leaf = leaf_cause_index(g.study);
  EXPECT_GT(g.study.config.causes[leaf].rate_per_s, 0);
  EXPECT_GT(g.study.config.causes[leaf].nodes_taken, 0);
  const nlohmann::json out = goodput_json(g);
  EXPECT_EQ(out["causes"][leaf]["takes"], "leaf");
  EXPECT_FALSE(out.contains("dual_plane_leaf_failures"));
}

}  // namespace
}  // namespace ctwin::api

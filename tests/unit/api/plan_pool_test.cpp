// `ctwin plan` on a heterogeneous pool (plan/plan_pool.hpp, docs/heterogeneous.md "Planning on a pool"):
// - a "mixed" pool of one GPU kind plans exactly as the homogeneous build (the same result rows);
// - on two kinds the space is the splits times 2·k! assignments (k groups), every one accounted for
//   by a survivor or a rule;
// - with one group twice as fast, the plan's best candidate balances by speed (the fast group gets
//   twice the layers), its step is the run's, and its pipeline with free communication is the
//   closed form f0 + m·(f1 + b1) + max(opt1, b0 + opt0) of node_pool_test.cpp, and it beats the best
//   even assignment by more than 10 %;
// - a pool whose slow group cannot hold a stage of any split is one line naming the rule, exit 2.

#include "ctwin/plan/plan_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/plan/plan.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::api {
namespace {

const std::string kPoolSource = CTWIN_SOURCE_DIR;

class PlanPool : public cli_testing::TempDirTest {
 protected:
  /// A copy of h100-sxm whose kernels all take twice as long (as node_pool_test.cpp's).
  std::string half_speed_h100() const {
    nlohmann::json gpu = load_json_file(kPoolSource + "/models/gpus/h100-sxm.json");
    gpu["name"] = "H100 at half speed";
    gpu["training_time_scale"] = 2.0;
    gpu["sources"]["training_time_scale"] = "test: every kernel twice as long";
    return write("h100-half.json", gpu.dump());
  }
  /// The default scenario on the analytical network, its cluster inline holding `groups`.
  static nlohmann::json pool_document(const nlohmann::json& groups) {
    nlohmann::json s = load_json_file(kPoolSource + "/scenarios/default.json");
    s["cluster"] = load_json_file(kPoolSource + "/topologies/dgx-h100-superpod.json");
    if (!groups.is_null()) s["cluster"]["node_groups"] = groups;
    s["network"] = "analytical";
    s["model"] = kPoolSource + "/models/llm/llama3-8b.json";
    return s;
  }
  /// `document` with tp 8, `pp` stages and a plan entry's order of the groups balanced by speed,
  /// as the scenario `ctwin run` would take for that entry.
  replay::Scenario speed_run(const nlohmann::json& document, int pp, const PlanPoolChoice& pool) const {
    const std::string order = "[\"" + pool.order[0] + "\", \"" + pool.order[1] + "\"]";
    return replay::parse_scenario(
        document, "pool.json", dir_, kPoolSource,
        {"parallel.tp=8", "parallel.pp=" + std::to_string(pp), "training.micro_batch=1", "parallel.recompute=selective",
         "parallel.distributed_optimizer=true", "parallel.sequence_parallel=true", "parallel.zero=0",
         "parallel.schedule=1f1b", "parallel.vpp=1", "parallel.cp=1",
         "pool={\"balance\": \"speed\", \"order\": " + order + "}"});
  }
  /// Two nodes: "fast" (H100) and "slow" (the half-speed copy); a 24-layer Llama 3 8B on 16 GPUs.
  nlohmann::json fast_slow_document() const {
    nlohmann::json s = pool_document({{{"name", "fast"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                                      {{"name", "slow"}, {"gpu", half_speed_h100()}, {"nodes", 1}}});
    nlohmann::json model = load_json_file(kPoolSource + "/models/llm/llama3-8b.json");
    model["layers"] = 24;
    s["model"] = model;
    s["gpus"] = 16;
    s["training"]["global_batch"] = 8;
    return s;
  }
};

std::int64_t removed_by(const PlanSpace& space, const std::string& rule) {
  for (const auto& r : space.rules.rules()) {
    if (r.rule == rule) return r.removed;
  }
  return 0;
}

TEST_F(PlanPool, OneKindPlansAsTheHomogeneousBuild) {
  PlanOptions options;
  options.fixes = {"parallel.cp=1", "training.micro_batch=1", "parallel.recompute=selective",
                   "parallel.distributed_optimizer=true"};
  options.flow_top = 1;
  options.top = 5;
  EvalContext context;
  const nlohmann::json plain = plan_json(evaluate_plan(Scenario::from_json(pool_document(nullptr)), context, options), 5);
  const nlohmann::json mixed = plan_json(
      evaluate_plan(Scenario::from_json(pool_document({{{"name", "a"}, {"gpu", "h100-sxm"}, {"nodes", 3}},
                                                       {{"name", "b"}, {"gpu", "h100-sxm"}, {"nodes", 5}}})),
                    context, options),
      5);
  ASSERT_EQ(plain["results"].size(), 5U);
  EXPECT_EQ(mixed["results"].dump(), plain["results"].dump());
  EXPECT_EQ(mixed["enumerated"], plain["enumerated"]);
  EXPECT_EQ(mixed["rules"].dump(), plain["rules"].dump());
  EXPECT_FALSE(mixed.contains("pool"));
}

TEST_F(PlanPool, TheSearchIsTheSplitsTimesTwiceTheOrdersOfTheGroups) {
  PlanOptions options;
  options.fixes = {"parallel.cp=1", "training.micro_batch=1"};
  EvalContext context;
  nlohmann::json one_kind = fast_slow_document();
  one_kind["cluster"].erase("node_groups");
  const Scenario plain = Scenario::from_json(one_kind);
  const PlannedSpace homogeneous = plan_space_of(prepare_plan(plain, context, options), plain, options);
  const Scenario pooled = Scenario::from_json(fast_slow_document());
  const PlanSetup setup = prepare_plan(pooled, context, options);
  ASSERT_EQ(setup.assigned.size(), 4U);  // 2! orders x {even, speed}
  const PlannedSpace searched = plan_space_of(setup, pooled, options);
  EXPECT_EQ(searched.space.enumerated, 4 * homogeneous.space.enumerated);
  EXPECT_EQ(searched.space.rules.total() + static_cast<std::int64_t>(searched.space.survivors.size()),
            searched.space.enumerated);
  // Speed cannot take the embedding/loss slots; pp 1 has one stage on both kinds in every order.
  EXPECT_GT(removed_by(searched.space, "pool.balance"), 0);
  EXPECT_GT(removed_by(searched.space, "pool.duplicate"), 0);
  EXPECT_GT(searched.space.survivors.size(), homogeneous.space.survivors.size());
  const nlohmann::json header = plan_header_json(searched.header);
  EXPECT_EQ(header["pool"]["assignments"], 4);
  EXPECT_EQ(header["pool"]["groups"], (std::vector<std::string>{"fast", "slow"}));
}

struct StagePasses {
  SimTime f, b, opt;
};

StagePasses passes_of(const replay::StageWork& stage) {
  return {replay::compute_time_of(stage.chunks[0].forward, false, false),
          replay::compute_time_of(stage.chunks[0].backward, false, false),
          replay::compute_time_of(stage.after_backward, true, true)};
}

TEST_F(PlanPool, TheBestIsBalancedBySpeedAndItsPipelineIsTheClosedForm) {
  PlanOptions options;
  options.fixes = {"parallel.tp=8", "parallel.pp=2", "parallel.vpp=1", "training.micro_batch=1",
                   "parallel.recompute=selective", "parallel.distributed_optimizer=true",
                   "parallel.account_for_embedding_in_pipeline_split=false"};
  options.flow_top = 0;
  options.exhaustive = true;
  EvalContext context;
  const nlohmann::json document = fast_slow_document();
  const PlanResult plan = evaluate_plan(Scenario::from_json(document), context, options);
  ASSERT_FALSE(plan.entries.empty());
  const PlanEntry& best = plan.entries.front();
  ASSERT_TRUE(best.pool);
  EXPECT_EQ(best.pool->balance, "speed");
  const bool fast_first = best.pool->order.front() == "fast";
  EXPECT_EQ(best.pool->layers, fast_first ? (std::vector<std::int64_t>{16, 8}) : (std::vector<std::int64_t>{8, 16}));
  double best_even_s = 0;
  for (const auto& e : plan.entries) {
    if (e.invalid.empty() && e.pool->balance == "even" && best_even_s == 0) best_even_s = e.analytical.step_time_s;
  }
  // 12 % with the communication (the split's TP collectives and sends do not shrink with the layers).
  EXPECT_LT(best.analytical.step_time_s, 0.9 * best_even_s);

  // The same split and assignment as a scenario: `ctwin run`'s step, and with free communication the closed form.
  const replay::Scenario run = speed_run(document, 2, *best.pool);
  EXPECT_EQ(run.split.pipeline_layout, best.pool->layers);
  EXPECT_EQ(replay::simulate_step(run, {}).report.step_time_s, best.analytical.step_time_s);
  replay::StepOptions free;
  free.free_communication = true;
  const replay::SimulatedStep step = replay::simulate_step(run, free);
  const std::int64_t m = step.work.micro_batches;
  ASSERT_EQ(m, 8);
  const StagePasses s0 = passes_of(step.work.stages[0]);
  const StagePasses s1 = passes_of(step.work.stages[1]);
  ASSERT_LE(s0.f + s0.b, s1.f + s1.b) << "the last stage (logits and loss) is the bottleneck";
  const SimTime closed = s0.f + (s1.f + s1.b) * m + std::max(s1.opt, s0.b + s0.opt);
  EXPECT_NEAR(step.report.step_time_s, closed.seconds(), 1e-9);
  EXPECT_GE(best.analytical.step_time_s, closed.seconds());  // communication only adds
}

TEST_F(PlanPool, AnEntrysDpSharesAreItsRunsAndInItsJson) {
  // Two DP replicas (tp 8, pp 1), one on the fast node and one on the slow: by speed they take
  // unequal shares of the 8 micro-batches, which the plan's entry carries as `run` reports them.
  PlanOptions options;
  options.fixes = {"parallel.tp=8", "parallel.pp=1", "parallel.vpp=1", "training.micro_batch=1",
                   "parallel.recompute=selective", "parallel.distributed_optimizer=true"};
  options.flow_top = 0;
  options.exhaustive = true;
  EvalContext context;
  const nlohmann::json document = fast_slow_document();
  const PlanResult plan = evaluate_plan(Scenario::from_json(document), context, options);
  const PlanEntry* speed = nullptr;
  for (const auto& e : plan.entries) {
    ASSERT_TRUE(e.pool);
    if (!e.invalid.empty()) continue;
    if (e.pool->balance == "even") EXPECT_TRUE(e.pool->dp_micro_batches.empty());
    if (e.pool->balance == "speed" && speed == nullptr) speed = &e;
  }
  ASSERT_NE(speed, nullptr);
  const replay::Scenario run = speed_run(document, 1, *speed->pool);
  const std::vector<std::int64_t> shares = replay::simulate_step(run, {}).report.dp_shares;
  ASSERT_EQ(shares.size(), 2U);
  EXPECT_EQ(shares[0] + shares[1], 8);
  EXPECT_NE(shares[0], shares[1]);
  EXPECT_EQ(speed->pool->dp_micro_batches, shares);
  const nlohmann::json json = plan_json(plan, 10);
  bool written = false;
  for (const auto& r : json["results"]) {
    if (r.contains("pool") && r["pool"].contains("dp_micro_batches")) {
      written = true;
      EXPECT_EQ(r["pool"]["dp_micro_batches"].get<std::vector<std::int64_t>>(), shares);
    }
  }
  EXPECT_TRUE(written);
}

TEST_F(PlanPool, AGroupThatHoldsNoStageIsOneLine) {
  nlohmann::json document = fast_slow_document();
  document["cluster"]["node_groups"][1]["gpu"] = "a100-sxm-40gb";
  document["model"]["layers"] = 60;  // about 51B parameters: fits an 80 GB stage, never a 40 GB one
  document["model"]["hidden"] = 8192;
  document["model"]["ffn_hidden"] = 28672;
  document["model"]["heads"] = 64;
  const std::string file = write("pool.json", document.dump());
  const auto outcome = cli_testing::run_ctwin("plan " + cli_testing::shell_quote(file) + " --flow-top 0");
  EXPECT_TRUE(cli_testing::one_line_error(outcome, {file, "rule 'pool.memory'", "group 'slow'"}));
}

}  // namespace
}  // namespace ctwin::api

#include "ctwin/plan/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "cli/cli_runner.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

// Llama 2 7B on 64 H100 (the default scenario's cluster), batch 128 of 4,096 tokens.
Scenario seven_b() {
  return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json")
      .with("model", "models/llm/llama2-7b.json")
      .with("training.seq_len", 4096);
}

// A small space: micro-batch 1, selective recompute, the distributed optimizer, cp 1, no slot accounting.
const std::vector<std::string> kSmall = {"training.micro_batch=1", "parallel.recompute=selective",
                                         "parallel.distributed_optimizer=true", "parallel.cp=1",
                                         "parallel.account_for_embedding_in_pipeline_split=false"};

PlanOptions small(std::size_t flow_top, unsigned jobs = 2) {
  PlanOptions options;
  options.fixes = kSmall;
  options.memory_margin = 0;  // the brute force judges memory by the run report's fits_memory: no margin
  options.flow_top = flow_top;
  options.jobs = jobs;
  return options;
}

// Oracle: a brute-force loop of api::evaluate over every split of the same axes, written without
// the planner (its own loops, the scenario's own checks, the run report's memory verdict), finds
// the same candidates and the same best, on the analytical network and on the flow fabric.
TEST(Plan, BestEqualsBruteForceOverTheSameCandidates) {
  EvalContext context;
  const PlanResult plan = evaluate_plan(seven_b(), context, small(1000));
  for (const auto& network : {std::string("analytical"), std::string("flow")}) {
    std::int64_t valid = 0;
    double best = -1;
    std::string best_split;
    EvalContext fresh;
    for (int tp : {1, 2, 4, 8, 16, 32, 64}) {
      for (int pp : {1, 2, 4, 8, 16, 32, 64}) {
        for (int vpp = 1; vpp <= 32; ++vpp) {
          if (tp > 8) continue;  // NVLink: 8 GPUs per DGX H100
          Scenario s = seven_b()
                           .with("network", network)
                           .with("parallel", {{"tp", tp}, {"pp", pp}, {"vpp", vpp}, {"cp", 1}, {"dp", "auto"},
                                              {"sequence_parallel", tp > 1}, {"distributed_optimizer", true},
                                              {"zero", 1}, {"recompute", "selective"},
                                              {"schedule", vpp > 1 ? "interleaved" : "1f1b"}})
                           .with("training.micro_batch", 1);
          try {
            const auto step = evaluate(s, fresh);
            if (!step.step.report.fits_memory) continue;
            ++valid;
            if (step.step.report.tokens_per_s > best) {
              best = step.step.report.tokens_per_s;
              best_split = std::to_string(tp) + "/" + std::to_string(pp) + "/" + std::to_string(vpp);
            }
          } catch (const InputError&) {
          }
        }
      }
    }
    EXPECT_EQ(valid, plan.survivors) << network;
    const auto& top = network == "flow" ? plan.entries.front() : *std::find_if(plan.entries.begin(), plan.entries.end(),
                                                                              [](const PlanEntry& e) { return e.analytical_rank == 1; });
    const PlanScore& score = network == "flow" ? *top.flow : top.analytical;
    EXPECT_EQ(score.tokens_per_s, best) << network;
    EXPECT_EQ(std::to_string(top.split.tp) + "/" + std::to_string(top.split.pp) + "/" + std::to_string(top.split.vpp),
              best_split)
        << network;
  }
  ASSERT_GE(plan.entries.size(), 2u);
  EXPECT_TRUE(plan.entries.front().why.empty());
  // The parts add up to the step, so the reasons of a slower candidate add to a positive difference.
  const PlanScore& first = *plan.entries.front().flow;
  for (const auto& e : plan.entries) {
    if (!e.flow) continue;
    const PlanScore& s = *e.flow;
    EXPECT_NEAR(s.compute_s + s.recompute_s + s.bubble_s + s.exposed_s.total() + s.optimizer_s, s.step_time_s,
                1e-6 * s.step_time_s);
    EXPECT_GE(s.step_time_s, first.step_time_s);
  }
}

TEST(Plan, FlowPhaseReranksOnlyTheBestM) {
  EvalContext context;
  const PlanResult plan = evaluate_plan(seven_b(), context, small(3));
  std::size_t flows = 0;
  for (const auto& e : plan.entries) {
    if (e.flow) {
      ++flows;
      EXPECT_LE(e.analytical_rank, 3);
    }
  }
  EXPECT_EQ(flows, 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(plan.entries[i].flow.has_value());
  for (std::size_t i = 4; i < plan.entries.size(); ++i) {
    EXPECT_LT(plan.entries[i - 1].analytical_rank, plan.entries[i].analytical_rank);
  }
}

TEST(Plan, SameBytesWhateverTheJobs) {
  EvalContext one, two, three;
  const std::string bytes = plan_json(evaluate_plan(seven_b(), one, small(8, 1)), 0).dump();
  EXPECT_EQ(bytes, plan_json(evaluate_plan(seven_b(), two, small(8, 2)), 0).dump());
  EXPECT_EQ(bytes, plan_json(evaluate_plan(seven_b(), three, small(8, 3)), 0).dump());
}

TEST(Plan, MergedShardsEqualTheOneMachineResult) {
  EvalContext context;
  const PlanResult whole = evaluate_plan(seven_b(), context, small(5));
  std::vector<nlohmann::json> shards;
  for (std::size_t i = 0; i < 3; ++i) {
    PlanOptions options = small(5);
    options.shard_index = i;
    options.shard_count = 3;
    // Through text, as files carry them.
    shards.push_back(nlohmann::json::parse(plan_json(evaluate_plan(seven_b(), context, options), 0).dump(2)));
  }
  std::reverse(shards.begin(), shards.end());
  const PlanResult merged = merge_plans(shards, {"c.json", "b.json", "a.json"});
  EXPECT_EQ(plan_json(merged, 0).dump(), plan_json(whole, 0).dump());
  EXPECT_EQ(plan_json(merged, 4).dump(), plan_json(whole, 4).dump());
  // A missing or repeated shard is refused.
  EXPECT_THROW((void)merge_plans({shards[0], shards[1]}, {"c.json", "b.json"}), InputError);
  EXPECT_THROW((void)merge_plans({shards[0], shards[0], shards[1]}, {"c.json", "c.json", "b.json"}), InputError);
  // So is a shard of another scenario with the same model, GPUs, batch and options.
  PlanOptions options = small(5);
  options.shard_index = 0;
  options.shard_count = 3;
  const auto other = nlohmann::json::parse(
      plan_json(evaluate_plan(seven_b().with("overlap.pp_p2p", false), context, options), 0).dump(2));
  try {
    (void)merge_plans({shards[0], shards[1], other}, {"c.json", "b.json", "other.json"});
    ADD_FAILURE() << "shards of two scenarios were merged";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "other.json");
    EXPECT_EQ(e.pointer(), "/shard/scenario");
  }
  // Edited results (issue 36 printed a step of -5 s and an MFU of 750 % from such shards; a
  // string where a number belongs was nlohmann's type_error, an internal error).
  ASSERT_FALSE(shards[2]["results"].empty());
  ASSERT_FALSE(shards[2]["results"][0].contains("invalid"));
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& part) {
    auto edited = shards[2];
    edit(edited["results"][0]);
    try {
      (void)merge_plans({shards[0], shards[1], edited}, {"c.json", "b.json", "a.json"});
      ADD_FAILURE() << part << ": the edited shard was merged";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "a.json");
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused([](nlohmann::json& r) { r["analytical"]["step_time_s"] = -5.0; }, "/results/0/analytical/step_time_s");
  refused([](nlohmann::json& r) { r["analytical"]["mfu"] = 7.5; }, "/results/0/analytical/mfu");
  refused([](nlohmann::json& r) { r["analytical"]["breakdown_s"]["bubble"] = -1.0; }, "breakdown_s/bubble");
  refused([](nlohmann::json& r) { r["split"]["tp"] = r["split"]["tp"].get<int>() * 2; }, "tp·pp·cp·dp");
  refused([](nlohmann::json& r) { r["split"]["micro_batches"] = 1000; }, "global batch");
  refused([](nlohmann::json& r) { r["index"] = 1'000'000; }, "/results/0/index");
  refused([](nlohmann::json& r) { r["analytical"]["mfu"] = "high"; }, "not a shard");
}

TEST(Plan, NoSplitLeftNamesTheRuleThatRemovedTheLast) {
  EvalContext context;
  PlanOptions options;
  options.fixes = {"parallel.tp=3"};
  try {
    (void)evaluate_plan(seven_b(), context, options);
    FAIL() << "tp 3 on 64 GPUs was planned";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--fix");
    EXPECT_NE(e.message().find("rule 'gpus'"), std::string::npos) << e.what();
  }
}

TEST(Plan, BadInputIsAnInputErrorNamingTheFlag) {
  EvalContext context;
  const auto source_of = [&](const PlanOptions& options) -> std::string {
    try {
      (void)evaluate_plan(seven_b(), context, options);
    } catch (const InputError& e) {
      return e.source();
    }
    return "(accepted)";
  };
  for (const char* bad : {"parallel.recompute=some", "parallel.tp=0", "parallel.tp=two", "parallel.sequence_parallel=true",
                          "parallel.schedule=gpipe", "parallel.bogus=1", "training.global_batch=-4", "parallel.tp"}) {
    PlanOptions options;
    options.fixes = {bad};
    EXPECT_EQ(source_of(options), "--fix") << bad;
  }
  PlanOptions gpus;
  gpus.gpus = 0;
  EXPECT_EQ(source_of(gpus), "--gpus");
  EXPECT_THROW((void)parse_plan_objective("speed"), InputError);
  std::size_t i = 0, n = 0;
  for (const char* bad : {"0/2", "3/2", "1", "a/b", "1/0", "-1/2"}) EXPECT_THROW(parse_shard(bad, i, n), InputError) << bad;
  parse_shard("2/8", i, n);
  EXPECT_EQ(i, 1u);
  EXPECT_EQ(n, 8u);
}

TEST(PlanCli, BadInputIsOneLineAndExitTwo) {
  EXPECT_TRUE(cli_testing::one_line_error(cli_testing::run_ctwin("plan scenarios/default.json --fix parallel.tp=3"),
                                          {"--fix", "gpus"}));
  EXPECT_TRUE(cli_testing::one_line_error(cli_testing::run_ctwin("plan scenarios/default.json --objective speed"),
                                          {"--objective", "speed"}));
  EXPECT_TRUE(cli_testing::one_line_error(cli_testing::run_ctwin("plan scenarios/default.json --shard 3/2"),
                                          {"--shard", "3/2"}));
  EXPECT_TRUE(cli_testing::one_line_error(cli_testing::run_ctwin("plan --merge /nonexistent.json"), {"nonexistent"}));
  const auto ok = cli_testing::run_ctwin(
      "plan scenarios/default.json --fix training.micro_batch=1 --fix parallel.recompute=selective --fix parallel.cp=1 "
      "--fix parallel.distributed_optimizer=true --flow-top 2 --top 4 --format csv");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_EQ(std::count(ok.output.begin(), ok.output.end(), '\n'), 5) << ok.output;  // header and four results
}

}  // namespace
}  // namespace ctwin::api

#include "ctwin/plan/plan_rank.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctwin/core/error.hpp"
#include "api/plan_scenario.hpp"

namespace ctwin::api {
namespace {


// Every field of a result's split: the key that names it alone.
std::vector<std::string> key_of(const nlohmann::json& split) {
  std::vector<std::string> key;
  for (const char* name : {"tp", "pp", "vpp", "cp", "ep", "schedule", "pipeline_accounting", "micro_batch",
                           "recompute", "zero", "distributed_optimizer"}) {
    const auto& v = split[name];
    key.push_back(std::string(name) + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  }
  return key;
}

struct Case {
  std::string name;
  Scenario base;
  std::vector<std::string> fixes;
  PlanObjective objective;
};

std::vector<Case> cases() {
  const Scenario seven_b = plan_test_scenario("llama2-7b", 4096);
  return {
      {"7B 1F1B", seven_b,
       {"training.micro_batch=1", "parallel.recompute=selective", "parallel.distributed_optimizer=true",
        "parallel.cp=1", "parallel.schedule=1f1b"},
       PlanObjective::kThroughput},
      {"7B interleaved, ZeRO stages", seven_b,
       {"training.micro_batch=1", "parallel.cp=1", "parallel.account_for_embedding_in_pipeline_split=false",
        "parallel.tp=2", "parallel.schedule=interleaved", "parallel.recompute=selective"},
       PlanObjective::kThroughput},
      {"7B both schedules, mfu", seven_b,
       {"training.micro_batch=2", "parallel.recompute=full", "parallel.zero=1", "parallel.cp=1"},
       PlanObjective::kMfu},
      {"Mixtral with EP", plan_test_scenario("mixtral-8x7b", 4096),
       {"training.micro_batch=1", "parallel.recompute=selective", "parallel.zero=1", "parallel.cp=1",
        "parallel.account_for_embedding_in_pipeline_split=false"},
       PlanObjective::kThroughput},
  };
}

// Oracle: for EVERY candidate of the exhaustive plan (flow phase off), the rank of its key is its
// position in that plan, its entry is the plan's entry (score, breakdown and reasons against the
// first), the best is the plan's first and the count of valid candidates is the plan's. A
// candidate the replay refuses is "not valid" by the replay's rule.
// Its rows carry the plan's error bands and distinguishable marks as they are.
TEST(PlanRank, EveryCandidateRanksWhereTheExhaustivePlanPutsIt) {
  std::int64_t checked = 0, replayed = 0, replayed_exhaustive = 0, spaces_with_interleaving = 0;
  bool moe_with_ep = false;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    EvalContext context;
    PlanOptions plan;
    plan.fixes = c.fixes;
    plan.objective = c.objective;
    plan.flow_top = 0;
    plan.exhaustive = true;
    plan.jobs = 2;
    const nlohmann::json exhaustive = plan_json(evaluate_plan(c.base, context, plan), 0);
    const auto& results = exhaustive["results"];
    std::int64_t valid = 0;
    for (const auto& r : results) valid += r.contains("invalid") ? 0 : 1;
    ASSERT_GE(valid, 4) << "a space too small to test ranks";
    bool interleaved = false;
    for (const auto& r : results) {
      SCOPED_TRACE(r["split"].dump());
      RankOptions options;
      options.fixes = c.fixes;
      options.objective = c.objective;
      options.key = key_of(r["split"]);
      options.jobs = 2;
      const SplitRank rank = rank_split(c.base, context, options);
      EXPECT_EQ(rank.survivors, exhaustive["survivors"].get<std::int64_t>());
      EXPECT_EQ(rank.enumerated, exhaustive["enumerated"].get<std::int64_t>());
      EXPECT_EQ(rank.valid, valid);
      const nlohmann::json j = split_rank_json(rank);
      if (r.contains("invalid")) {
        EXPECT_EQ(rank.not_valid_rule, "replay");
        EXPECT_EQ(rank.not_valid, r["invalid"].get<std::string>());
        EXPECT_TRUE(j["rank"].is_null());
      } else {
        EXPECT_TRUE(rank.not_valid_rule.empty()) << rank.not_valid;
        EXPECT_EQ(rank.rank, r["rank"].get<std::int64_t>());
        EXPECT_EQ(j["named"].dump(), r.dump());
        EXPECT_EQ(j["best"].dump(), results[0].dump());
        EXPECT_EQ(j["error_band"].dump(), exhaustive["error_band"].dump());
      }
      EXPECT_EQ(rank.bounded + 1, rank.survivors);
      if (r["split"]["ep"].get<int>() > 1) moe_with_ep = true;
      if (r["split"]["schedule"] == "interleaved") interleaved = true;
      replayed += rank.replayed;
      replayed_exhaustive += rank.survivors;
      ++checked;
    }
    spaces_with_interleaving += interleaved ? 1 : 0;
  }
  EXPECT_TRUE(moe_with_ep);
  EXPECT_GE(spaces_with_interleaving, 2);
  EXPECT_GE(checked, 40);
  // Not a target: how much the bound saves over replaying each plan (ranks spread evenly would
  // replay about half on average).
  RecordProperty("replayed", static_cast<int>(replayed));
  RecordProperty("replayed_exhaustive", static_cast<int>(replayed_exhaustive));
  EXPECT_LT(replayed, replayed_exhaustive);
}

// A key may leave out the fields that only one value is left for (with pp 1: 1F1B, no accounting).
TEST(PlanRank, KeyOmittingAFieldNamesTheOneCandidateLeft) {
  EvalContext context;
  RankOptions options;
  options.fixes = {"training.micro_batch=1", "parallel.recompute=selective", "parallel.distributed_optimizer=true",
                   "parallel.cp=1"};
  options.key = {"tp=8", "pp=1"};  // pp 1: 1F1B and no accounting are the only values left
  options.jobs = 2;
  const SplitRank rank = rank_split(plan_test_scenario("llama2-7b", 4096), context, options);
  ASSERT_TRUE(rank.named);
  EXPECT_EQ(rank.named->split.tp, 8);
  EXPECT_EQ(rank.named->split.pp, 1);
  EXPECT_GE(rank.rank, 1);
  EXPECT_LE(rank.rank, rank.valid);
}

// A split the plan's rules remove is "not valid" with the rule, and the best is still found.
TEST(PlanRank, RemovedSplitIsNotValidWithItsRule) {
  EvalContext context;
  RankOptions options;
  options.fixes = {"training.micro_batch=1", "parallel.recompute=none", "parallel.zero=0",
                   "parallel.distributed_optimizer=false", "parallel.cp=1", "parallel.ep=1"};
  options.key = {"tp=1", "pp=1"};
  options.jobs = 2;
  const SplitRank rank = rank_split(plan_test_scenario("mixtral-8x7b", 4096), context, options);
  EXPECT_EQ(rank.not_valid_rule, "memory");
  EXPECT_FALSE(rank.not_valid.empty());
  EXPECT_EQ(rank.rank, 0);
  EXPECT_FALSE(rank.named);
  const nlohmann::json j = split_rank_json(rank);
  EXPECT_EQ(j["not_valid"]["rule"], "memory");
  EXPECT_TRUE(j["named"].is_null());
  // The best equals the plan's first.
  PlanOptions plan;
  plan.fixes = options.fixes;
  plan.flow_top = 0;
  plan.top = 1;
  plan.jobs = 2;
  const PlanResult result = evaluate_plan(plan_test_scenario("mixtral-8x7b", 4096), context, plan);
  ASSERT_TRUE(rank.best);
  EXPECT_EQ(j["best"].dump(), plan_json(result, 1)["results"][0].dump());
}

TEST(PlanRank, BadKeyIsAnInputErrorNamingTheField) {
  EvalContext context;
  const Scenario base = plan_test_scenario("llama2-7b", 4096);
  const std::vector<std::string> fixes = {"training.micro_batch=1", "parallel.recompute=selective",
                                          "parallel.distributed_optimizer=true", "parallel.cp=1",
                                          "parallel.schedule=1f1b"};
  const auto error_of = [&](const std::vector<std::string>& key) -> std::string {
    RankOptions options;
    options.fixes = fixes;
    options.key = key;
    try {
      (void)rank_split(base, context, options);
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "--rank-of");
      return e.pointer() + "|" + e.message();
    }
    return "no error";
  };
  EXPECT_EQ(error_of({"tp=3", "pp=1"}).substr(0, 3), "tp|");       // not a divisor of the 64 GPUs
  EXPECT_EQ(error_of({"tp=2", "pp=1", "cp=2"}).substr(0, 3), "cp|");  // outside the --fix
  EXPECT_EQ(error_of({"tp=2", "vpp=2"}).substr(0, 4), "vpp|");     // the fix says 1F1B
  EXPECT_EQ(error_of({"gpus=8"}).substr(0, 5), "gpus|");           // not a split's field
  EXPECT_EQ(error_of({"dp=8"}).substr(0, 3), "dp|");               // derived, not searched
  EXPECT_EQ(error_of({"tp=two"}).substr(0, 3), "tp|");
  EXPECT_EQ(error_of({"tp=2", "tp=4"}).substr(0, 3), "tp|");
  EXPECT_NE(error_of({"tp=2"}).find("pp"), std::string::npos);     // names 1 of several: which field is missing
  EXPECT_NE(error_of({}), "no error");
  // A fix that leaves nothing to rank is the plan's own error.
  RankOptions options;
  options.fixes = {"parallel.tp=3"};
  options.key = {"tp=3", "pp=1"};
  EXPECT_THROW((void)rank_split(base, context, options), InputError);
}

}  // namespace
}  // namespace ctwin::api

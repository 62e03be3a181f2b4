// The waterfall (studies/explain.hpp): each link is the `ctwin run` of the chain so far, the gains
// multiply to the whole, the shares add to one, and the chain read backwards ends where it ends
// forwards; bad chains name their file and field.

#include "ctwin/studies/explain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "ctwin/analysis/scaling.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/core/error.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B on 64 H100 on the analytical network (fast): slower NICs at the base, then three
// factors, one of which (the description) the step never reads.
const char* const kChain = R"json({
  "name": "test chain",
  "base": "BASE",
  "set": ["network=analytical", "cluster.server.nics.bandwidth=10Gbps"],
  "factors": [
    {"label": "faster NICs", "factor": "network", "set": ["cluster.server.nics.bandwidth=400Gbps"]},
    {"label": "a new description", "factor": "none", "set": ["description=nothing the step reads"]},
    {"label": "tp 4", "factor": "split", "set": ["parallel.tp=4", "parallel.pp=1"]}
  ]
})json";

std::string write_chain(std::string text) {
  text.replace(text.find("BASE"), 4, kDefaultScenario);
  const auto path = std::filesystem::temp_directory_path() / ("ctwin-chain-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << text;
  return path.string();
}

TEST(Explain, EachLinkIsTheRunOfTheChainSoFar) {
  const std::string file = write_chain(kChain);
  const ExplainChain chain = load_explain_chain(file);
  EvalContext context;
  const ExplainResult result = evaluate_explain(chain, context, {.reverse = true});
  std::filesystem::remove(file);
  ASSERT_EQ(result.links.size(), 4U);
  std::vector<std::string> so_far = chain.base_set;
  for (std::size_t i = 0; i < result.links.size(); ++i) {
    if (i > 0) so_far.insert(so_far.end(), chain.factors[i - 1].set.begin(), chain.factors[i - 1].set.end());
    EvalContext fresh;
    const StepResult run = evaluate(Scenario::load(kDefaultScenario).with_assignments(so_far), fresh);
    EXPECT_EQ(result.links[i].set, so_far);
    // `ctwin run`'s whole report, to the byte.
    EXPECT_EQ(step_report_json(run.scenario, result.links[i].report).dump(),
              step_report_json(run.scenario, run.step.report).dump())
        << result.links[i].label;
    const auto& b = run.step.report.breakdown;
    EXPECT_EQ(result.links[i].gpu_utilisation, (b.compute_s + b.optimizer_s) / run.step.report.step_time_s);
  }
  // The gains multiply to the whole and the shares add to one; 10 Gb/s NICs really are the base's limit.
  double product = 1;
  double shares = 0;
  for (const ExplainLink& link : result.links) {
    product *= link.gain;
    shares += link.share;
  }
  EXPECT_NEAR(product, result.total_gain, 1e-12 * result.total_gain);
  EXPECT_NEAR(shares, 1.0, 1e-12);
  EXPECT_GT(result.links[1].gain, 1.5);
  // A factor the step does not read gains nothing, in either order.
  EXPECT_EQ(result.links[2].gain, 1.0);
  EXPECT_EQ(result.reversed[2].gain, 1.0);
  // Backwards the chain ends on the same scenario, so at the same tokens/s.
  ASSERT_EQ(result.reversed.size(), 4U);
  EXPECT_EQ(result.reversed.front().report.tokens_per_s, result.links.front().report.tokens_per_s);
  double reversed = 1;
  for (const ExplainLink& link : result.reversed) reversed *= link.gain;
  EXPECT_NEAR(reversed, result.total_gain, 1e-12 * result.total_gain);
  EXPECT_EQ(explain_json(result)["links"].size(), 4U);
  EXPECT_EQ(explain_json(result)["links"][1]["label"], "faster NICs");
}

std::string error_of(const std::string& text) {
  const std::string file = write_chain(text);
  std::string message;
  try {
    EvalContext context;
    (void)evaluate_explain(load_explain_chain(file), context);
  } catch (const InputError& error) {
    message = error.what();
  }
  std::filesystem::remove(file);
  return message.empty() ? message : message.substr(message.find(' ') + 1);  // the temporary file's name aside
}

TEST(Explain, BadChainsNameTheirField) {
  EXPECT_EQ(error_of(R"({"name": "x", "base": "BASE", "factors": []})"),
            "/factors: must be a list of 1 to 32 factors");
  EXPECT_EQ(error_of(R"({"name": "x", "base": "BASE", "colour": 1, "factors": [{"label": "a", "set": ["parallel.tp=4"]}]})"),
            "/colour: unknown field");
  EXPECT_EQ(error_of(R"({"name": "x", "base": "BASE", "factors": [{"label": "a", "set": []}]})"),
            "/factors/0/set: must change at least one field (\"parallel.tp=8\")");
  const std::string unknown =
      error_of(R"({"name": "x", "base": "BASE", "set": ["network=analytical"], "factors": [{"label": "odd", "set": ["parallel.colour=4"]}]})");
  EXPECT_EQ(unknown.rfind("/factors/0/set: the chain cannot run past \"odd\":", 0), 0U) << unknown;
  EXPECT_NE(unknown.find("colour"), std::string::npos) << unknown;
}

// Linearity is `ctwin scale`'s weak scaling (each replica keeps its batch) from one node to the
// link's size: the same runs, the same figure.
TEST(Explain, LinearityIsWeakScalingFromOneNode) {
  const std::string file = write_chain(kChain);
  const ExplainChain chain = load_explain_chain(file);
  EvalContext context;
  const ExplainResult result = evaluate_explain(chain, context);
  std::filesystem::remove(file);
  for (const std::size_t i : {std::size_t{0}, std::size_t{3}}) {
    const ExplainLink& link = result.links[i];
    ASSERT_TRUE(link.linearity.has_value()) << link.label;
    EXPECT_EQ(link.linearity_gpus, 8);
    analysis::ScalingQuery query;
    query.gpus = {8, 64};
    query.batch = analysis::BatchPolicy::kPerReplica;
    query.load = [&](const std::vector<std::string>& size) {
      std::vector<std::string> all = link.set;
      all.insert(all.end(), size.begin(), size.end());
      return Scenario::load(kDefaultScenario).with_assignments(all).resolve();
    };
    const analysis::ScalingStudy study = analysis::run_scaling(query);
    EXPECT_NEAR(*link.linearity, study.points[1].linearity, 1e-12) << link.label;
  }
  // 10 Gb/s NICs scale worse than 400 Gb/s ones: a check that the figure is not a constant.
  EXPECT_LT(*result.links[0].linearity, *result.links[1].linearity);
}

// Acceptance oracle: factors that do not interact multiply. Faster NICs change the step and
// not the failures; a checkpoint tier changes the checkpoints and not the step. Each gains the
// same whichever goes first (to the Monte Carlo's rounding of the interval to whole steps), so
// the whole is the product of each factor's gain alone.
TEST(Explain, FactorsThatDoNotInteractMultiply) {
  const std::string file = write_chain(R"json({
    "name": "independent factors", "base": "BASE",
    "set": ["network=analytical", "cluster.server.nics.bandwidth=10Gbps"],
    "goodput": {"days": 2, "runs": 50, "interval": "1h"},
    "factors": [
      {"label": "faster NICs", "set": ["cluster.server.nics.bandwidth=400Gbps"]},
      {"label": "peer-memory checkpoints", "set": ["goodput.storage=peer-memory"]}
    ]})json");
  const ExplainChain chain = load_explain_chain(file);
  EvalContext context;
  const ExplainResult result = evaluate_explain(chain, context, {.reverse = true});
  std::filesystem::remove(file);
  ASSERT_TRUE(result.links[2].goodput.has_value());
  // The checkpoint tier leaves the step alone and buys goodput only; the NICs buy tokens/s.
  EXPECT_EQ(result.links[2].report.step_time_s, result.links[1].report.step_time_s);
  EXPECT_GT(result.links[2].goodput->goodput, result.links[1].goodput->goodput);
  EXPECT_LT(result.links[2].goodput->checkpoint_blocking_s, result.links[1].goodput->checkpoint_blocking_s);
  EXPECT_GT(result.links[1].gain, 1.5);
  for (std::size_t i = 1; i <= 2; ++i) {
    EXPECT_NEAR(result.links[i].gain, result.reversed[i].gain, 1e-3 * result.links[i].gain) << result.links[i].label;
  }
  // Alone, from the base: the reversed chain's first factor is the tier, its gain the tier's alone.
  EXPECT_NEAR(result.total_gain, result.links[1].gain * result.reversed[2].gain, 1e-3 * result.total_gain);
  EXPECT_NEAR(result.links[1].throughput, result.links[1].report.tokens_per_s * result.links[1].goodput->goodput, 0);
}

TEST(Explain, BadGoodputSettingsNameTheirField) {
  EXPECT_EQ(error_of(R"({"name": "x", "base": "BASE", "factors": [{"label": "a", "set": ["goodput.runs=10"]}]})"),
            "/factors/0/set: changes goodput settings, but the chain has no \"goodput\" object");
  const std::string unknown = error_of(
      R"({"name": "x", "base": "BASE", "goodput": {}, "factors": [{"label": "a", "set": ["goodput.colour=1"]}]})");
  EXPECT_EQ(unknown, "/factors/0/set/colour: unknown field");
  const std::string steps = error_of(
      R"({"name": "x", "base": "BASE", "goodput": {"interruption_every": "100 stepz"}, "factors": [{"label": "a", "set": ["parallel.tp=4"]}]})");
  EXPECT_EQ(steps.rfind("/goodput/interruption_every:", 0), 0U) << steps;
  // An interruption every second for ten years, 100,000 times over, would not end: refused.
  const std::string endless = error_of(
      R"({"name": "x", "base": "BASE", "set": ["network=analytical"], "goodput": {"interruption_every": "1s", "days": 3650, "runs": 100000}, "factors": [{"label": "a", "set": ["parallel.tp=4"]}]})");
  EXPECT_NE(endless.find("/interruption_every"), std::string::npos) << endless;
  EXPECT_EQ(error_of(R"({"name": "x", "base": "BASE", "goodput": {"runs": 0}, "factors": [{"label": "a", "set": ["parallel.tp=4"]}]})")
                .rfind("/goodput/runs:", 0),
            0U);
}

}  // namespace
}  // namespace ctwin::api

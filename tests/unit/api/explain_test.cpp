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

#include "ctwin/api/evaluate.hpp"
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
    EXPECT_EQ(result.links[i].report.step_time_s, run.step.report.step_time_s) << result.links[i].label;
    EXPECT_EQ(result.links[i].report.tokens_per_s, run.step.report.tokens_per_s) << result.links[i].label;
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

}  // namespace
}  // namespace ctwin::api

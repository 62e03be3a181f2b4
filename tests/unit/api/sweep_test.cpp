#include "ctwin/studies/sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "cli/cli_runner.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/core/error.hpp"
#include "plan_scenario.hpp"

namespace ctwin::api {
namespace {

std::vector<GridAxis> axes(const std::vector<std::string>& texts) {
  std::vector<GridAxis> out;
  for (const auto& text : texts) out.push_back(parse_grid_axis(text));
  return out;
}

// Oracle: every point is the step `ctwin run` gives for the same fields, in nested-loop order.
TEST(Sweep, EveryPointIsTheStepOfItsScenarioInGridOrder) {
  EvalContext context;
  const auto grid = axes({"parallel.tp=1,2,4", "training.micro_batch=1,2"});
  const SweepResult result = evaluate_sweep(analytical_default_scenario(), grid, context, {2, {}});
  ASSERT_EQ(result.points.size(), 6u);
  std::size_t i = 0;
  for (int tp : {1, 2, 4}) {
    for (int mb : {1, 2}) {
      const auto& point = result.points[i++];
      EXPECT_EQ(point.values, (std::vector<std::string>{std::to_string(tp), std::to_string(mb)}));
      ASSERT_TRUE(point.invalid.empty()) << point.invalid;
      EvalContext fresh;
      const auto alone = evaluate(analytical_default_scenario().with("parallel.tp", tp).with("training.micro_batch", mb), fresh);
      EXPECT_EQ(step_report_json(alone.scenario, point.report).dump(),
                step_report_json(alone.scenario, alone.step.report).dump());
    }
  }
}

TEST(Sweep, SameBytesWhateverTheJobs) {
  const auto grid = axes({"parallel.pp=1,2,4", "cluster.server.nics.bandwidth=200Gbps,400Gbps"});
  EvalContext one, three;
  EXPECT_EQ(sweep_json(evaluate_sweep(analytical_default_scenario(), grid, one, {1, {}})).dump(),
            sweep_json(evaluate_sweep(analytical_default_scenario(), grid, three, {3, {}})).dump());
}

// 144 sequences split over dp 16 (pp 2) but not over dp 32 (pp 1): each value is fine alone,
// their combination is a point the grid reports, not an error.
TEST(Sweep, CombinationThatCannotRunIsAPointWithItsReason) {
  EvalContext context;
  const auto result =
      evaluate_sweep(analytical_default_scenario(), axes({"parallel.pp=1,2", "training.global_batch=128,144"}), context, {1, {}});
  ASSERT_EQ(result.points.size(), 4u);
  EXPECT_TRUE(result.points[0].invalid.empty());
  EXPECT_FALSE(result.points[1].invalid.empty());  // pp 1, batch 144
  EXPECT_TRUE(result.points[2].invalid.empty());
  EXPECT_TRUE(result.points[3].invalid.empty());
}

TEST(Sweep, ValueThatCannotStandAloneIsAnInputErrorNamingIt) {
  EvalContext context;
  for (const char* bad : {"parallel.tpp=1,2", "cluster.server.nics.bandwidth=400,800Gbps", "parallel.tp=1,3"}) {
    try {
      (void)evaluate_sweep(analytical_default_scenario(), axes({bad}), context);
      FAIL() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "--grid") << bad;
    }
  }
  EXPECT_THROW((void)parse_grid_axis("parallel.tp"), InputError);
  EXPECT_THROW((void)parse_grid_axis("parallel.tp=1,,2"), InputError);
}

TEST(SweepCli, BadGridIsOneLineAndExitTwo) {
  EXPECT_TRUE(cli_testing::one_line_error(
      cli_testing::run_ctwin("sweep scenarios/default.json --network analytical --grid cluster.server.nics.bandwidth=400"),
      {"--grid", "bandwidth"}));
  const auto ok = cli_testing::run_ctwin("sweep scenarios/default.json --network analytical --grid parallel.tp=2,4 --format csv");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_EQ(std::count(ok.output.begin(), ok.output.end(), '\n'), 3) << ok.output;  // header and two points
}

}  // namespace
}  // namespace ctwin::api

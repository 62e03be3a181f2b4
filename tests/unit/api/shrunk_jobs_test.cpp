// The smaller job of `goodput --on-empty shrink`: its tokens per second come from the twin's
// step at fewer replicas (batch nearest to the scenario's), not from r/dp of the whole job's.

#include "ctwin/studies/shrunk_jobs.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ctwin/api/evaluate.hpp"
#include "plan_scenario.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B on 64 H100 (tp 2, pp 2: 16 replicas of 4 GPUs, 128 sequences), its DP reduction
// after the backward (exposed_dp_scenario): the step's communication is on its critical path.
TEST(ShrunkJobs, TheSmallerJobsShareComesFromTheTwinNotTheLinearRule) {
  EvalContext context;
  ShrunkJobs jobs(exposed_dp_scenario(), context, 16, 4);
  // Half the replicas keep the 128 sequences: twice the micro-batches each, over which the
  // pipeline bubble and the exposed DP reduction are spread, so half the job keeps more than half
  // the tokens per second.
  const double half = jobs.share(8);
  EXPECT_GT(half, 0.5 * 1.02);
  EXPECT_LT(half, 1.0);
  // One replica fewer: 128 sequences round to 135 (9 per replica).
  const double fifteen = jobs.share(15);
  EXPECT_NE(fifteen, 15.0 / 16.0);
  EXPECT_EQ(jobs.jobs().at(15).global_batch, 135);
  EXPECT_EQ(jobs.jobs().at(8).gpus, 32);
  EXPECT_DOUBLE_EQ(jobs.jobs().at(16).share, 1.0);
  // The same numbers as `ctwin scale --batch nearest` at that size.
  ScalingOptions options;
  options.gpus = {32, 64};
  const auto study = evaluate_scaling(exposed_dp_scenario(), context, options);
  EXPECT_DOUBLE_EQ(half, study.points[0].report.tokens_per_s / study.points[1].report.tokens_per_s);
  // Computed once per replica count.
  EXPECT_DOUBLE_EQ(jobs.share(8), half);
  EXPECT_EQ(jobs.jobs().size(), 3u);
}

}  // namespace
}  // namespace ctwin::api

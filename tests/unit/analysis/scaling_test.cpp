// Scaling studies: linearity is defined against the smallest size that runs, strong scaling
// keeps the global batch (rounded to the nearest that runs, unless it is fixed), weak scaling
// grows it with the GPU count, and a size the split cannot use is reported with its reason
// instead of stopping the study.

#include <gtest/gtest.h>

#include <algorithm>

#include "ctwin/analysis/scaling.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::analysis {
namespace {

ScalingQuery query_for(std::vector<std::int64_t> gpus, bool weak, BatchPolicy strong = BatchPolicy::kNearest) {
  ScalingQuery query;
  query.scenario = std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json";
  query.repo_root = CTWIN_SOURCE_DIR;
  query.overrides = {"network=analytical"};
  query.gpus = std::move(gpus);
  query.batch = weak ? BatchPolicy::kPerReplica : strong;
  return query;
}

TEST(Scaling, LinearityIsThroughputOverTheSmallestSizeTimesTheRatio) {
  const auto study = run_scaling(query_for({16, 32, 64}, false));
  ASSERT_EQ(study.points.size(), 3U);
  for (const auto& point : study.points) {
    ASSERT_TRUE(point.invalid.empty()) << point.invalid;
    EXPECT_EQ(point.global_batch, 128);  // strong scaling keeps the scenario's batch
    const double expected = point.report.tokens_per_s /
                            (study.points.front().report.tokens_per_s * static_cast<double>(point.gpus) / 16.0);
    EXPECT_DOUBLE_EQ(point.linearity, expected);
    EXPECT_LE(point.linearity, 1.0 + 1e-12) << "adding GPUs never beats linear here";
  }
  EXPECT_DOUBLE_EQ(study.points.front().linearity, 1.0);
}

TEST(Scaling, EachPointIsTheScenarioRunAtThatSize) {
  const auto study = run_scaling(query_for({32}, false));
  const auto scenario = replay::load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json",
                                              CTWIN_SOURCE_DIR, {"network=analytical", "gpus=32"});
  EXPECT_DOUBLE_EQ(study.points.front().report.step_time_s, replay::simulate_step(scenario).report.step_time_s);
}

TEST(Scaling, JobsDoNotChangeTheStudy) {
  auto serial = query_for({8, 16, 32, 64, 96}, false);
  auto parallel = serial;
  parallel.jobs = 3;
  std::vector<std::size_t> counts;
  std::vector<std::int64_t> sizes;
  parallel.progress = [&](std::size_t i, std::size_t n, std::int64_t gpus) {
    EXPECT_EQ(n, 5u);
    counts.push_back(i);
    sizes.push_back(gpus);
  };
  const auto one = run_scaling(serial);
  const auto three = run_scaling(parallel);
  ASSERT_EQ(one.points.size(), three.points.size());
  for (std::size_t i = 0; i < one.points.size(); ++i) {
    EXPECT_EQ(three.points[i].gpus, one.points[i].gpus);
    EXPECT_EQ(three.points[i].invalid, one.points[i].invalid);
    EXPECT_EQ(three.points[i].report.step_time_s, one.points[i].report.step_time_s);
    EXPECT_EQ(three.points[i].linearity, one.points[i].linearity);
  }
  EXPECT_EQ(counts, (std::vector<std::size_t>{0, 1, 2, 3, 4}));  // every size reported once, invalid ones too
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{8, 16, 32, 64, 96}));
}

TEST(Scaling, WeakScalingGrowsTheBatchWithTheGpus) {
  const auto study = run_scaling(query_for({16, 64, 256}, true));
  // The scenario runs 128 sequences on 64 GPUs: 2 per GPU at every size.
  EXPECT_EQ(study.points[0].global_batch, 32);
  EXPECT_EQ(study.points[1].global_batch, 128);
  EXPECT_EQ(study.points[2].global_batch, 512);
  for (const auto& point : study.points) EXPECT_EQ(point.report.dp * 4, point.gpus);  // tp 2 × pp 2
}

TEST(Scaling, AFixedBatchLeavesSizesItDoesNotDivideInvalid) {
  // 96 GPUs are dp 24 under tp 2 × pp 2; 128 sequences do not split over 24 replicas.
  const auto study = run_scaling(query_for({64, 96}, false, BatchPolicy::kFixed));
  EXPECT_TRUE(study.points[0].invalid.empty());
  EXPECT_NE(study.points[1].invalid.find("global_batch"), std::string::npos) << study.points[1].invalid;
  EXPECT_EQ(study.points[1].global_batch, 128);
}

TEST(Scaling, TheNearestBatchIsAMultipleOfMicroBatchTimesDpAndSaysSo) {
  const auto study = run_scaling(query_for({64, 96, 1024}, false));
  EXPECT_EQ(study.batch, BatchPolicy::kNearest);
  EXPECT_EQ(study.points[0].global_batch, 128);  // divisible: the scenario's, with no note
  EXPECT_TRUE(study.points[0].batch_note.empty());
  // 128 / (1 × 24) = 5.33: five micro-batches per replica, 120 sequences.
  ASSERT_TRUE(study.points[1].invalid.empty()) << study.points[1].invalid;
  EXPECT_EQ(study.points[1].global_batch, 120);
  EXPECT_EQ(study.points[1].report.micro_batches, 5);
  EXPECT_NE(study.points[1].batch_note.find("dp 24"), std::string::npos) << study.points[1].batch_note;
  // dp 256 exceeds the batch: one micro-batch per replica at least.
  ASSERT_TRUE(study.points[2].invalid.empty()) << study.points[2].invalid;
  EXPECT_EQ(study.points[2].global_batch, 256);
}

TEST(Scaling, PerReplicaKeepsEachReplicasShare) {
  const auto study = run_scaling(query_for({32, 96}, true));
  EXPECT_EQ(study.points[0].global_batch, 64);   // 2 sequences per replica × dp 8
  EXPECT_EQ(study.points[1].global_batch, 192);  // × dp 24
  EXPECT_EQ(parse_batch_policy("per-replica", "--batch"), BatchPolicy::kPerReplica);
  EXPECT_THROW((void)parse_batch_policy("weak", "--batch"), InputError);
}

TEST(Scaling, SizesTheSplitCannotUseAreReportedNotFatal) {
  const auto study = run_scaling(query_for({6, 16}, false));
  EXPECT_FALSE(study.points[0].invalid.empty());  // 6 GPUs cannot hold tp 2 × pp 2
  EXPECT_TRUE(study.points[1].invalid.empty());
  EXPECT_DOUBLE_EQ(study.points[1].linearity, 1.0);
  EXPECT_THROW((void)run_scaling(query_for({6}, false)), InputError);
  EXPECT_THROW((void)run_scaling(query_for({64, 16}, false)), InputError);
}

}  // namespace
}  // namespace ctwin::analysis

// Scaling validation: the bundled strong-scaling study (Megatron-LM's GPT-3 177B on 96 to 4,608
// H100) runs at every plotted size and is compared with the two published MFUs; the cases file
// is read strictly. Nothing asserts the error is small: the numbers are printed for the README.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ctwin/analysis/scaling_validation.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/training_validation.hpp"
#include "source_root.hpp"

namespace ctwin::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kStudies = kRootDir / "validation/training/scaling.json";

const ScalingCase& megatron_strong() {
  static const ScalingCases cases = load_scaling_cases(kStudies, kRootDir);
  return cases.studies.at(0);
}

// The analytical network keeps the eight sizes to seconds; README gives the flow numbers too.
const ScalingComparison& analytical_comparison() {
  static const ScalingComparison comparison = validate_scaling(megatron_strong(), kRootDir, network::ModelKind::kAnalytical);
  return comparison;
}

TEST(ScalingValidation, BundledStudyIsMegatronStrongScalingAtThePlottedSizes) {
  const ScalingCase& study = megatron_strong();
  EXPECT_EQ(study.id, "megatron-core-h100-strong-177B");
  EXPECT_EQ(study.gpus, (std::vector<std::int64_t>{96, 144, 288, 576, 1152, 2304, 3072, 4608}));
  EXPECT_FALSE(study.weak);
  ASSERT_EQ(study.measured.size(), 2U);
  EXPECT_EQ(study.measured[0].gpus, 96);
  EXPECT_DOUBLE_EQ(study.measured[0].mfu, 0.47);
  EXPECT_EQ(study.measured[1].gpus, 4608);
  EXPECT_DOUBLE_EQ(study.measured[1].mfu, 0.42);
  EXPECT_DOUBLE_EQ(study.mfu_rounding, 0.005);
}

TEST(ScalingValidation, MeasuredPointsAreTheTrainingCasesOfTheSameRuns) {
  const auto cases = replay::load_training_cases(kRootDir / "validation/training/cases.json", kRootDir);
  for (const MeasuredMfu& m : megatron_strong().measured) {
    const auto it = std::find_if(cases.cases.begin(), cases.cases.end(), [&](const auto& c) { return c.id == m.run; });
    ASSERT_NE(it, cases.cases.end()) << m.run << " is a training case too";
    EXPECT_EQ(it->metric, replay::TrainingMetric::kMfu);
    EXPECT_DOUBLE_EQ(it->measured, m.mfu);
    EXPECT_EQ(it->scenario.gpus, m.gpus);
    // The case is the study's scenario at that size: the same prediction.
    const auto case_result = replay::validate_training({&*it}, network::ModelKind::kAnalytical);
    const auto& point = *std::find_if(analytical_comparison().points.begin(), analytical_comparison().points.end(),
                                      [&](const MfuComparison& p) { return p.measured.gpus == m.gpus; });
    EXPECT_DOUBLE_EQ(case_result.at(0).predicted, point.predicted) << m.run;
  }
}

TEST(ScalingValidation, StrongScalingOfGpt3OnH100PredictedVsMeasured) {
  const ScalingComparison& c = analytical_comparison();
  ASSERT_EQ(c.study.points.size(), 8U);
  std::printf("GPT-3 177B strong scaling, analytical network (global batch 1152, tp 8, pp 6, vpp 8):\n");
  for (const auto& p : c.study.points) {
    ASSERT_TRUE(p.invalid.empty()) << p.gpus << ": " << p.invalid;
    EXPECT_TRUE(std::isfinite(p.report.mfu) && p.report.mfu > 0) << p.gpus;
    EXPECT_TRUE(p.report.fits_memory) << p.gpus;
    EXPECT_EQ(p.report.dp * 48, p.gpus);  // tp 8 x pp 6
    std::printf("  %5lld GPUs  dp %3lld  step %.3f s  MFU %.1f %%  bubble %.1f %%  comm %.1f %%\n",
                static_cast<long long>(p.gpus), static_cast<long long>(p.report.dp), p.report.step_time_s,
                100 * p.report.mfu, 100 * p.report.breakdown.bubble_s / p.report.step_time_s, 100 * p.report.comm_ratio);
  }
  ASSERT_EQ(c.points.size(), 2U);
  for (const auto& p : c.points) {
    std::printf("  %lld GPUs: predicted MFU %.1f %%, measured %.0f %%, error %+.1f %%\n",
                static_cast<long long>(p.measured.gpus), 100 * p.predicted, 100 * p.measured.mfu, 100 * p.error);
    EXPECT_DOUBLE_EQ(p.error, p.predicted / p.measured.mfu - 1);
  }
  std::printf("  MFU(4608) / MFU(96): measured %.3f [%.3f, %.3f], predicted %.3f: trend %s\n", c.measured_ratio,
              c.measured_ratio_low, c.measured_ratio_high, c.predicted_ratio,
              c.trend_reproduced() ? "reproduced" : "not reproduced");
  // What is true of the twin, not a tolerance on the error: a fixed batch over more replicas
  // leaves fewer micro-batches each, so MFU falls from end to end.
  EXPECT_LT(c.predicted_ratio, 1.0);
  EXPECT_DOUBLE_EQ(c.predicted_ratio, c.points[1].predicted / c.points[0].predicted);
  EXPECT_DOUBLE_EQ(c.measured_ratio, 0.42 / 0.47);
  EXPECT_DOUBLE_EQ(c.measured_ratio_low, 0.415 / 0.475);
  EXPECT_DOUBLE_EQ(c.measured_ratio_high, 0.425 / 0.465);
}

// A scaling cases file with one edit, to check that the reader refuses it.
class ScalingCasesFile : public ::testing::Test {
 protected:
  void TearDown() override { fs::remove(path_); }
  ::testing::AssertionResult refused(const nlohmann::json& doc, const std::string& pointer) {
    path_ = fs::temp_directory_path() /
            ("ctwin-scaling-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
    std::ofstream(path_) << doc.dump();
    try {
      (void)load_scaling_cases(path_, kRootDir);
    } catch (const InputError& e) {
      const std::string text = e.what();
      if (text.find(path_.string()) != std::string::npos && text.find(pointer) != std::string::npos) {
        return ::testing::AssertionSuccess();
      }
      return ::testing::AssertionFailure() << "message lacks the file or " << pointer << ": " << text;
    }
    return ::testing::AssertionFailure() << "accepted";
  }
  static nlohmann::json original() { return load_json_file(kStudies); }
  fs::path path_;
};

TEST_F(ScalingCasesFile, RefusesBadStudies) {
  auto doc = original();
  doc["studies"][0]["measured"][0]["mfu"] = 47;  // a percentage
  EXPECT_TRUE(refused(doc, "/studies/0/measured/0/mfu"));
  doc = original();
  doc["studies"][0]["measured"][1]["gpus"] = 4000;
  EXPECT_TRUE(refused(doc, "/studies/0/measured/1/gpus"));
  doc = original();
  doc["studies"][0]["measured"].erase(1);
  EXPECT_TRUE(refused(doc, "/studies/0/measured"));
  doc = original();
  doc["studies"][0]["gpus"] = {4608, 96};
  EXPECT_TRUE(refused(doc, "/studies/0/gpus"));
  doc = original();
  doc["studies"][0]["scenario"] = "scenarios/no-such.json";
  EXPECT_TRUE(refused(doc, "/studies/0/scenario"));
  doc = original();
  doc["studies"][0]["tolerance"] = 0.1;
  EXPECT_TRUE(refused(doc, "/studies/0/tolerance"));
  doc = original();
  doc["studies"].push_back(doc["studies"][0]);
  EXPECT_TRUE(refused(doc, "/studies/1/id"));
}

}  // namespace
}  // namespace ctwin::analysis

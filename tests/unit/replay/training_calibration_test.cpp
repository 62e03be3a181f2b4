// A GPU's training_time_scale fitted on measured runs: the fit returns the factor synthetic
// measurements were made with, and cross-validation keeps each run out of the fit that predicts it.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/training_calibration.hpp"
#include "source_root.hpp"

namespace ctwin::replay {
namespace {

namespace fs = std::filesystem;

const std::optional<network::ModelKind> kAnalytical = network::ModelKind::kAnalytical;

// Bundled cases (all fast on `analytical`) whose measurements are replaced by what the twin
// predicts with a known scale: the fit must find that scale again.
class SyntheticRuns : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (cases_ == nullptr) cases_ = new TrainingCases(load_training_cases(kRootDir / "validation/training/cases.json", kRootDir));
  }
  const TrainingCase& bundled(const std::string& id) const {
    for (const auto& c : cases_->cases) {
      if (c.id == id) return c;
    }
    throw std::runtime_error("no bundled case " + id);
  }
  // A copy of a bundled case measured as the twin predicts it at `scale`, in source group `group`.
  const TrainingCase* made_at(const std::string& id, double scale, const std::string& group) {
    TrainingCase c = bundled(id);
    c.group = group;
    c.measured = predict_at_scale({&c}, scale, kAnalytical, 1).front().predicted;
    owned_.push_back(std::make_unique<TrainingCase>(std::move(c)));
    return owned_.back().get();
  }
  static inline TrainingCases* cases_ = nullptr;
  std::vector<std::unique_ptr<TrainingCase>> owned_;
};

const std::string kLlama3 = "nemo2407-llama3-8b-8gpu";
const std::string kLlama2 = "nemo2407-llama2-7b-8gpu";
const std::string kGpt5b = "nemo2407-gpt3-5b-64gpu";
const std::string kQwenMoe = "mbridge-25.11-qwen330ba3b-dgx-h100-fp8-cs-16gpu-pre-training";
const std::string kA100 = "megatron-sc21-table1-1.7B";

TEST(ScaleCurve, InterpolatesBetweenPointsAndExtendsItsEndSegments) {
  ScaleCurve curve{{0.0, 0.2, 0.5}, {10.0, 9.8, 9.6}};
  EXPECT_DOUBLE_EQ(curve.at(0.1), 9.9);
  EXPECT_DOUBLE_EQ(curve.at(0.35), 9.7);
  EXPECT_DOUBLE_EQ(curve.at(-0.1), 10.1);               // first segment's slope, −1
  EXPECT_NEAR(curve.at(0.8), 9.6 - 0.3 * 2.0 / 3, 1e-12);  // last segment's, −2/3
  // One point: throughput inversely proportional to the scale.
  EXPECT_DOUBLE_EQ((ScaleCurve{{0.1}, {5.0}}.at(0.4)), 4.7);
}

TEST(ScaleCurve, SolveInvertsProportionalCurvesExactly) {
  // ln(predicted) = a − x: the root of mean(a_j − x − ln m_j) is the mean of a_j − ln m_j.
  const ScaleCurve a{{0.0, 1.0}, {3.0, 2.0}};
  const ScaleCurve b{{0.0, 1.0}, {5.0, 4.0}};
  const std::vector<double> log_measured{2.9, 4.6};
  EXPECT_NEAR(solve_log_scale({&a, &b}, log_measured), ((3.0 - 2.9) + (5.0 - 4.6)) / 2, 1e-9);
  // Beyond the profile format's bounds the answer stops at them.
  EXPECT_NEAR(solve_log_scale({&a}, {-10.0}), std::log(4.0), 1e-12);
}

TEST_F(SyntheticRuns, FitReturnsTheFactorTheMeasurementsWereMadeWith) {
  const std::vector<const TrainingCase*> runs{made_at(kLlama3, 1.3, "g"), made_at(kGpt5b, 1.3, "g")};
  std::vector<CalibrationStep> steps;
  const auto fit = fit_training_time_scale(runs, kAnalytical, 2, [&](const CalibrationStep& s) { steps.push_back(s); });
  EXPECT_NEAR(fit.scale, 1.3, 1.3 * 1e-3);
  // One progress step per scale simulated, numbered from 1, the first at the base scale and the
  // last the fitted one.
  ASSERT_EQ(steps.size(), static_cast<std::size_t>(fit.rounds));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].kind, CalibrationStep::Kind::kRound);
    EXPECT_EQ(steps[i].round, static_cast<int>(i) + 1);
    EXPECT_EQ(steps[i].gpu, runs.front()->scenario.gpu.name);
  }
  EXPECT_DOUBLE_EQ(steps.front().scale, 1.0);
  EXPECT_GT(steps.front().geometric_mean_error, 0.1);
  EXPECT_NEAR(steps.back().scale, fit.scale, 1e-12 * fit.scale);
  EXPECT_NEAR(steps.back().geometric_mean_error, fit.geometric_mean_error, 1e-12);
  EXPECT_LT(std::abs(fit.geometric_mean_error), 6e-4);
  EXPECT_GE(fit.rounds, 2);
  EXPECT_DOUBLE_EQ(fit.base_scale, 1.0);
  ASSERT_EQ(fit.at_base.size(), 2u);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(fit.at_base[i].training_case, runs[i]);
    EXPECT_GT(fit.at_base[i].error, 0.1) << "the base profile is faster than the synthetic measurement";
    EXPECT_NEAR(fit.at_scale[i].error, 0, 2e-3);
    EXPECT_GE(fit.curves[i].log_scales.size(), 2u);
  }
  // The step does not all stretch with the kernels: throughput falls by less than the scale.
  EXPECT_LT(fit.at_base[1].predicted / fit.at_scale[1].predicted, 1.3 + 1e-9);
}

TEST_F(SyntheticRuns, FitRefusesRunsOfTwoGpus) {
  EXPECT_THROW((void)fit_training_time_scale({&bundled(kLlama3), &bundled(kA100)}, kAnalytical, 1), InputError);
  EXPECT_THROW((void)fit_training_time_scale({}, kAnalytical, 1), InputError);
}

TEST_F(SyntheticRuns, CrossValidationKeepsEachRunOutOfTheFitThatPredictsIt) {
  const TrainingCase* llama3 = made_at(kLlama3, 1.3, "A");
  const TrainingCase* gpt = made_at(kGpt5b, 1.3, "A");
  const TrainingCase* outlier = made_at(kLlama2, 1.6, "B");
  const TrainingCase* moe = made_at(kQwenMoe, 1.45, "B");
  const TrainingCase* lone = made_at(kA100, 1.2, "C");
  const auto cv = cross_validate_training({llama3, gpt, outlier, moe, lone}, kAnalytical, 2);
  ASSERT_EQ(cv.runs.size(), 5u);
  std::map<const TrainingCase*, const CrossValidatedRun*> by_case;
  for (const auto& run : cv.runs) by_case[run.training_case] = &run;

  // Fitted on the two runs made at 1.3, the outlier is predicted too fast; had it been in its own
  // fit, its error would be smaller.
  const auto& o = *by_case.at(outlier);
  EXPECT_TRUE(o.dense);
  EXPECT_EQ(o.fitted_on, 2u);
  EXPECT_NEAR(o.scale, 1.3, 0.03);
  ASSERT_TRUE(o.calibrated.has_value());
  EXPECT_GT(o.calibrated->error, 0.1);
  // Its other source is group A: the same two runs.
  ASSERT_TRUE(o.other_sources.has_value());
  EXPECT_EQ(o.other_sources_runs, 2u);
  EXPECT_DOUBLE_EQ(o.other_sources_scale, o.scale);

  // Each run of group A is fitted on one run of its group and the outlier; its other source is
  // the outlier alone, whose scale is 1.6.
  for (const TrainingCase* c : {llama3, gpt}) {
    const auto& run = *by_case.at(c);
    EXPECT_EQ(run.fitted_on, 2u);
    EXPECT_GT(run.scale, 1.3);
    EXPECT_LT(run.scale, 1.6);
    ASSERT_TRUE(run.other_sources.has_value());
    EXPECT_EQ(run.other_sources_runs, 1u);
    EXPECT_NEAR(run.other_sources_scale, 1.6, 1.6 * 2e-3);
    EXPECT_LT(run.other_sources->error, -0.05);
    EXPECT_GT(run.uncalibrated.error, 0.1);
  }

  // The MoE run is never fitted on: it takes the scale of all three dense runs.
  const auto& m = *by_case.at(moe);
  EXPECT_FALSE(m.dense);
  EXPECT_EQ(m.fitted_on, 3u);
  ASSERT_TRUE(m.calibrated.has_value());
  EXPECT_FALSE(m.other_sources.has_value());
  const auto h100 = std::find_if(cv.gpus.begin(), cv.gpus.end(), [&](const auto& g) { return g.gpu == llama3->scenario.gpu.name; });
  ASSERT_NE(h100, cv.gpus.end());
  EXPECT_EQ(h100->dense_runs, 3u);
  EXPECT_DOUBLE_EQ(m.scale, h100->scale);
  EXPECT_GT(h100->scale, 1.3);
  EXPECT_LT(h100->scale, 1.6);

  // Alone on its GPU, the A100 run has nothing to be fitted on.
  const auto& a = *by_case.at(lone);
  EXPECT_FALSE(a.calibrated.has_value());
  EXPECT_FALSE(a.other_sources.has_value());
  EXPECT_GT(a.uncalibrated.error, 0.1);
}

// models/gpus/calibrated (validation/training/calibrate_profiles.sh): each is its bundled profile,
// GEMM rates and all, with the scale its fit report gives; none is missing its report.
TEST(CalibratedProfiles, AreTheBundledOnesWithTheirFittedScale) {
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(kRootDir / "models/gpus/calibrated")) {
    // Subfolders hold profiles calibrated otherwise (gemm/: GEMM tables fitted to a measured sweep).
    if (!entry.is_regular_file()) continue;
    const std::string stem = entry.path().stem().string();
    SCOPED_TRACE(stem);
    const auto calibrated = compute::load_gpu_spec(entry.path());
    const auto base = compute::load_gpu_spec(kRootDir / "models/gpus" / (stem + ".json"));
    const auto report = load_json_file(kRootDir / "validation/training/calibration" / (stem + ".json"));
    EXPECT_EQ(calibrated.name, base.name) << "a calibrated profile keeps its base's name (--profiles matches on it)";
    EXPECT_DOUBLE_EQ(base.training_time_scale, 1.0);
    EXPECT_DOUBLE_EQ(calibrated.training_time_scale, report.at("training_time_scale").get<double>());
    EXPECT_GT(calibrated.training_time_scale, 1.0);
    EXPECT_NE(calibrated.sources.at("training_time_scale").find("calibrate --training"), std::string::npos);
    for (const auto dtype : {compute::Dtype::kBf16, compute::Dtype::kFp8}) {
      if (!base.peak_dense.contains(dtype)) continue;  // A100: no fp8
      const compute::GemmShape shape{8192, 8192, 8192, dtype};
      EXPECT_EQ(compute::estimate_gemm(calibrated, shape).time, compute::estimate_gemm(base, shape).time);
    }
    ++seen;
  }
  EXPECT_EQ(seen, 6u);
}

}  // namespace
}  // namespace ctwin::replay

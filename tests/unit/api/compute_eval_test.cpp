#include "ctwin/api/compute_eval.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ctwin/api/calibration_json.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/calibration/gemm_csv.hpp"
#include "ctwin/core/error.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ctwin-compute-eval-" + name)).string();
}

double median_abs(std::vector<double> values) {
  for (double& v : values) v = std::fabs(v);
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

TEST(EvaluateGemm, EachRowIsTheModelsEstimateAndItsJsonSaysSo) {
  const compute::GpuSpec gpu = load_gpu_option("h100-sxm");
  const std::vector<compute::GemmShape> shapes{{4096, 4096, 4096, compute::Dtype::kBf16},
                                               {16, 8192, 2048, compute::Dtype::kFp8}};
  const GemmPrediction prediction = evaluate_gemm(gpu, shapes);
  ASSERT_EQ(prediction.rows.size(), 2u);
  const auto json = gemm_json(prediction);
  EXPECT_EQ(json.at("gpu"), gpu.name);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto expected = compute::estimate_gemm(gpu, shapes[i]);
    EXPECT_EQ(prediction.rows[i].estimate.time, expected.time);
    const auto& row = json.at("rows").at(i);
    EXPECT_DOUBLE_EQ(row.at("time_us").get<double>(), expected.time.microseconds());
    // 2·M·N·K floating-point operations in that time.
    const double flops = 2.0 * shapes[i].m * shapes[i].n * shapes[i].k;
    EXPECT_NEAR(row.at("tflops").get<double>(), flops / expected.time.seconds() / 1e12, 1e-9 * row.at("tflops").get<double>());
  }
}

TEST(GpuProfile, UnknownNamesAreErrorsNamingTheGivenField) {
  try {
    (void)resolve_gpu_path("no-such-gpu", "gpu");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "gpu");
    EXPECT_NE(std::string(e.what()).find("h100-sxm"), std::string::npos) << "lists the bundled profiles";
  }
}

// The written profile predicts the held-out shapes with the error the result reports (to the 5
// significant digits the file keeps of each efficiency), and the fit beats the uncalibrated base.
TEST(CalibrateGemm, TheWrittenProfileReproducesTheHeldOutError) {
  const std::string output = temp_file("h200.json");
  const std::string holdout = kRoot + "/validation/gemm/h200-holdout.csv";
  const GemmCalibration result =
      calibrate_gemm({kRoot + "/validation/gemm/h200-fit.csv", "h200", output, holdout});
  ASSERT_TRUE(result.holdout.has_value());
  const auto sweep = calibration::read_gemm_csv(holdout, calibration::MeasurementColumn::kRequired);
  EXPECT_EQ(result.holdout->overall.count, sweep.rows.size());
  const compute::GpuSpec calibrated = compute::load_gpu_spec(output);
  const compute::GpuSpec base = load_gpu_option("h200");
  std::vector<double> after, before;
  for (const auto& row : sweep.rows) {
    after.push_back(compute::estimate_gemm(calibrated, row.shape).time.seconds() / row.time_s - 1);
    before.push_back(compute::estimate_gemm(base, row.shape).time.seconds() / row.time_s - 1);
  }
  EXPECT_NEAR(median_abs(after), result.holdout->overall.median_abs, 1e-3 * result.holdout->overall.median_abs);
  EXPECT_LT(median_abs(after), median_abs(before));
  std::filesystem::remove(output);
}

// The per-size rows are the numbers the pooled summaries were taken from.
TEST(CalibrateNccl, RowsMatchThePooledErrorsOfFitAndHoldout) {
  NcclCalibrationRequest request;
  const std::string logs = kRoot + "/validation/nccl/logs/aic-h100_sxm-";
  request.cluster = kRoot + "/topologies/dgx-h100-superpod.json";
  request.logs = {logs + "all_reduce-half-8gpu.log@8"};
  request.holdout = {logs + "all_gather-half-8gpu.log@8"};
  request.output = temp_file("nccl.json");
  request.network = network::ModelKind::kAnalytical;
  request.rows = true;
  const NcclCalibrationResult result = calibrate_nccl(request);
  std::vector<double> fit_before, fit_after, held_before, held_after;
  for (const auto& row : result.rows) {
    EXPECT_NEAR(row.calibrated_error, row.calibrated_busbw_GBps / row.measured_busbw_GBps - 1, 1e-9);
    (row.held_out ? held_before : fit_before).push_back(row.default_error);
    (row.held_out ? held_after : fit_after).push_back(row.calibrated_error);
  }
  EXPECT_EQ(fit_before.size(), static_cast<std::size_t>(result.report.fit_before.count));
  EXPECT_EQ(held_after.size(), static_cast<std::size_t>(result.report.holdout_after.count));
  EXPECT_DOUBLE_EQ(median_abs(fit_before), result.report.fit_before.median_abs);
  EXPECT_DOUBLE_EQ(median_abs(fit_after), result.report.fit_after.median_abs);
  EXPECT_DOUBLE_EQ(median_abs(held_before), result.report.holdout_before.median_abs);
  EXPECT_DOUBLE_EQ(median_abs(held_after), result.report.holdout_after.median_abs);
  EXPECT_EQ(nccl_size_rows_json(result).size(), result.rows.size());
  std::filesystem::remove(request.output);
}

}  // namespace
}  // namespace ctwin::api

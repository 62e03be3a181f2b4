// The project's own H100 measurements (validation/layers/h100-*.json, taken with
// validation/collect/layer_bench.py on one H100 80GB HBM3) against the compute twin: the layer
// model's bias is what they show, the shipped profile made from them is their refit, and the
// scale fitted on these four layers alone (no training run seen) predicts the published dense
// H100 training runs.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ctwin/api/layer.hpp"
#include "ctwin/api/profile_scale.hpp"
#include "ctwin/validation/training_validation.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error_stats.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

const std::string kLayers = kRoot + "/validation/layers/h100-layers.json";
const std::string kLayerProfile = kRoot + "/models/gpus/calibrated/layers/h100-sxm.json";

TEST(H100Measurements, TheLayerProfileIsTheRefitOfTheMeasuredLayers) {
  const auto output = std::filesystem::temp_directory_path() / "ctwin-h100-layers-refit.json";
  const LayerCalibration refit =
      calibrate_layers({kLayers, kRoot + "/models/gpus/h100-sxm.json", output.string(), std::nullopt});
  EXPECT_EQ(refit.fit.fitted.size(), 4u);  // the hot rows
  EXPECT_NEAR(refit.fit.scale, compute::load_gpu_spec(kLayerProfile).training_time_scale, 1e-9);
  std::filesystem::remove(output);
}

// Measured data as the oracle: the kernel sum of the shipped H100 profile is 13-25 % short of every
// measured layer, forward and backward, cool and hot; the profile scaled on the hot layers' sums
// is within 8 % of every pass (one scale for both passes; cool rows ran at other clocks).
TEST(H100Measurements, TheLayerModelIsFastOnEveryMeasuredLayerAndTheScaleClosesIt) {
  replay::LayerQuery query;
  query.gpu = "h100-sxm";
  const LayerComparison shipped = compare_layers(query, kLayers);
  ASSERT_EQ(shipped.rows.size(), 8u);
  for (const auto& row : shipped.rows) {
    SCOPED_TRACE(row.measured.model + " " + std::to_string(row.measured.seq_len) + " " + row.measured.phase);
    for (const double error : {row.forward_error, row.backward_error}) {
      EXPECT_LT(error, -0.13);
      EXPECT_GT(error, -0.25);
    }
  }
  query.gpu = kLayerProfile;
  for (const auto& row : compare_layers(query, kLayers).rows) {
    EXPECT_LT(std::abs(row.forward_error), 0.08);
    EXPECT_LT(std::abs(row.backward_error), 0.08);
  }
}

// The scale fitted at tensor parallelism 1 holds for one rank's share at TP 2-8 (Llama 3 8B, 70B and
// 405B at 8,192 tokens with sequence parallelism, the collectives left out;
// validation/layers/h100-tp-layers.json), which the fit never saw: 1.6 % median on the hot rows.
TEST(H100Measurements, TheScaleHoldsForTensorParallelShards) {
  const auto output = std::filesystem::temp_directory_path() / "ctwin-h100-tp-holdout.json";
  const LayerCalibration fit = calibrate_layers({kLayers, kRoot + "/models/gpus/h100-sxm.json", output.string(),
                                                 kRoot + "/validation/layers/h100-tp-layers.json"});
  std::filesystem::remove(output);
  ASSERT_EQ(fit.fit.held_out.size(), 6u);
  for (const auto& row : fit.fit.held_out) EXPECT_GT(row.measured.tp, 1);
  ASSERT_TRUE(fit.fit.held_out_median_abs_error.has_value());
  EXPECT_LT(*fit.fit.held_out_median_abs_error, 0.05);
  for (const auto& row : fit.fit.held_out) EXPECT_LT(std::abs(row.error), 0.10);
}

// MoE layers at expert parallelism 1 (Qwen3-30B-A3B, Mixtral 8x7B, Qwen3-235B-A22B at 4,096 and
// 8,192 tokens; validation/layers/h100-moe-layers.json): the uncalibrated twin's layer (router,
// dispatch sync, permutation, grouped GEMMs, host issue) is within 20 % of each hot layer, fast or
// slow, unlike the dense layers' uniform 13-25 % shortfall: one GPU's MoE layer is not where the
// published MoE runs' 41-186 % over-prediction comes from (docs/moe-kernels.md).
TEST(H100Measurements, MoeLayersAtExpertParallelismOneAreWithinTwentyPercent) {
  replay::LayerQuery query;
  query.gpu = "h100-sxm";
  const LayerComparison moe = compare_layers(query, kRoot + "/validation/layers/h100-moe-layers.json");
  ASSERT_EQ(moe.rows.size(), 12u);
  int faster = 0, slower = 0;
  for (const auto& row : moe.rows) {
    if (row.measured.phase != "hot") continue;
    SCOPED_TRACE(row.measured.model + " " + std::to_string(row.measured.seq_len));
    const double predicted = row.predicted.forward_ms + row.predicted.backward_ms;
    const double error = predicted / (row.measured.forward_ms + row.measured.backward_ms) - 1;
    EXPECT_LT(std::abs(error), 0.20);
    (error < 0 ? faster : slower) += 1;
  }
  EXPECT_GT(faster, 0);
  EXPECT_GT(slower, 0);
}

// The published dense runs on H100 SXM 80GB (NeMo 24.07, Megatron-Bridge 25.11, Megatron-LM's
// strong scaling), analytical network: uncalibrated the twin is 27 % fast in median; with the scale
// fitted on our four layers it is within 4 % median, no worse than a scale fitted on the runs
// themselves (4.9 % leaving each run out, docs/validation.md).
TEST(H100Measurements, TheLayerScalePredictsThePublishedDenseH100Runs) {
  const auto dense_h100_errors = [](const std::string& profiles) {
    TrainingValidationRequest request;
    request.network = network::ModelKind::kAnalytical;
    request.profiles = profiles;
    request.jobs = 2;
    TrainingValidation validation = load_training_validation(request);
    std::vector<const replay::TrainingCase*> chosen;
    for (const auto* c : validation.chosen) {
      if (c->scenario.gpu.name == "NVIDIA H100 SXM5 80GB" && !c->scenario.model.has_moe) chosen.push_back(c);
    }
    validation.chosen = chosen;
    run_training_validation(validation, request);
    std::vector<double> errors;
    for (const auto& result : validation.results) errors.push_back(result.error);
    return error_stats(errors);
  };
  const ErrorStats uncalibrated = dense_h100_errors("");
  const ErrorStats scaled = dense_h100_errors(kRoot + "/models/gpus/calibrated/layers");
  ASSERT_EQ(uncalibrated.count, 14u);
  ASSERT_EQ(scaled.count, 14u);
  EXPECT_GT(uncalibrated.median_abs, 0.20);
  EXPECT_LT(scaled.median_abs, 0.05);
  EXPECT_LT(scaled.max_abs, 0.20);
}

}  // namespace
}  // namespace ctwin::api

#pragma once
// `ctwin calibrate --training` for front ends: a GPU profile's training_time_scale fitted to the
// measured dense training runs on its GPU, the held-out and mixture-of-experts runs judged at the
// fitted scale, and the scaled profile written.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/replay/training_calibration.hpp"

namespace ctwin::api {

struct TrainingCalibrationRequest {
  std::string cases;                   ///< measured runs (a cases file like validation/training/cases.json)
  std::string base;                    ///< GPU profile: a file or a name under models/gpus
  std::string output;                  ///< the calibrated profile to write
  std::optional<std::string> holdout;  ///< another cases file, only judged
  std::vector<std::string> only;       ///< runs whose id contains one of these; empty: every one
  network::ModelKind network = network::ModelKind::kFlow;
  std::string network_name = "flow";   ///< as given, for the profile's source note
  unsigned jobs = 1;                   ///< runs simulated at once
  replay::CalibrationProgress progress;
  // Names of the inputs in errors: the CLI's flags, Python's keywords.
  std::string cases_field = "--training";
  std::string holdout_field = "--holdout";
  // The CLI names --gpu when the profile name is unknown and --base when its content is refused.
  std::string gpu_field = "--gpu";
  std::string base_field = "--base";
};

struct TrainingCalibration {
  std::string gpu;  ///< the base profile's name
  replay::TrainingCases cases;                   ///< own the runs the comparisons point to
  std::optional<replay::TrainingCases> holdout_cases;
  replay::TrainingScaleFit fit;                  ///< the dense runs of `cases` on the base's GPU
  std::vector<replay::TrainingComparison> held_base, held_scale;  ///< held-out runs at the base and the fitted scale
  std::vector<replay::TrainingComparison> moe_base, moe_scale;    ///< MoE runs of `cases`: judged, never fitted
  std::size_t other_gpus = 0;                    ///< runs of `cases` on another GPU, skipped
  double fit_median_abs_error = 0;
  std::optional<double> held_out_median_abs_error;
};

[[nodiscard]] TrainingCalibration calibrate_training(const TrainingCalibrationRequest& request,
                                                     const std::filesystem::path& repo_root = data_dir());

/// `ctwin calibrate --training --format json`.
[[nodiscard]] nlohmann::json training_calibration_json(const TrainingCalibration& calibration, const std::string& output);

/// Every judged run: [{set ("fit", "holdout" or "moe"), id, metric, measured, predicted_base,
/// error_base, predicted_fitted, error_fitted}] (errors: predicted / measured − 1).
[[nodiscard]] nlohmann::json training_calibration_rows_json(const TrainingCalibration& calibration);

}  // namespace ctwin::api

#pragma once
// Fitting a GPU profile's training_time_scale to measured layer times (`ctwin calibrate
// --layers`) and writing the scaled profile, as one call for the CLI and Python.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/replay/layer_calibration.hpp"

namespace ctwin::api {

/// Writes `base_path`'s profile with training_time_scale = `scale` and its `source` to `output`
/// (a borrowed GEMM table copied in, so the file works from any folder). InputError naming
/// `base_field` when the base borrows part of its table.
void write_profile_with_scale(const std::filesystem::path& base_path, double scale, const std::string& source,
                              const std::string& output, const std::string& base_field = "--base");

struct LayerCalibrationRequest {
  std::string layers;                  ///< measured layer times (validation/collect/layer_bench.py JSON)
  std::string base;                    ///< GPU profile: a file or a name under models/gpus
  std::string output;                  ///< the calibrated profile to write
  std::optional<std::string> holdout;  ///< measured layer times the fit never sees
  // The CLI names --gpu when the profile name is unknown and --base when its content is refused.
  std::string gpu_field = "--gpu";
  std::string base_field = "--base";
};

struct LayerCalibration {
  std::string measured_gpu;  ///< as the collector's machine named it
  replay::LayerFit fit;
};

/// Reads the measurements, fits the base profile's training_time_scale and writes the profile.
[[nodiscard]] LayerCalibration calibrate_layers(const LayerCalibrationRequest& request,
                                                const std::filesystem::path& repo_root = data_dir());

/// `ctwin calibrate --layers --format json`.
[[nodiscard]] nlohmann::json layer_calibration_json(const LayerCalibration& calibration, const std::string& output);

/// Every row of the fit: [{set ("fit" or "holdout"), model, seq_len, micro_batch, phase,
/// measured_ms (forward + backward), predicted_ms (the base profile as it is), error (after the
/// fit: scale × predicted / measured − 1)}].
[[nodiscard]] nlohmann::json layer_fit_rows_json(const LayerCalibration& calibration);

}  // namespace ctwin::api

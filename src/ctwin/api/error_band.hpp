#pragma once
// The error band of a prediction for front ends: the bundled held-out errors
// (models/error_bands.json, analysis/error_bands.hpp), a scenario's class, and the JSON that
// `run`, `scale`, `plan`, `size` and Python put beside each step time, throughput and MFU.

#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/analysis/error_bands.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {

/// The bundled file, relative to data_dir(), as band JSON names it.
inline constexpr const char* kErrorBandsFile = "models/error_bands.json";

/// models/error_bands.json under data_dir(), read strictly (an InputError naming it when broken).
[[nodiscard]] analysis::ErrorBands load_bundled_error_bands();

/// {"step_time_s": {p10, p90}, "tokens_per_s": {…}, "mfu": {…}, ["model_tflops_per_gpu": {…}]}: what
/// would be measured, p10 to p90, around the predicted figures (model_tflops_per_gpu 0: not
/// reported, left out). Lists of predictions carry these per entry and the class once.
[[nodiscard]] nlohmann::json error_band_intervals_json(const analysis::ErrorBand& band,
                                                       const replay::StepFigures& figures);
/// The class's JSON (analysis::error_band_class_json) with the intervals: one prediction's band.
[[nodiscard]] nlohmann::json error_band_json(const analysis::ErrorBand& band, const replay::StepFigures& figures);
/// The class's JSON alone, naming the bundled file.
[[nodiscard]] nlohmann::json error_band_class_json(const analysis::ErrorBand& band);

}  // namespace ctwin::api

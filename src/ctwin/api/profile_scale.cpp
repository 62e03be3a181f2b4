#include "ctwin/api/profile_scale.hpp"

#include <cstdio>
#include <utility>

#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/calibration/calibrated_profile.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::api {
namespace {

std::string one_decimal(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

void write_profile_with_scale(const std::filesystem::path& base_path, double scale, const std::string& source,
                              const std::string& output, const std::string& base_field) {
  nlohmann::json profile = load_json_file(base_path);
  // A borrowed GEMM table is named relative to the base's folder: the output, written anywhere,
  // carries the lender's table itself.
  if (profile.contains("gemm_table_from")) {
    if (profile.contains("gemm_table")) {
      throw InputError(base_field, "", "the profile borrows part of its GEMM table (gemm_table_from); calibrate the lender");
    }
    const auto lender = base_path.parent_path() / (profile["gemm_table_from"].get<std::string>() + ".json");
    profile["gemm_table"] = load_json_file(lender).at("gemm_table");
    if (!profile.contains("calibration") || !profile["calibration"].is_object()) profile["calibration"] = nlohmann::json::object();
    profile["calibration"]["gemm_table_copied_from"] = lender.filename().string() + " (was gemm_table_from: " +
                                                      profile["sources"].value("gemm_table_from", std::string()) + ")";
    profile.erase("gemm_table_from");
    profile["sources"].erase("gemm_table_from");
  }
  profile["training_time_scale"] = scale;
  profile["sources"]["training_time_scale"] = source;
  calibration::write_profile(profile, output);
}

LayerCalibration calibrate_layers(const LayerCalibrationRequest& request, const std::filesystem::path& repo_root) {
  const auto base_path = resolve_gpu_path(request.base, request.gpu_field);
  const auto measured = replay::read_layer_measurements(resolve_data_path(request.layers));
  std::optional<replay::LayerMeasurements> held_out;
  if (request.holdout) held_out = replay::read_layer_measurements(resolve_data_path(*request.holdout));
  LayerCalibration out{measured.gpu, replay::fit_training_time_scale(measured, held_out, base_path.string(), repo_root)};
  const auto& fit = out.fit;
  write_profile_with_scale(base_path, fit.scale,
                           "ctwin calibrate --layers " + request.layers + ": geometric mean of measured / predicted layer time over " +
                               std::to_string(fit.fitted.size()) + " " + fit.phase + " rows measured on " + measured.gpu +
                               " (median |error| after the fit " + one_decimal(100 * fit.fit_median_abs_error) + " %)",
                           request.output, request.base_field);
  return out;
}

nlohmann::json layer_calibration_json(const LayerCalibration& calibration, const std::string& output) {
  const auto& fit = calibration.fit;
  nlohmann::json out{{"output", output}, {"measured_gpu", calibration.measured_gpu}, {"phase", fit.phase},
                     {"base_scale", fit.base_scale}, {"training_time_scale", fit.scale},
                     {"fit_median_abs_error", fit.fit_median_abs_error}};
  if (fit.held_out_median_abs_error) out["holdout_median_abs_error"] = *fit.held_out_median_abs_error;
  return out;
}

nlohmann::json layer_fit_rows_json(const LayerCalibration& calibration) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [set, list] : {std::pair{"fit", &calibration.fit.fitted}, std::pair{"holdout", &calibration.fit.held_out}}) {
    for (const auto& row : *list) {
      const auto& m = row.measured;
      rows.push_back({{"set", set}, {"model", m.model}, {"seq_len", m.seq_len}, {"micro_batch", m.micro_batch}, {"tp", m.tp},
                      {"phase", m.phase}, {"measured_ms", m.forward_ms + m.backward_ms},
                      {"predicted_ms", row.predicted_ms}, {"error", row.error}});
    }
  }
  return rows;
}

}  // namespace ctwin::api

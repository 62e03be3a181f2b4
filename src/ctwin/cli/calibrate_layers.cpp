// ctwin calibrate --layers: a GPU profile's training_time_scale from measured layer times
// (validation/collect/layer_bench.py), written into a copy of the base profile.

#include <iostream>

#include "ctwin/api/profile_scale.hpp"
#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {
namespace {

void add_rows(Table& table, const std::string& set, const std::vector<replay::LayerFitRow>& rows) {
  for (const auto& row : rows) {
    const auto& m = row.measured;
    table.add_row({set, m.model, std::to_string(m.seq_len), std::to_string(m.micro_batch), std::to_string(m.tp), m.phase,
                   fixed(m.forward_ms + m.backward_ms, 3), fixed(row.predicted_ms, 3), signed_percent(row.error)});
  }
}

}  // namespace

void print_scale_headline(double scale, double base_scale, const std::string& from, const std::string& output,
                          double fit_median_abs_error, std::optional<double> held_out_median_abs_error) {
  std::cout << "training_time_scale " << fixed(scale, 4) << " (base " << fixed(base_scale, 4) << ") from " << from
            << " -> " << output << "\n  median |error|: fit " << fixed(100 * fit_median_abs_error, 1) << " %";
  if (held_out_median_abs_error) std::cout << ", held out " << fixed(100 * *held_out_median_abs_error, 1) << " %";
}

api::LayerCalibrationRequest layer_calibration_request(const CalibrateOptions& options) {
  if (options.base.empty()) throw InputError("--base", "", "required with --layers: the GPU profile to calibrate");
  if (options.output.empty()) throw InputError("-o", "", "required with --layers: where to write the calibrated profile");
  if (options.holdout.size() > 1) throw InputError("--holdout", "", "takes one layer file with --layers");
  api::LayerCalibrationRequest request{options.layers, options.base, options.output, std::nullopt};
  if (!options.holdout.empty()) request.holdout = options.holdout.front();
  return request;
}

void print_layer_calibration(const api::LayerCalibration& calibration, const CalibrateOptions& options, Format format) {
  const replay::LayerFit& fit = calibration.fit;
  const std::string& measured_gpu = calibration.measured_gpu;

  if (format == Format::kJson) {
    std::cout << json_text(api::layer_calibration_json(calibration, options.output), 2) << '\n';
    return;
  }
  if (format == Format::kTable) {
    print_scale_headline(fit.scale, fit.base_scale,
                         std::to_string(fit.fitted.size()) + " " + fit.phase + " layer timings on " + measured_gpu,
                         options.output, fit.fit_median_abs_error, fit.held_out_median_abs_error);
    std::cout << "\n";
  }
  Table table({"set", "model", "seq", "mb", "tp", "phase", "measured_ms", "predicted_ms", "error_after_fit"});
  add_rows(table, "fit", fit.fitted);
  add_rows(table, "holdout", fit.held_out);
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
}

}  // namespace ctwin::cli

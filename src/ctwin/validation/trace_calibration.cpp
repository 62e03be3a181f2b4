#include "ctwin/validation/trace_calibration.hpp"

#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/api/profile_scale.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::api {

TraceCalibration calibrate_trace(const TraceCalibrationRequest& request, const Scenario& scenario, EvalContext& context) {
  const auto base_path = resolve_gpu_path(request.base, request.base_field);
  TraceCalibration c;
  const nlohmann::json base = load_json_file(base_path);
  if (const auto s = base.find("training_time_scale"); s != base.end() && s->is_number()) c.base_scale = s->get<double>();
  c.before = validate_trace(request.trace, scenario.with("gpu", base_path.string()), context);
  const auto fitted_row = [](const TraceComparisonRow& row) {
    return !calibration::is_communication(row.kernel_class) && row.phase != "outside_layers";
  };
  for (const auto& row : c.before.rows) {
    if (!fitted_row(row)) continue;
    c.measured_compute_us += row.measured_us;
    c.predicted_compute_us += row.predicted_us;
  }
  if (c.measured_compute_us <= 0 || c.predicted_compute_us <= 0) {
    throw InputError(request.trace, "", "no compute kernels inside the layers to fit on (record_function ranges "
                                        "layer<i>/forward and layer<i>/backward, or a trace without ranges)");
  }
  c.scale = c.base_scale * c.measured_compute_us / c.predicted_compute_us;
  std::vector<double> errors;
  for (const auto& row : c.before.rows) {
    if (fitted_row(row) && row.compared()) errors.push_back(row.predicted_us * (c.scale / c.base_scale) / row.measured_us - 1);
  }
  c.after_fit = error_stats(errors);
  write_profile_with_scale(base_path, c.scale, "fitted by ctwin calibrate --trace on " + request.trace, request.output,
                           request.base_field);
  return c;
}

nlohmann::json trace_calibration_json(const TraceCalibration& c, const std::string& output) {
  nlohmann::json ratios = nlohmann::json::object();
  for (const auto& row : c.before.rows) {
    if (!row.compared() || row.predicted_us <= 0) continue;
    ratios[std::string(calibration::kernel_class_name(row.kernel_class)) + "/" + row.phase] = row.measured_us / row.predicted_us;
  }
  return {{"output", output},
          {"base_training_time_scale", c.base_scale},
          {"training_time_scale", c.scale},
          {"measured_compute_us", c.measured_compute_us},
          {"predicted_compute_us", c.predicted_compute_us},
          {"measured_over_predicted", ratios},
          {"after_fit", error_stats_json(c.after_fit, "rows")},
          {"comparison", trace_validation_json(c.before)}};
}

}  // namespace ctwin::api

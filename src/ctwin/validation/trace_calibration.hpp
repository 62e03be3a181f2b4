#pragma once
// `ctwin calibrate --trace FILE --scenario S --base PROFILE -o OUT`: the GPU profile's
// training_time_scale fitted so that the twin's compute inside the layers (every class but NCCL, per
// layer and micro-batch) equals the trace's, as `calibrate --layers` does from layer timings. The
// per-class ratios (measured / predicted) are reported beside it: a class far from the others is a
// mechanism one scale cannot carry, and says where the model, not the scale, needs work.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/validation/trace_validation.hpp"

namespace ctwin::api {

struct TraceCalibrationRequest {
  std::string trace;   ///< the profiler trace
  std::string base;    ///< GPU profile to calibrate: a file or a name under models/gpus; the scenario runs on it
  std::string output;  ///< the calibrated profile to write
  std::string base_field = "--base";
};

struct TraceCalibration {
  TraceValidation before;  ///< the trace against the scenario on the base profile
  double base_scale = 1;   ///< the base profile's training_time_scale
  double scale = 1;        ///< fitted: base_scale × measured / predicted compute
  double measured_compute_us = 0;   ///< per layer and micro-batch (or per step without layer ranges)
  double predicted_compute_us = 0;
  /// The compute rows both sides have, with the fitted scale: predicted × scale / base_scale / measured − 1.
  ErrorStats after_fit;
};

/// InputError naming the trace when it holds no compute kernel to fit on, and the errors of
/// validate_trace and of writing a profile.
[[nodiscard]] TraceCalibration calibrate_trace(const TraceCalibrationRequest& request, const Scenario& scenario,
                                               EvalContext& context);

[[nodiscard]] nlohmann::json trace_calibration_json(const TraceCalibration& calibration, const std::string& output);

}  // namespace ctwin::api

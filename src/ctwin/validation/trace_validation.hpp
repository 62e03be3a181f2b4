#pragma once
// `ctwin validate --trace FILE --scenario S`: a measured profiler trace against the twin's step of
// the same scenario, class by class and phase by phase (calibration/profiler_trace.hpp). Both sides
// are summed the same way: the twin's step is exported as its Chrome trace and read back by the
// trace reader, so ctwin's own trace of S compares at zero error.
//
// Units: the layers' forward and backward rows are per layer and micro-batch on one device (a
// Kineto trace's layer count comes from its layer<i>/... ranges, with one micro-batch a step; a
// ctwin trace's from the scenario: layers / pp and its micro-batches); the rows outside the layers
// are per device and step. A trace without layer ranges (Nsight CSV, or a Kineto trace taken
// without them) is compared over the whole step per class.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/calibration/profiler_trace.hpp"
#include "ctwin/core/error_stats.hpp"
#include "ctwin/validation/comparison.hpp"

namespace ctwin::api {

struct TraceComparisonRow {
  calibration::KernelClass kernel_class = calibration::KernelClass::kOther;
  std::string phase;  ///< forward, backward, outside_layers, or step (no layer ranges)
  std::string unit;   ///< "us per layer" or "us per step"
  double measured_us = 0;
  double predicted_us = 0;
  [[nodiscard]] bool compared() const { return measured_us > 0; }
  [[nodiscard]] double error() const { return predicted_us / measured_us - 1; }  ///< compared() only
};

struct TraceValidation {
  calibration::TraceSummary measured;
  calibration::TraceSummary predicted;
  std::string scenario;  ///< its source
  std::string model;
  double measured_layers_per_device = 0;  ///< per step: layers × micro-batches the layer rows divide by
  double predicted_layers_per_device = 0;
  bool by_phase = false;  ///< the trace has layer ranges (or is ctwin's own)
  std::vector<TraceComparisonRow> rows;
  ErrorStats compared;  ///< over the rows both sides have
};

/// The rows as comparison rows (case: the class, role: the phase, metric: the unit), in order.
[[nodiscard]] std::vector<ComparisonRow> trace_comparison_rows(const TraceValidation& v);

/// class, phase, unit, measured_us, predicted_us, error: the table's headers are the JSON's keys.
[[nodiscard]] const std::vector<ComparisonColumn>& trace_comparison_columns();

/// InputError naming the trace file for an unreadable trace, or `model` when the trace says it is
/// of another model than the scenario's (FILE.meta.json).
[[nodiscard]] TraceValidation validate_trace(const std::string& trace_file, const Scenario& scenario, EvalContext& context,
                                             const StepQuery& query = {});

[[nodiscard]] nlohmann::json trace_validation_json(const TraceValidation& v);

}  // namespace ctwin::api

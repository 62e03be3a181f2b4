// `ctwin validate --trace FILE --scenario S`: a measured profiler trace against the twin's step,
// kernel class by class (validation/trace_validation.hpp).

#include <iostream>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/comparison_output.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/validate_run.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {

api::TraceValidation evaluate_trace_validation(const TraceValidateRequest& request) {
  api::EvalContext context;
  return api::validate_trace(request.trace, api::Scenario::load(request.scenario).with_assignments(request.overrides),
                             context);
}

void print_trace_validation(const api::TraceValidation& v, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::trace_validation_json(v), 2) << '\n';
    return;
  }
  const Table table = comparison_table(api::trace_comparison_columns(), api::trace_comparison_rows(v));
  if (format == Format::kCsv) {
    table.print(std::cout, format);
    return;
  }
  std::cout << "trace " << v.measured.source << " (" << calibration::trace_format_name(v.measured.format) << ", "
            << v.measured.devices << " device" << (v.measured.devices == 1 ? "" : "s") << ", " << v.measured.steps << " step"
            << (v.measured.steps == 1 ? "" : "s") << ") against the twin's step of " << v.scenario << " (" << v.model << ")\n";
  if (v.by_phase) {
    std::cout << "layer rows per layer and micro-batch on one device (trace: " << fixed(v.measured_layers_per_device, 0)
              << " a step; twin: " << fixed(v.predicted_layers_per_device, 0) << "); other rows per device and step; "
              << "error = predicted / measured - 1\n";
  } else {
    std::cout << "no layer ranges in the trace: each class over the whole step, per device; error = predicted / measured - 1\n";
  }
  table.print(std::cout, format, "  ");
  std::cout << "  median |error| " << fixed(100 * v.compared.median_abs, 1) << "%, max " << fixed(100 * v.compared.max_abs, 1)
            << "% over " << v.compared.count << " rows both sides have\n";
  if (!v.measured.unclassified.empty()) {
    std::cout << "  longest kernels no class knows:";
    for (const auto& k : v.measured.unclassified) std::cout << "\n    " << fixed(k.us, 1) << " us  " << k.name;
    std::cout << '\n';
  }
}

}  // namespace ctwin::cli

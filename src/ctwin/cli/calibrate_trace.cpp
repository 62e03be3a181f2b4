// `ctwin calibrate --trace FILE --scenario S --base PROFILE -o OUT` (validation/trace_calibration.hpp).

#include <iostream>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {

TraceFitRequest trace_calibration_request(const CalibrateOptions& options) {
  if (options.scenario.empty()) throw InputError("--scenario", "", "required with --trace: the scenario the trace ran");
  if (options.base.empty()) throw InputError("--base", "", "required with --trace: the GPU profile to calibrate");
  if (options.output.empty()) throw InputError("-o", "", "required with --trace: where to write the calibrated profile");
  if (!options.holdout.empty()) throw InputError("--holdout", "", "does not apply to --trace (validate the result with "
                                                                  "ctwin validate --trace on another trace)");
  return TraceFitRequest{{options.trace, options.base, options.output}, api::Scenario::load(options.scenario)};
}

void print_trace_calibration(const api::TraceCalibration& c, const CalibrateOptions& options, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::trace_calibration_json(c, options.output), 2) << '\n';
    return;
  }
  Table table({"class", "phase", "measured_us", "predicted_us", "measured/predicted"});
  for (const auto& r : c.before.rows) {
    table.add_row({std::string(calibration::kernel_class_name(r.kernel_class)), r.phase, fixed(r.measured_us, 1),
                   fixed(r.predicted_us, 1), r.predicted_us > 0 ? fixed(r.measured_us / r.predicted_us, 3) : "-"});
  }
  if (format == Format::kTable) {
    print_scale_headline(c.scale, c.base_scale, "the compute inside the layers of " + options.trace + " (" +
                                                    fixed(c.measured_compute_us, 1) + " us measured against " +
                                                    fixed(c.predicted_compute_us, 1) + " us predicted)",
                         options.output, c.after_fit.median_abs, std::nullopt);
    std::cout << "\n\nper class and phase, before the fit (a class far from the fitted ratio is a mechanism the scale does "
                 "not carry):\n";
  }
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
}

}  // namespace ctwin::cli

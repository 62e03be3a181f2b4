// `ctwin validate --run FILE`: a user's own measured run against the twin, uncalibrated and
// calibrated (validation/run_validation.hpp).

#include "ctwin/cli/validate_run.hpp"

#include <iostream>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {

api::RunValidation evaluate_run_validation(const RunValidateRequest& request) {
  api::EvalContext context;
  return api::validate_run(request.file, request.calibration, context);
}

void print_run_validation(const api::RunValidation& v, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::run_validation_json(v), 2) << '\n';
    return;
  }
  Table table({"prediction", "step_time_s", "tokens/s/GPU", "mfu_%", "error"});
  table.add_row({"measured (" + v.measured_as + ")", fixed(v.measured_step_time_s, 4),
                 fixed(v.measured_tokens_per_s_per_gpu, 1), "", ""});
  const auto add = [&](const std::string& name, const api::RunPrediction& p) {
    table.add_row({name, fixed(p.report.step_time_s, 4), fixed(p.tokens_per_s_per_gpu, 1), fixed(100 * p.report.mfu, 1),
                   signed_percent(p.error)});
  };
  add("uncalibrated", v.uncalibrated);
  if (v.calibrated) add("calibrated", *v.calibrated);
  if (format == Format::kTable) {
    std::cout << v.model << " on " << v.gpus << " x " << v.gpu << " (" << v.cluster << "), measured run " << v.source
              << "\n";
    if (!v.description.empty()) std::cout << v.description << "\n";
    if (v.calibrated) std::cout << "calibration: " << v.calibrated->calibration << "\n";
    if (v.megatron_log) {
      const api::MegatronLogSummary& log = *v.megatron_log;
      std::cout << "measured: median 'elapsed time per iteration' of " << log.intervals << " logged intervals of "
                << log.file << " after " << log.warmup_iterations << " warm-up iterations";
      if (log.tflops_per_gpu) std::cout << " (Megatron's own count: " << fixed(*log.tflops_per_gpu, 1) << " TFLOP/s/GPU)";
      std::cout << "\n";
    }
    std::cout << "error = predicted throughput / measured - 1\n";
  }
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
}

}  // namespace ctwin::cli

#pragma once
// The --run mode of `ctwin validate`: one measured run of the user's own against the twin.

#include <string>
#include <vector>

namespace ctwin::cli {

/// Prints the measured run, the uncalibrated and (with a calibration) the calibrated
/// prediction; `format` is table, json or csv.
void run_run_validation(const std::string& file, const std::string& calibration, const std::string& format);

/// The --kernels mode: an MoE kernel profile (validation/kernels) against the compute twin on `gpu`.
void run_kernel_validation(const std::string& file, const std::string& gpu, const std::string& format);

}  // namespace ctwin::cli

namespace ctwin::cli {

/// The --trace mode: a profiler trace (Kineto JSON, ctwin's own, or nsys stats CSV) against the
/// twin's step of `scenario` with `overrides` (--set), class by class (validation/trace_validation.hpp).
void run_trace_validation(const std::string& trace, const std::string& scenario, const std::vector<std::string>& overrides,
                          const std::string& format);

}  // namespace ctwin::cli

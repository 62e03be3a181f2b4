#pragma once
// Three modes of `ctwin validate`, each a request, its one evaluation and its printer (the
// command dispatches to them, src/ctwin/cli/validate_command.cpp): --run, a measured run of the
// user's own; --kernels, an MoE kernel profile; --trace, a profiler trace of a step.

#include <string>
#include <vector>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"

namespace ctwin::cli {

struct RunValidateRequest {
  std::string file;
  std::string calibration;  ///< replaces the run file's; empty: the file's, if any
};

[[nodiscard]] api::RunValidation evaluate_run_validation(const RunValidateRequest& request);

/// The measured run, the uncalibrated and (with a calibration) the calibrated prediction.
void print_run_validation(const api::RunValidation& v, Format format);

struct KernelValidateRequest {
  std::string file;
  std::string gpu;  ///< the GPU profile to predict with
};

[[nodiscard]] api::KernelValidation evaluate_kernel_validation(const KernelValidateRequest& request);

/// The expert blocks and token permutation against the compute twin on the request's GPU.
void print_kernel_validation(const api::KernelValidation& v, Format format);

struct TraceValidateRequest {
  std::string trace;  ///< Kineto JSON, ctwin's own, or nsys stats CSV
  std::string scenario;
  std::vector<std::string> overrides;  ///< --set, on the scenario
};

[[nodiscard]] api::TraceValidation evaluate_trace_validation(const TraceValidateRequest& request);

/// The trace against the twin's step, class by class (validation/trace_validation.hpp).
void print_trace_validation(const api::TraceValidation& v, Format format);

}  // namespace ctwin::cli

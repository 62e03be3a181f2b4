#pragma once
// The options of `ctwin calibrate`, shared by its modes (--gemm, --nccl, --layers, --training, --trace).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/api/compute_eval.hpp"
#include "ctwin/api/profile_scale.hpp"
#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::cli {

struct CalibrateOptions {
  std::string gemm;
  std::string layers;
  std::string training;              ///< --training: a cases file of measured runs
  std::string trace;                 ///< --trace: a profiler trace of a step
  std::string scenario;              ///< with --trace: the scenario the trace ran
  std::vector<std::string> only;     ///< --training: only cases whose id contains one of these
  unsigned jobs = default_jobs();    ///< --training: runs simulated at once
  std::string base;
  std::vector<std::string> nccl;
  std::string cluster;
  std::string op;
  int gpus = 0;
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string network = "flow";
  std::vector<std::string> holdout;
  std::string output;
  std::string bundle;  ///< also merge the result into this calibration bundle
  std::vector<std::string> merge;  ///< with --bundle: files merged as they are
  std::string format = "table";
  bool rows = false;  ///< --nccl: also every size of every log, measured against predicted before and after
};

// Each mode is a request the options make (InputError naming a missing or bad flag, before any
// work), one library call that fits and writes the output, and a printer of its report.

/// --nccl mode: a cluster's link efficiencies and protocol costs from nccl-tests logs.
[[nodiscard]] api::NcclCalibrationRequest nccl_calibration_request(const CalibrateOptions& options);
void print_nccl_calibration(const api::NcclCalibrationResult& result, const api::NcclCalibrationRequest& request,
                            const CalibrateOptions& options, Format format);

/// --layers mode: a GPU profile's training_time_scale from measured layer times.
[[nodiscard]] api::LayerCalibrationRequest layer_calibration_request(const CalibrateOptions& options);
void print_layer_calibration(const api::LayerCalibration& calibration, const CalibrateOptions& options, Format format);

/// --training mode: a GPU profile's training_time_scale from measured training runs.
[[nodiscard]] api::TrainingCalibrationRequest training_calibration_request(const CalibrateOptions& options);
void print_training_calibration(const api::TrainingCalibration& calibration, const CalibrateOptions& options,
                                Format format);

/// --trace mode: a GPU profile's training_time_scale from a profiler trace's compute in the layers,
/// the trace's scenario run on the base profile.
struct TraceFitRequest {
  api::TraceCalibrationRequest request;
  api::Scenario scenario;
};
[[nodiscard]] TraceFitRequest trace_calibration_request(const CalibrateOptions& options);
void print_trace_calibration(const api::TraceCalibration& calibration, const CalibrateOptions& options, Format format);

/// Writes `base_path`'s profile with training_time_scale = `scale` (api/profile_scale.hpp).
using api::write_profile_with_scale;

/// The headline of a training_time_scale fit: "training_time_scale S (base B) from `from` ->
/// `output`", then the median |error| of the fit and, when there is one, of the held-out set.
/// The caller ends the line.
void print_scale_headline(double scale, double base_scale, const std::string& from, const std::string& output,
                          double fit_median_abs_error, std::optional<double> held_out_median_abs_error);

}  // namespace ctwin::cli

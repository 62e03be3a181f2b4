#pragma once
// The options of `ctwin calibrate`, shared by its modes (--gemm, --nccl, --layers).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/api/profile_scale.hpp"
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

/// --nccl mode: fit a cluster's link efficiencies and protocol costs to nccl-tests logs.
void calibrate_nccl(const CalibrateOptions& options);

/// --layers mode: fit a GPU profile's training_time_scale to measured layer times.
void calibrate_layers(const CalibrateOptions& options);

/// --training mode: fit a GPU profile's training_time_scale to measured training runs.
void calibrate_training(const CalibrateOptions& options);

/// --trace mode: fit a GPU profile's training_time_scale to a profiler trace's compute in the layers.
void calibrate_from_trace(const CalibrateOptions& options);

/// Writes `base_path`'s profile with training_time_scale = `scale` (api/profile_scale.hpp).
using api::write_profile_with_scale;

/// The headline of a training_time_scale fit: "training_time_scale S (base B) from `from` ->
/// `output`", then the median |error| of the fit and, when there is one, of the held-out set.
/// The caller ends the line.
void print_scale_headline(double scale, double base_scale, const std::string& from, const std::string& output,
                          double fit_median_abs_error, std::optional<double> held_out_median_abs_error);

}  // namespace ctwin::cli

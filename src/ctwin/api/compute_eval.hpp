#pragma once
// The compute twin's questions and fits for front ends: GEMM times on a GPU profile and
// `ctwin calibrate --gemm` / `--nccl` as functions returning structs, so that the CLI and
// Python run the same workflow (load, fit, measure the error, write the file) and differ only
// in how they show the result. None prints; bad input is an InputError naming file and field.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/calibration/gemm_fit.hpp"
#include "ctwin/calibration/nccl_fit.hpp"
#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::api {

// ---- GEMM times ---------------------------------------------------------------------------

struct GemmRow {
  compute::GemmShape shape;
  compute::GemmEstimate estimate;
};

struct GemmPrediction {
  std::string gpu;  ///< the profile's name
  std::vector<GemmRow> rows;
};

/// The shapes (m,n,k,dtype) of a GEMM CSV; a measurement column is optional and ignored.
[[nodiscard]] std::vector<compute::GemmShape> read_gemm_shapes(const std::string& csv, const compute::GpuSpec& gpu);

/// Every shape's predicted time on `gpu`, in order.
[[nodiscard]] GemmPrediction evaluate_gemm(const compute::GpuSpec& gpu, const std::vector<compute::GemmShape>& shapes);

// ---- calibrate --gemm -----------------------------------------------------------------------

struct GemmCalibrationRequest {
  std::string csv;                     ///< measured sweep the table is fitted to
  std::string base;                    ///< GPU profile: a file or a name under models/gpus
  std::string output;                  ///< the calibrated profile to write
  std::optional<std::string> holdout;  ///< measured shapes the fit never sees
  // The name of `base` in errors: Python's keyword; the CLI has always said --gpu here.
  std::string gpu_field = "--gpu";
};

struct GemmCalibration {
  std::string gpu;                  ///< the base profile's name
  std::string output;               ///< as given
  std::size_t fit_shapes = 0;       ///< rows of the fitted sweep
  calibration::GemmErrorReport fit;  ///< the calibrated profile against the fitted shapes
  std::optional<calibration::GemmErrorReport> holdout;
};

/// Loads the base profile (its GEMM table dropped, so a calibrated base is refitted from
/// scratch), fits the efficiency table to `csv`, measures the error on `csv` and `holdout`
/// and writes the calibrated profile (with the errors, and the paths as given) to `output`.
[[nodiscard]] GemmCalibration calibrate_gemm(const GemmCalibrationRequest& request);

// ---- calibrate --nccl -----------------------------------------------------------------------

struct NcclCalibrationRequest {
  std::string cluster;               ///< the topology file the logs ran on
  std::vector<std::string> logs;     ///< nccl-tests logs to fit; "FILE@N" for a log run on N ranks
  std::vector<std::string> holdout;  ///< logs the fit never sees
  std::string output;                ///< the calibration file to write
  std::string op;                    ///< the collective, for logs that do not name it; empty: from the log
  int gpus = 0;                      ///< ranks, for logs without '#  Rank' lines; 0: from the log
  std::string algorithm = "auto";    ///< NCCL_ALGO the logs ran with
  std::string protocol = "auto";     ///< NCCL_PROTO the logs ran with
  network::ModelKind network = network::ModelKind::kFlow;
  bool rows = false;  ///< also predict every row with the defaults and the calibration (two more replays)
};

/// One size of one log: measured against predicted, with the defaults and calibrated.
struct NcclSizeRow {
  std::string log;
  bool held_out = false;
  Bytes size;
  double measured_busbw_GBps = 0;
  double default_busbw_GBps = 0;     ///< predicted with the cluster's defaults
  double calibrated_busbw_GBps = 0;  ///< predicted with the calibration
  double default_error = 0;          ///< predicted / measured busbw − 1
  double calibrated_error = 0;
};

struct NcclCalibrationResult {
  std::string cluster_name;
  std::size_t fit_logs = 0;
  calibration::NcclFitReport report;
  std::vector<NcclSizeRow> rows;  ///< empty unless the request asked for them
};

/// Reads the cluster and the logs, fits the calibration, writes it to `output` (the file
/// `--calibration` reads back) and reports the error before and after, per log and pooled.
[[nodiscard]] NcclCalibrationResult calibrate_nccl(const NcclCalibrationRequest& request);

}  // namespace ctwin::api

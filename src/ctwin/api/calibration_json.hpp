#pragma once
// The JSON of the compute twin's results and of the calibrations (api/compute_eval.hpp): what
// `ctwin gemm` and `ctwin calibrate --gemm/--nccl` print with --format json, and what Python's
// to_dict() returns, one serialization for both.

#include <nlohmann/json.hpp>

#include "ctwin/api/compute_eval.hpp"
#include "ctwin/calibration/nccl_log.hpp"

namespace ctwin::api {

/// `ctwin gemm --format json`: {"gpu", "rows": [{m, n, k, dtype, time_us, tflops, model}]}.
[[nodiscard]] nlohmann::json gemm_json(const GemmPrediction& prediction);

/// A GEMM error report: {"overall", "per_dtype", "large_per_dtype"}, each {"shapes",
/// "median_abs_error", "mean_abs_error", "max_abs_error"} (fractions, not percent).
[[nodiscard]] nlohmann::json gemm_error_report_json(const calibration::GemmErrorReport& report);

/// `ctwin calibrate --gemm --format json`: {"gpu", "output", "fit", "holdout" (when given)}.
[[nodiscard]] nlohmann::json gemm_calibration_json(const GemmCalibration& calibration);

/// `ctwin calibrate --nccl --format json`, which is also the calibration file it writes.
[[nodiscard]] nlohmann::json nccl_calibration_result_json(const NcclCalibrationResult& result,
                                                          const NcclCalibrationRequest& request);

/// The result's per-size rows: [{log, held_out, size_bytes, measured_busbw_GBps,
/// default_busbw_GBps, calibrated_busbw_GBps, default_error, calibrated_error}].
[[nodiscard]] nlohmann::json nccl_size_rows_json(const NcclCalibrationResult& result);

/// A measured nccl-tests log as read: {"source", "op" (null when the log does not say), "ranks"
/// (null when unlisted), "rows": [{size_bytes, count, type, redop, time_us, algbw_GBps,
/// busbw_GBps, in_place_time_us, in_place_algbw_GBps, in_place_busbw_GBps}]} (the out-of-place
/// figures, then the in-place ones, null where the log prints none; GB/s as nccl-tests prints: 1e9 B/s).
[[nodiscard]] nlohmann::json nccl_log_json(const calibration::NcclLog& log);

}  // namespace ctwin::api

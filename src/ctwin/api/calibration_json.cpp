#include "ctwin/api/calibration_json.hpp"

#include <string>
#include <utility>

#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/collectives/collective.hpp"

namespace ctwin::api {
namespace {

}  // namespace

nlohmann::json gemm_json(const GemmPrediction& prediction) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [shape, estimate] : prediction.rows) {
    rows.push_back({{"m", shape.m}, {"n", shape.n}, {"k", shape.k}, {"dtype", compute::dtype_name(shape.dtype)},
                    {"time_us", estimate.time.microseconds()}, {"tflops", estimate.rate().teraflops()},
                    {"model", compute::gemm_source_name(estimate.source)}});
  }
  return {{"gpu", prediction.gpu}, {"rows", rows}};
}

nlohmann::json gemm_error_report_json(const calibration::GemmErrorReport& report) {
  nlohmann::json out{{"overall", error_stats_json(report.overall, "shapes", true)}};
  for (const auto& [dtype, stats] : report.per_dtype) out["per_dtype"][compute::dtype_name(dtype)] = error_stats_json(stats, "shapes", true);
  for (const auto& [dtype, stats] : report.large_per_dtype) {
    out["large_per_dtype"][compute::dtype_name(dtype)] = error_stats_json(stats, "shapes", true);
  }
  return out;
}

nlohmann::json gemm_calibration_json(const GemmCalibration& calibration) {
  nlohmann::json out{
      {"gpu", calibration.gpu}, {"output", calibration.output}, {"fit", gemm_error_report_json(calibration.fit)}};
  if (calibration.holdout) out["holdout"] = gemm_error_report_json(*calibration.holdout);
  return out;
}

nlohmann::json nccl_calibration_result_json(const NcclCalibrationResult& result, const NcclCalibrationRequest& request) {
  return calibration::nccl_calibration_json(result.report, request.cluster, request.logs, request.holdout);
}

nlohmann::json nccl_size_rows_json(const NcclCalibrationResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : result.rows) {
    rows.push_back({{"log", r.log}, {"held_out", r.held_out}, {"size_bytes", r.size.count()},
                    {"measured_busbw_GBps", r.measured_busbw_GBps}, {"default_busbw_GBps", r.default_busbw_GBps},
                    {"calibrated_busbw_GBps", r.calibrated_busbw_GBps}, {"default_error", r.default_error},
                    {"calibrated_error", r.calibrated_error}});
  }
  return rows;
}

nlohmann::json nccl_log_json(const calibration::NcclLog& log) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : log.rows) {
    nlohmann::json row{{"size_bytes", r.size.count()},
                       {"count", r.count ? nlohmann::json(*r.count) : nlohmann::json()},
                       {"type", r.type},
                       {"redop", r.redop},
                       {"time_us", r.out_of_place.time_us},
                       {"algbw_GBps", r.out_of_place.algbw_GBps},
                       {"busbw_GBps", r.out_of_place.busbw_GBps}};
    row["in_place_time_us"] = r.in_place ? nlohmann::json(r.in_place->time_us) : nlohmann::json();
    row["in_place_algbw_GBps"] = r.in_place ? nlohmann::json(r.in_place->algbw_GBps) : nlohmann::json();
    row["in_place_busbw_GBps"] = r.in_place ? nlohmann::json(r.in_place->busbw_GBps) : nlohmann::json();
    rows.push_back(std::move(row));
  }
  return {{"source", log.source},
          {"op", log.op ? nlohmann::json(std::string(collectives::name(*log.op))) : nlohmann::json()},
          {"ranks", log.ranks ? nlohmann::json(*log.ranks) : nlohmann::json()},
          {"rows", rows}};
}

}  // namespace ctwin::api

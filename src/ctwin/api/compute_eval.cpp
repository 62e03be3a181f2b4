#include "ctwin/api/compute_eval.hpp"

#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "ctwin/api/calibration_json.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/compute/gemm_limits.hpp"
#include "ctwin/calibration/calibrated_profile.hpp"
#include "ctwin/calibration/gemm_csv.hpp"
#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/calibration/nccl_op_inference.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::api {
namespace {

// "FILE@N": the log ran on N ranks (for logs that do not list them).
std::pair<std::string, int> split_ranks(const std::string& argument) {
  const auto at = argument.rfind('@');
  if (at == std::string::npos) return {argument, 0};
  const std::string count = argument.substr(at + 1);
  if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos || count.size() > 7) {
    throw InputError(argument, "", "expected FILE@RANKS with a whole number of ranks after '@'");
  }
  const int ranks = std::stoi(count);
  if (ranks < 1) throw InputError(argument, "", "the rank count after '@' must be at least 1");
  return {argument.substr(0, at), ranks};
}

calibration::NcclFitCase load_case(const std::string& argument, const NcclCalibrationRequest& request) {
  const auto [path, ranks] = split_ranks(argument);
  std::optional<collectives::Op> op;
  if (!request.op.empty()) op = collectives::parse_op(request.op);
  calibration::NcclFitCase c;
  c.name = path;
  c.log = calibration::read_nccl_log(resolve_data_path(path), op);
  if (ranks > 0) {
    c.gpus = ranks;
  } else if (request.gpus > 0) {
    c.gpus = request.gpus;
  } else if (c.log.ranks) {
    c.gpus = *c.log.ranks;
  } else if (c.log.threads && c.log.gpus_per_thread && *c.log.threads * *c.log.gpus_per_thread > 1) {
    c.gpus = *c.log.threads * *c.log.gpus_per_thread;
  } else {
    throw InputError(path, "", "does not list its ranks (no '#  Rank' lines): give --gpus N or write it FILE@N");
  }
  c.op = calibration::infer_nccl_op(c.log, c.gpus);
  c.algorithm = collectives::parse_algorithm(request.algorithm);
  c.protocol = collectives::parse_protocol(request.protocol);
  return c;
}

void add_size_rows(const fabric::ClusterSpec& spec, const calibration::NcclCalibration& calibrated,
                   const std::vector<calibration::NcclFitCase>& cases, bool held_out, network::ModelKind network,
                   std::vector<NcclSizeRow>& out) {
  const auto before = calibration::compare_cases(spec, calibration::NcclCalibration::defaults_of(spec), cases, network);
  const auto after = calibration::compare_cases(spec, calibrated, cases, network);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    for (std::size_t r = 0; r < before[i].rows.size(); ++r) {
      const auto& b = before[i].rows[r];
      const auto& a = after[i].rows[r];
      out.push_back({cases[i].name, held_out, b.size, b.measured_busbw_GBps, b.predicted_busbw_GBps,
                     a.predicted_busbw_GBps, b.error, a.error});
    }
  }
}

}  // namespace

std::vector<compute::GemmShape> read_gemm_shapes(const std::string& csv, const compute::GpuSpec& gpu) {
  std::vector<compute::GemmShape> shapes;
  const auto sweep = calibration::read_gemm_csv(resolve_data_path(csv), calibration::MeasurementColumn::kOptional);
  for (const auto& row : sweep.rows) {
    if (const auto problem = compute::gemm_shape_problem(gpu, row.shape)) {
      throw InputError(sweep.source, "line " + std::to_string(row.line), *problem);
    }
    shapes.push_back(row.shape);
  }
  return shapes;
}

GemmPrediction evaluate_gemm(const compute::GpuSpec& gpu, const std::vector<compute::GemmShape>& shapes) {
  GemmPrediction out{gpu.name, {}};
  for (const auto& shape : shapes) out.rows.push_back({shape, compute::estimate_gemm(gpu, shape)});
  return out;
}

GemmCalibration calibrate_gemm(const GemmCalibrationRequest& request) {
  const auto base_path = resolve_gpu_path(request.base, request.gpu_field);
  const nlohmann::json base_document = load_json_file(base_path);
  compute::GpuSpec gpu = compute::parse_gpu_spec(base_document, base_path.string());
  gpu.gemm_table.reset();  // a base that was calibrated before is refitted from scratch

  const auto fit_sweep = calibration::read_gemm_csv(resolve_data_path(request.csv), calibration::MeasurementColumn::kRequired);
  std::optional<calibration::GemmSweep> holdout_sweep;
  if (request.holdout) {
    holdout_sweep = calibration::read_gemm_csv(resolve_data_path(*request.holdout), calibration::MeasurementColumn::kRequired);
  }
  gpu.gemm_table = calibration::fit_gemm_table(gpu, fit_sweep);
  GemmCalibration out;
  out.gpu = gpu.name;
  out.output = request.output;
  out.fit_shapes = fit_sweep.rows.size();
  out.fit = calibration::gemm_errors(gpu, fit_sweep);
  if (holdout_sweep) out.holdout = calibration::gemm_errors(gpu, *holdout_sweep);

  // Paths as the user gave them, not resolved ones, so the file does not depend on the machine.
  nlohmann::json info{{"gemm_csv", request.csv},
                      {"fit", gemm_error_report_json(out.fit)},
                      {"table", "efficiency = ideal roofline time (peak, HBM, best tile, launch) / measured time"}};
  if (out.holdout) {
    info["holdout_csv"] = *request.holdout;
    info["holdout"] = gemm_error_report_json(*out.holdout);
  }
  calibration::write_profile(calibration::calibrated_profile(base_document, *gpu.gemm_table, info), request.output);
  return out;
}

NcclCalibrationResult calibrate_nccl(const NcclCalibrationRequest& request) {
  const fabric::ClusterSpec spec = attach_gpu_arch(fabric::load_cluster(resolve_named(request.cluster, DataKind::kTopology)));
  std::vector<calibration::NcclFitCase> fit;
  std::vector<calibration::NcclFitCase> holdout;
  for (const auto& path : request.logs) fit.push_back(load_case(path, request));
  for (const auto& path : request.holdout) holdout.push_back(load_case(path, request));

  NcclCalibrationResult out;
  out.cluster_name = spec.name;
  out.fit_logs = fit.size();
  out.report = calibration::fit_nccl(spec, fit, holdout, request.network);
  {
    std::ofstream file(request.output);
    if (!file) throw InputError(request.output, "", "cannot be written");
    file << json_text(nccl_calibration_result_json(out, request), 2) << '\n';
    if (!file) throw InputError(request.output, "", "cannot be written");
  }
  if (request.rows) {
    add_size_rows(spec, out.report.calibration, fit, false, request.network, out.rows);
    add_size_rows(spec, out.report.calibration, holdout, true, request.network, out.rows);
  }
  return out;
}

}  // namespace ctwin::api

// ctwin calibrate --nccl: a cluster's nccl-tests logs in, a calibration file out, with the fit
// error on the logs and, for --holdout logs, the error on logs the fit never saw.

#include <iostream>

#include <nlohmann/json.hpp>

#include "ctwin/api/calibration_json.hpp"
#include "ctwin/api/compute_eval.hpp"
#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {
namespace {

std::string percent(const ErrorStats& summary) {
  return summary.count == 0 ? "-" : fixed(summary.median_abs * 100, 1) + "%";
}

void add_cases(Table& table, const std::string& set, const std::vector<calibration::NcclCaseError>& cases) {
  for (const auto& c : cases) {
    table.add_row({set, c.name, std::to_string(c.before.count), percent(c.before), percent(c.after),
                   fixed(c.after.max_abs * 100, 1) + "%"});
  }
}

}  // namespace

api::NcclCalibrationRequest nccl_calibration_request(const CalibrateOptions& options) {
  if (options.cluster.empty()) throw InputError("--cluster", "", "required with --nccl: the topology the logs ran on");
  if (options.output.empty()) throw InputError("-o", "", "required with --nccl: where to write the calibration");
  api::NcclCalibrationRequest request;
  request.cluster = options.cluster;
  request.logs = options.nccl;
  request.holdout = options.holdout;
  request.output = options.output;
  request.op = options.op;
  request.gpus = options.gpus;
  request.algorithm = options.algorithm;
  request.protocol = options.protocol;
  request.network = network_flag(options.network);
  request.rows = options.rows;
  return request;
}

void print_nccl_calibration(const api::NcclCalibrationResult& result, const api::NcclCalibrationRequest& request,
                            const CalibrateOptions& options, Format format) {
  const auto& report = result.report;
  if (format == Format::kJson) {
    nlohmann::json out = api::nccl_calibration_result_json(result, request);
    if (options.rows) out["rows"] = api::nccl_size_rows_json(result);
    std::cout << json_text(out, 2) << '\n';
    return;
  }
  Table sizes({"set", "log", "size_bytes", "measured_busbw_GBps", "default_busbw_GBps", "calibrated_busbw_GBps",
               "default_error", "calibrated_error"});
  for (const auto& r : result.rows) {
    sizes.add_row({r.held_out ? "holdout" : "fit", r.log, std::to_string(r.size.count()), fixed(r.measured_busbw_GBps, 3),
                   fixed(r.default_busbw_GBps, 3), fixed(r.calibrated_busbw_GBps, 3), signed_percent(r.default_error),
                   signed_percent(r.calibrated_error)});
  }
  Table parameters({"parameter", "default", "fitted", "seen by the logs"});
  for (const auto& p : report.parameters) {
    parameters.add_row({p.name, fixed(p.initial, 3), fixed(p.fitted, 3), p.identified ? "yes" : "no: " + p.reason.substr(p.reason.find(':') + 2)});
  }
  Table factors({"path", "links scaled together", "scale", "identified"});
  for (const auto& f : report.path_factors) {
    std::string links;
    for (const auto& l : f.links) links += (links.empty() ? "" : ", ") + l;
    factors.add_row({f.path, links, fixed(f.scale, 3), f.identified ? "yes" : "no"});
  }
  Table errors({"set", "log", "rows", "median |busbw err| default", "calibrated", "max calibrated"});
  add_cases(errors, "fit", report.fitted);
  add_cases(errors, "holdout", report.holdout);
  if (format == Format::kCsv) {
    (options.rows ? sizes : errors).print(std::cout, format);
    return;
  }
  std::cout << "calibrated " << result.cluster_name << " from " << result.fit_logs << " nccl-tests log(s) -> " << options.output
            << " (" << report.iterations << " iterations, " << report.evaluations << " replays, network "
            << options.network << ")\n\n";
  parameters.print(std::cout, format, "  ");
  std::cout << "\n  one effective factor per path the logs exercise\n";
  factors.print(std::cout, format, "  ");
  std::cout << "\n";
  errors.print(std::cout, format, "  ");
  std::cout << "\n  fit: median |busbw error| " << percent(report.fit_before) << " with the defaults, "
            << percent(report.fit_after) << " calibrated (" << report.fit_after.count << " rows)\n";
  if (!options.holdout.empty()) {
    std::cout << "  holdout: " << percent(report.holdout_before) << " with the defaults, " << percent(report.holdout_after)
              << " calibrated (" << report.holdout_after.count << " rows)\n";
  }
  if (options.rows) {
    std::cout << "\n  every size: busbw measured and predicted (GB/s), error = predicted / measured - 1\n";
    sizes.print(std::cout, format, "  ");
  }
}

}  // namespace ctwin::cli

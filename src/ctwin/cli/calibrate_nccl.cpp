// ctwin calibrate --nccl: a cluster's nccl-tests logs in, a calibration file out, with the fit
// error on the logs and, for --holdout logs, the error on logs the fit never saw.

#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/calibration/nccl_fit.hpp"
#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::cli {
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

calibration::NcclFitCase load_case(const std::string& argument, const CalibrateOptions& options) {
  const auto [path, ranks] = split_ranks(argument);
  std::optional<collectives::Op> op;
  if (!options.op.empty()) op = collectives::parse_op(options.op);
  calibration::NcclFitCase c;
  c.name = path;
  c.log = calibration::read_nccl_log(resolve_data_path(path), op);
  if (!c.log.op) throw InputError(path, "", "does not say which collective it timed (no <op>_perf line): give --op");
  c.op = *c.log.op;
  if (ranks > 0) {
    c.gpus = ranks;
  } else if (options.gpus > 0) {
    c.gpus = options.gpus;
  } else if (c.log.ranks) {
    c.gpus = *c.log.ranks;
  } else if (c.log.threads && c.log.gpus_per_thread && *c.log.threads * *c.log.gpus_per_thread > 1) {
    c.gpus = *c.log.threads * *c.log.gpus_per_thread;
  } else {
    throw InputError(path, "", "does not list its ranks (no '#  Rank' lines): give --gpus N or write it FILE@N");
  }
  c.algorithm = collectives::parse_algorithm(options.algorithm);
  c.protocol = collectives::parse_protocol(options.protocol);
  return c;
}

std::string percent(const calibration::ErrorSummary& summary) {
  return summary.count == 0 ? "-" : fixed(summary.median_abs_error * 100, 1) + "%";
}

void add_cases(Table& table, const std::string& set, const std::vector<calibration::NcclCaseError>& cases) {
  for (const auto& c : cases) {
    table.add_row({set, c.name, std::to_string(c.before.count), percent(c.before), percent(c.after),
                   fixed(c.after.max_abs_error * 100, 1) + "%"});
  }
}

}  // namespace

void calibrate_nccl(const CalibrateOptions& options) {
  if (options.cluster.empty()) throw InputError("--cluster", "", "required with --nccl: the topology the logs ran on");
  if (options.output.empty()) throw InputError("-o", "", "required with --nccl: where to write the calibration");
  const Format format = parse_format(options.format);
  const fabric::ClusterSpec spec = fabric::load_cluster(resolve_data_path(options.cluster));
  std::vector<calibration::NcclFitCase> fit;
  std::vector<calibration::NcclFitCase> holdout;
  for (const auto& path : options.nccl) fit.push_back(load_case(path, options));
  for (const auto& path : options.holdout) holdout.push_back(load_case(path, options));

  const auto report = calibration::fit_nccl(spec, fit, holdout, options.network);
  {
    std::ofstream out(options.output);
    if (!out) throw InputError(options.output, "", "cannot be written");
    out << calibration::nccl_calibration_json(report, options.cluster, options.nccl, options.holdout).dump(2) << '\n';
    if (!out) throw InputError(options.output, "", "cannot be written");
  }
  if (format == Format::kJson) {
    std::cout << calibration::nccl_calibration_json(report, options.cluster, options.nccl, options.holdout).dump(2)
              << '\n';
    return;
  }
  Table parameters({"parameter", "default", "fitted", "seen by the logs"});
  for (const auto& p : report.parameters) {
    parameters.add_row({p.name, fixed(p.initial, 3), fixed(p.fitted, 3), p.identified ? "yes" : "no (kept)"});
  }
  Table errors({"set", "log", "rows", "median |busbw err| default", "calibrated", "max calibrated"});
  add_cases(errors, "fit", report.fitted);
  add_cases(errors, "holdout", report.holdout);
  if (format == Format::kCsv) {
    errors.print(std::cout, format);
    return;
  }
  std::cout << "calibrated " << spec.name << " from " << fit.size() << " nccl-tests log(s) -> " << options.output
            << " (" << report.iterations << " iterations, " << report.evaluations << " replays, network "
            << options.network << ")\n\n";
  parameters.print(std::cout, format, "  ");
  std::cout << "\n";
  errors.print(std::cout, format, "  ");
  std::cout << "\n  fit: median |busbw error| " << percent(report.fit_before) << " with the defaults, "
            << percent(report.fit_after) << " calibrated (" << report.fit_after.count << " rows)\n";
  if (!holdout.empty()) {
    std::cout << "  holdout: " << percent(report.holdout_before) << " with the defaults, " << percent(report.holdout_after)
              << " calibrated (" << report.holdout_after.count << " rows)\n";
  }
}

}  // namespace ctwin::cli

// ctwin calibrate: fit a twin's parameters to measurements. Which inputs are given decides what
// is calibrated (--gemm: a GPU profile's GEMM efficiency table); each mode is one function.

#include <filesystem>
#include <iostream>
#include <memory>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/api/calibration_json.hpp"
#include "ctwin/api/compute_eval.hpp"
#include "ctwin/api/public_calibration.hpp"
#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::cli {
namespace {

void add_report_rows(Table& table, const std::string& set, const calibration::GemmErrorReport& report) {
  auto row = [&](const std::string& dtype, const std::string& shapes, const ErrorStats& s) {
    table.add_row({set, dtype, shapes, std::to_string(s.count), fixed(100 * s.median_abs, 1),
                   fixed(100 * s.mean_abs, 1), fixed(100 * s.max_abs, 1)});
  };
  for (const auto& [dtype, stats] : report.per_dtype) row(compute::dtype_name(dtype), "all", stats);
  for (const auto& [dtype, stats] : report.large_per_dtype) row(compute::dtype_name(dtype), "MNK>=2^30", stats);
  row("all", "all", report.overall);
}

api::GemmCalibrationRequest gemm_calibration_request(const CalibrateOptions& options) {
  if (options.base.empty()) throw InputError("--base", "", "required with --gemm: the GPU profile to calibrate");
  if (options.output.empty()) throw InputError("-o", "", "required with --gemm: where to write the calibrated profile");
  if (options.holdout.size() > 1) throw InputError("--holdout", "", "takes one GEMM CSV with --gemm");
  api::GemmCalibrationRequest request{options.gemm, options.base, options.output, std::nullopt};
  if (!options.holdout.empty()) request.holdout = options.holdout.front();
  return request;
}

void print_gemm_calibration(const api::GemmCalibration& result, const CalibrateOptions& options, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::gemm_calibration_json(result), 2) << '\n';
    return;
  }
  Table table({"set", "dtype", "shapes", "count", "median_err_%", "mean_err_%", "max_err_%"});
  add_report_rows(table, "fit", result.fit);
  if (result.holdout) add_report_rows(table, "holdout", *result.holdout);
  if (format == Format::kTable) {
    std::cout << "calibrated " << result.gpu << " from " << result.fit_shapes << " GEMM shapes -> " << options.output
              << "\n";
  }
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
}

struct CalibrateCommandOptions : CalibrateOptions {
  GivenFlags given;
};

void declare_calibrate_options(CLI::App& command, CalibrateCommandOptions& o) {
  o.given.attach(command);
  command.add_option("--gemm", o.gemm, "GEMM sweep CSV (m,n,k,dtype,time_us or tflops)");
  command.add_option("--layers", o.layers,
                      "layer times measured by validation/collect/layer_bench.py (JSON): fit the profile's training_time_scale");
  command.add_option("--training", o.training,
                      "measured training runs (a cases file like validation/training/cases.json): fit the profile's "
                      "training_time_scale on the dense runs on its GPU");
  command.add_option("--trace", o.trace,
                      "a profiler trace of a step (as ctwin validate --trace reads): fit the profile's "
                      "training_time_scale to its compute inside the layers; needs --scenario");
  command.add_option("--scenario", o.scenario, "with --trace: the scenario the trace ran (run on --base)");
  command.add_option("--only", o.only, "with --training: only runs whose id contains this text (repeatable)")
      ->take_all();
  command.add_option("--jobs", o.jobs, "with --training: runs simulated at once (default: one per core)")
      ->check(CLI::Range(1, 1024));
  command.add_option("--base", o.base, "GPU profile to calibrate: a file or a name under models/gpus");
  command.add_option("--nccl", o.nccl, "nccl-tests logs of one cluster, as printed; FILE@N for a log that does not list its N ranks")->take_all();
  command.add_option("--cluster", o.cluster, "with --nccl: the topology file the logs ran on");
  command.add_option("--op", o.op, "with --nccl: the collective, for logs that do not name it");
  command.add_option("--gpus", o.gpus, "with --nccl: ranks, for logs without '#  Rank' lines");
  command.add_option("--algo", o.algorithm, "with --nccl: NCCL_ALGO the logs ran with")->capture_default_str();
  command.add_option("--proto", o.protocol, "with --nccl: NCCL_PROTO the logs ran with")->capture_default_str();
  command.add_option("--network", o.network, "with --nccl or --training: analytical or flow")->capture_default_str();
  command.add_option("--holdout", o.holdout,
                      "held-out data: report the error on it (GEMM CSV, layer JSON, cases file, or nccl-tests logs)")
      ->take_all();
  command.add_option("-o,--output", o.output,
                      "calibrated profile (--gemm, --layers, --training) or calibration (--nccl) to write");
  command.add_option("--bundle", o.bundle,
                      "also merge what -o wrote into this calibration bundle (created if missing): the GPU profile "
                      "(--gemm, --layers, --training) or the cluster fit (--nccl) replaces that part, the other stays; "
                      "run, scale and sweep take it as --calibration");
  command.add_option("--merge", o.merge,
                      "with --bundle and nothing to fit: merge these files as they are (a GPU profile, e.g. "
                      "models/gpus/calibrated/h100-sxm.json, or a calibration --nccl wrote)")
      ->take_all();
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
  command.add_flag("--rows", o.rows,
                    "with --nccl: also every size of every log: measured busbw against the prediction with the defaults "
                    "and calibrated");
}

/// --merge: files merged into the bundle as they are, each as its GPU or its cluster part.
struct MergedFile {
  std::string file;
  bool nccl = false;  ///< merged as the cluster part
};

// The query: one mode's request; the bundle what it writes is merged into, if any.
struct CalibrateCall {
  std::variant<std::vector<std::string>, api::GemmCalibrationRequest, api::LayerCalibrationRequest,
               api::TrainingCalibrationRequest, TraceFitRequest, api::NcclCalibrationRequest>
      mode;  ///< the first: --merge's files
  Format format = Format::kTable;
  std::string bundle;
  std::string output;
};

using CalibrateResult = std::variant<std::vector<MergedFile>, api::GemmCalibration, api::LayerCalibration,
                                     api::TrainingCalibration, api::TraceCalibration, api::NcclCalibrationResult>;

CalibrateCall calibrate_call(const CalibrateCommandOptions& o) {
  if (int(!o.gemm.empty()) + int(!o.nccl.empty()) + int(!o.layers.empty()) + int(!o.training.empty()) +
          int(!o.trace.empty()) > 1) {
    throw InputError(!o.trace.empty()      ? "--trace"
                     : !o.training.empty() ? "--training"
                     : o.layers.empty()    ? "--nccl"
                                           : "--layers",
                     "", "calibrate one thing at a time: --gemm, --layers, --training, --trace or --nccl");
  }
  if (o.trace.empty() && !o.scenario.empty()) throw InputError("--scenario", "", "applies to --trace");
  if (o.training.empty() && (!o.only.empty() || o.given("--jobs"))) {
    throw InputError(o.only.empty() ? "--jobs" : "--only", "", "applies to --training");
  }
  if (o.rows && o.nccl.empty()) throw InputError("--rows", "", "applies to --nccl");
  const bool gpu_fit = !o.gemm.empty() || !o.layers.empty() || !o.training.empty() || !o.trace.empty();
  CalibrateCall call;
  call.bundle = o.bundle;
  call.output = o.output;
  if (!o.merge.empty()) {
    if (gpu_fit || !o.nccl.empty()) throw InputError("--merge", "", "merges files as they are; fit nothing with it");
    if (o.bundle.empty()) throw InputError("--merge", "", "needs --bundle FILE to merge into");
    call.format = parse_format(o.format);
    call.mode = o.merge;
    return call;
  }
  if (!o.bundle.empty() && !gpu_fit && o.nccl.empty()) {
    throw InputError("--bundle", "", "merges what --gemm, --layers, --training or --nccl fitted, or --merge FILE");
  }
  // A bundle that is there must be one before anything is fitted: a profile given by mistake stays intact.
  if (!o.bundle.empty() && path_exists(o.bundle)) (void)calibration::read_calibration_bundle(o.bundle);
  if (!gpu_fit && o.nccl.empty()) {
    throw InputError("ctwin calibrate", "",
                     "nothing to calibrate: give --gemm CSV --base PROFILE -o FILE, --layers JSON --base PROFILE -o FILE, "
                     "--training CASES --base PROFILE -o FILE "
                     "or --cluster FILE --nccl LOG... -o FILE");
  }
  if (!o.gemm.empty()) call.mode = gemm_calibration_request(o);
  if (!o.layers.empty()) call.mode = layer_calibration_request(o);
  if (!o.training.empty()) call.mode = training_calibration_request(o);
  if (!o.trace.empty()) call.mode = trace_calibration_request(o);
  if (!o.nccl.empty()) call.mode = nccl_calibration_request(o);
  call.format = parse_format(o.format);
  return call;
}

std::vector<MergedFile> merge_files(const std::vector<std::string>& files, const std::string& bundle) {
  std::vector<MergedFile> merged;
  for (const auto& file : files) {
    nlohmann::json document = load_json_file(file);
    const bool nccl = document.is_object() && document.contains("ctwin_calibration");
    calibration::merge_into_bundle_file(bundle, nccl ? calibration::BundleSection::kNccl : calibration::BundleSection::kGpu,
                                        std::move(document), file);
    merged.push_back({file, nccl});
  }
  return merged;
}

CalibrateResult fit(const CalibrateCall& call) {
  if (const auto* files = std::get_if<std::vector<std::string>>(&call.mode)) return merge_files(*files, call.bundle);
  if (const auto* r = std::get_if<api::GemmCalibrationRequest>(&call.mode)) return api::calibrate_gemm(*r);
  if (const auto* r = std::get_if<api::LayerCalibrationRequest>(&call.mode)) return api::calibrate_layers(*r, CTWIN_DATA_DIR);
  if (const auto* r = std::get_if<api::TrainingCalibrationRequest>(&call.mode)) {
    return api::calibrate_training(*r, CTWIN_DATA_DIR);
  }
  if (const auto* r = std::get_if<TraceFitRequest>(&call.mode)) {
    api::EvalContext context;
    return api::calibrate_trace(r->request, r->scenario, context);
  }
  return api::calibrate_nccl(std::get<api::NcclCalibrationRequest>(call.mode));
}

CalibrateResult evaluate_calibrate_call(const CalibrateCall& call) {
  CalibrateResult result = fit(call);
  const bool merged = std::holds_alternative<std::vector<MergedFile>>(result);
  if (!merged && !call.bundle.empty()) {
    const bool nccl = std::holds_alternative<api::NcclCalibrationResult>(result);
    calibration::merge_into_bundle_file(call.bundle, nccl ? calibration::BundleSection::kNccl : calibration::BundleSection::kGpu,
                                        load_json_file(call.output), call.output);
  }
  return result;
}

void print_calibrate(const CalibrateResult& result, const CalibrateCall& call, const CalibrateCommandOptions& o) {
  const Format format = call.format;
  if (const auto* merged = std::get_if<std::vector<MergedFile>>(&result)) {
    if (format != Format::kTable) return;
    for (const auto& m : *merged) {
      std::cout << "merged " << m.file << " into " << call.bundle << " as its " << (m.nccl ? "cluster" : "GPU") << " part\n";
    }
  } else if (const auto* r = std::get_if<api::GemmCalibration>(&result)) {
    print_gemm_calibration(*r, o, format);
  } else if (const auto* r = std::get_if<api::LayerCalibration>(&result)) {
    print_layer_calibration(*r, o, format);
  } else if (const auto* r = std::get_if<api::TrainingCalibration>(&result)) {
    print_training_calibration(*r, o, format);
  } else if (const auto* r = std::get_if<api::TraceCalibration>(&result)) {
    print_trace_calibration(*r, o, format);
  } else {
    print_nccl_calibration(std::get<api::NcclCalibrationResult>(result), std::get<api::NcclCalibrationRequest>(call.mode),
                           o, format);
  }
}

}  // namespace

Action add_calibrate_command(CLI::App& app) {
  return add_command(app, CommandParts<CalibrateCommandOptions, CalibrateCall, CalibrateResult>{
                              "calibrate",
                              "Fit the twin to measurements: --gemm CSV --base PROFILE -o FILE, --layers JSON --base "
                              "PROFILE -o FILE, --training CASES --base PROFILE -o FILE, "
                              "or --cluster FILE --nccl LOG... -o FILE",
                              declare_calibrate_options, calibrate_call, evaluate_calibrate_call, print_calibrate});
}

}  // namespace ctwin::cli

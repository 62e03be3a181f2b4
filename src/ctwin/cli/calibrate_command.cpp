// ctwin calibrate: fit a twin's parameters to measurements. Which inputs are given decides what
// is calibrated (--gemm: a GPU profile's GEMM efficiency table); each mode is one function.

#include <filesystem>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/api/calibration_json.hpp"
#include "ctwin/api/compute_eval.hpp"
#include "ctwin/api/public_calibration.hpp"
#include "ctwin/cli/calibrate_options.hpp"
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

void calibrate_gemm(const CalibrateOptions& options) {
  if (options.base.empty()) throw InputError("--base", "", "required with --gemm: the GPU profile to calibrate");
  if (options.output.empty()) throw InputError("-o", "", "required with --gemm: where to write the calibrated profile");
  const Format format = parse_format(options.format);
  if (options.holdout.size() > 1) throw InputError("--holdout", "", "takes one GEMM CSV with --gemm");
  api::GemmCalibrationRequest request{options.gemm, options.base, options.output, std::nullopt};
  if (!options.holdout.empty()) request.holdout = options.holdout.front();
  const api::GemmCalibration result = api::calibrate_gemm(request);

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

}  // namespace

Action add_calibrate_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "calibrate", "Fit the twin to measurements: --gemm CSV --base PROFILE -o FILE, --layers JSON --base PROFILE -o FILE, "
                   "--training CASES --base PROFILE -o FILE, "
                   "or --cluster FILE --nccl LOG... -o FILE");
  auto options = std::make_shared<CalibrateOptions>();
  command->add_option("--gemm", options->gemm, "GEMM sweep CSV (m,n,k,dtype,time_us or tflops)");
  command->add_option("--layers", options->layers,
                      "layer times measured by validation/collect/layer_bench.py (JSON): fit the profile's training_time_scale");
  command->add_option("--training", options->training,
                      "measured training runs (a cases file like validation/training/cases.json): fit the profile's "
                      "training_time_scale on the dense runs on its GPU");
  command->add_option("--trace", options->trace,
                      "a profiler trace of a step (as ctwin validate --trace reads): fit the profile's "
                      "training_time_scale to its compute inside the layers; needs --scenario");
  command->add_option("--scenario", options->scenario, "with --trace: the scenario the trace ran (run on --base)");
  command->add_option("--only", options->only, "with --training: only runs whose id contains this text (repeatable)")
      ->take_all();
  command->add_option("--jobs", options->jobs, "with --training: runs simulated at once (default: one per core)")
      ->check(CLI::Range(1, 1024));
  command->add_option("--base", options->base, "GPU profile to calibrate: a file or a name under models/gpus");
  command->add_option("--nccl", options->nccl, "nccl-tests logs of one cluster, as printed; FILE@N for a log that does not list its N ranks")->take_all();
  command->add_option("--cluster", options->cluster, "with --nccl: the topology file the logs ran on");
  command->add_option("--op", options->op, "with --nccl: the collective, for logs that do not name it");
  command->add_option("--gpus", options->gpus, "with --nccl: ranks, for logs without '#  Rank' lines");
  command->add_option("--algo", options->algorithm, "with --nccl: NCCL_ALGO the logs ran with")->capture_default_str();
  command->add_option("--proto", options->protocol, "with --nccl: NCCL_PROTO the logs ran with")->capture_default_str();
  command->add_option("--network", options->network, "with --nccl or --training: analytical or flow")->capture_default_str();
  command->add_option("--holdout", options->holdout,
                      "held-out data: report the error on it (GEMM CSV, layer JSON, cases file, or nccl-tests logs)")
      ->take_all();
  command->add_option("-o,--output", options->output,
                      "calibrated profile (--gemm, --layers, --training) or calibration (--nccl) to write");
  command->add_option("--bundle", options->bundle,
                      "also merge what -o wrote into this calibration bundle (created if missing): the GPU profile "
                      "(--gemm, --layers, --training) or the cluster fit (--nccl) replaces that part, the other stays; "
                      "run, scale and sweep take it as --calibration");
  command->add_option("--merge", options->merge,
                      "with --bundle and nothing to fit: merge these files as they are (a GPU profile, e.g. "
                      "models/gpus/calibrated/h100-sxm.json, or a calibration --nccl wrote)")
      ->take_all();
  command->add_option("--format", options->format, "table, json or csv")->capture_default_str();
  command->add_flag("--rows", options->rows,
                    "with --nccl: also every size of every log: measured busbw against the prediction with the defaults "
                    "and calibrated");
  return [options, command] {
    if (int(!options->gemm.empty()) + int(!options->nccl.empty()) + int(!options->layers.empty()) +
            int(!options->training.empty()) + int(!options->trace.empty()) > 1) {
      throw InputError(!options->trace.empty()      ? "--trace"
                       : !options->training.empty() ? "--training"
                       : options->layers.empty()    ? "--nccl"
                                                    : "--layers",
                       "", "calibrate one thing at a time: --gemm, --layers, --training, --trace or --nccl");
    }
    if (options->trace.empty() && !options->scenario.empty()) throw InputError("--scenario", "", "applies to --trace");
    if (options->training.empty() && (!options->only.empty() || command->count("--jobs") > 0)) {
      throw InputError(options->only.empty() ? "--jobs" : "--only", "", "applies to --training");
    }
    if (options->rows && options->nccl.empty()) throw InputError("--rows", "", "applies to --nccl");
    const bool gpu_fit =
        !options->gemm.empty() || !options->layers.empty() || !options->training.empty() || !options->trace.empty();
    if (!options->merge.empty()) {
      if (gpu_fit || !options->nccl.empty()) throw InputError("--merge", "", "merges files as they are; fit nothing with it");
      if (options->bundle.empty()) throw InputError("--merge", "", "needs --bundle FILE to merge into");
      for (const auto& file : options->merge) {
        nlohmann::json document = load_json_file(file);
        const bool nccl = document.is_object() && document.contains("ctwin_calibration");
        calibration::merge_into_bundle_file(options->bundle,
                                            nccl ? calibration::BundleSection::kNccl : calibration::BundleSection::kGpu,
                                            std::move(document), file);
        if (parse_format(options->format) == Format::kTable) {
          std::cout << "merged " << file << " into " << options->bundle << " as its " << (nccl ? "cluster" : "GPU")
                    << " part\n";
        }
      }
      return;
    }
    if (!options->bundle.empty() && !gpu_fit && options->nccl.empty()) {
      throw InputError("--bundle", "", "merges what --gemm, --layers, --training or --nccl fitted, or --merge FILE");
    }
    // A bundle that is there must be one before anything is fitted: a profile given by mistake stays intact.
    if (!options->bundle.empty() && path_exists(options->bundle)) {
      (void)calibration::read_calibration_bundle(options->bundle);
    }
    if (!options->gemm.empty()) calibrate_gemm(*options);
    if (!options->layers.empty()) calibrate_layers(*options);
    if (!options->training.empty()) calibrate_training(*options);
    if (!options->trace.empty()) calibrate_from_trace(*options);
    if (!options->nccl.empty()) calibrate_nccl(*options);
    if (gpu_fit || !options->nccl.empty()) {
      if (!options->bundle.empty()) {
        calibration::merge_into_bundle_file(options->bundle,
                                            gpu_fit ? calibration::BundleSection::kGpu : calibration::BundleSection::kNccl,
                                            load_json_file(options->output), options->output);
      }
      return;
    }
    throw InputError("ctwin calibrate", "",
                     "nothing to calibrate: give --gemm CSV --base PROFILE -o FILE, --layers JSON --base PROFILE -o FILE, "
                     "--training CASES --base PROFILE -o FILE "
                     "or --cluster FILE --nccl LOG... -o FILE");
  };
}

}  // namespace ctwin::cli

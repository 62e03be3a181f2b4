// ctwin validate: the twin against measured nccl-tests logs. For every setup of the manifest
// (validation/nccl/setups.json) the same collective, sizes and type are predicted on the
// bundled topology that models the hardware, and the busbw error is reported per setup and,
// for the acceptance groups, as a median over sizes at or above 1 MiB and below; with
// --calibrated, also after calibrating on other logs of the same cluster. With --training it
// validates training steps against published runs instead (validate_training.cpp), with
// --scaling published scaling runs (validate_scaling.cpp).

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include <CLI/CLI.hpp>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/comparison_output.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/validate_run.hpp"
#include "ctwin/cli/validate_scaling.hpp"
#include "ctwin/cli/validate_training.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::cli {
namespace {

struct ValidateOptions {
  std::string setups = "validation/nccl/setups.json";
  std::string role = "all";
  std::vector<std::string> only;
  std::string network = "flow";
  std::string format = "table";
  std::string figure;  ///< --figure: predicted against measured (nccl, --training)
  bool rows = false;
  bool calibrated = false;
  bool training = false;
  std::string run;          ///< --run: a measured run of the user's own
  std::string calibration;  ///< with --run: a calibration to compare with
  std::string kernels;      ///< --kernels: an MoE kernel profile
  std::string gpu;          ///< with --kernels: the GPU profile to predict with
  std::string trace;        ///< --trace: a profiler trace
  std::string scenario;     ///< with --trace: the scenario the trace ran
  std::string profiles;
  unsigned jobs = default_jobs();
  bool scaling = false;
  std::string cases;
  std::vector<std::string> overrides;
};

std::string percent(const ErrorStats& summary) {
  return summary.count == 0 ? "-" : fixed(summary.median_abs * 100, 1) + "%";
}

std::string algo_proto(const calibration::BusbwComparison& row) {
  return std::string(collectives::name(row.algorithm)) + "/" + std::string(collectives::name(row.protocol));
}

void print_table(const api::NcclValidation& validation, const ValidateOptions& options, std::ostream& out) {
  const auto& results = validation.results;
  out << "# ctwin validate: predicted vs measured nccl-tests busbw, network " << options.network
      << "; error = predicted / measured - 1 (out-of-place); medians of |error|\n";
  std::vector<std::string> headers{"setup", "role", "ranks", "rows", ">=1MiB", "<1MiB", "largest: measured", "predicted",
                                   "error", "algo/proto"};
  if (options.calibrated) {
    for (const char* h : {"calibrated >=1MiB", "<1MiB", "calibrated on"}) headers.emplace_back(h);
  }
  Table table(headers);
  for (const auto& result : results) {
    const auto& setup = *result.setup;
    std::vector<std::string> cells;
    if (!result.skipped.empty()) {
      cells = {setup.id, setup.role, std::to_string(setup.ranks), "-", "skipped: " + result.skipped};
    } else {
      const api::NcclErrorSplit split = api::error_split(result.uncalibrated);
      const auto& last = result.uncalibrated.rows.back();
      cells = {setup.id,
               setup.role,
               std::to_string(setup.ranks),
               std::to_string(result.uncalibrated.rows.size()),
               percent(split.large),
               percent(split.small),
               fixed(last.measured_busbw_GBps, 1) + " GB/s",
               fixed(last.predicted_busbw_GBps, 1) + " GB/s",
               signed_percent(last.error),
               algo_proto(last)};
      if (options.calibrated) {
        if (result.calibrated) {
          const api::NcclErrorSplit calibrated = api::error_split(*result.calibrated);
          cells.push_back(percent(calibrated.large));
          cells.push_back(percent(calibrated.small));
        } else {
          cells.insert(cells.end(), {"(fitted)", ""});
        }
        cells.push_back(result.calibrated_on);
      }
    }
    cells.resize(headers.size());
    table.add_row(cells);
    if (options.rows && result.skipped.empty()) {
      for (const auto& row : result.uncalibrated.rows) {
        std::vector<std::string> detail{"  " + std::to_string(row.size.count()) + " B", "", "", "", "", "",
                                        fixed(row.measured_busbw_GBps, 2) + " GB/s",
                                        fixed(row.predicted_busbw_GBps, 2) + " GB/s", signed_percent(row.error),
                                        algo_proto(row)};
        detail.resize(headers.size());
        table.add_row(detail);
      }
    }
  }
  table.print(out, Format::kTable);

  out << "\n# by group: median |busbw error| over every row of the group's setups\n";
  std::vector<std::string> summary_headers{"group", "rows >=1MiB", "median", "max", "rows <1MiB", "median", "max"};
  if (options.calibrated) {
    for (const char* h : {"held-out rows", "calibrated >=1MiB", "<1MiB"}) summary_headers.emplace_back(h);
  }
  Table summary(summary_headers);
  const auto max_of = [](const ErrorStats& s) { return s.count ? fixed(s.max_abs * 100, 1) + "%" : "-"; };
  for (const auto& [group, errors] : api::nccl_group_errors(validation)) {
    const ErrorStats& large = errors.uncalibrated.large;
    const ErrorStats& small = errors.uncalibrated.small;
    std::vector<std::string> cells{group, std::to_string(large.count), percent(large), max_of(large),
                                   std::to_string(small.count), percent(small), max_of(small)};
    if (options.calibrated) {
      const ErrorStats& cal_large = errors.calibrated.large;
      const ErrorStats& cal_small = errors.calibrated.small;
      cells.push_back(std::to_string(cal_large.count + cal_small.count));
      cells.push_back(percent(cal_large));
      cells.push_back(percent(cal_small));
    }
    summary.add_row(cells);
  }
  summary.print(out, Format::kTable);
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto* command = app.add_subcommand("validate", "Predicted vs measured: nccl-tests busbw for every logged setup, "
                                                 "(--training) published training runs or (--scaling) scaling runs");
  auto options = std::make_shared<ValidateOptions>();
  command->add_option("--setups", options->setups, "manifest of measured logs")->capture_default_str();
  command->add_option("--role", options->role, "check (tests the defaults), underperforming, or all")
      ->capture_default_str();
  command->add_option("--only", options->only, "only setups whose id contains this text (repeatable)")->take_all();
  command->add_option("--network", options->network, "analytical or flow")->capture_default_str();
  command->add_flag("--calibrated", options->calibrated,
                    "also calibrate on one log per cluster and report the error on the others (held out); with "
                    "--training, fit each GPU's training_time_scale on its other dense runs (leave one out)");
  command->add_flag("--rows", options->rows, "print every size, not only the per-setup summary");
  command->add_option("--format", options->format, "table, json or csv (csv: one line per size)")->capture_default_str();
  command->add_option("--figure", options->figure,
                      figure_help("predicted against measured busbw with the ±15 % band (nccl-tests logs), or each "
                                  "run's error with the ±10 % band (--training),"));
  command->add_flag("--training", options->training,
                    "validate ctwin run against published training runs instead of nccl-tests logs");
  command->add_flag("--scaling", options->scaling,
                    "validate ctwin scale against published scaling runs (MFU per size and its trend)");
  command->add_option("--cases", options->cases, "with --training or --scaling: the cases file (default "
                      "validation/training/cases.json or scaling.json)");
  command->add_option("--profiles", options->profiles,
                      "with --training: a folder of GPU profiles (e.g. from ctwin calibrate --layers) that replace "
                      "the cases' profiles of the same name");
  command->add_option("--set", options->overrides,
                      "with --scaling: key=value on each study's scenario, e.g. gpu=models/gpus/calibrated/h100-sxm.json; with --trace: on --scenario")
      ->take_all();
  command->add_option("--jobs", options->jobs, "with --training: cases simulated at once (default: one per core)")
      ->check(CLI::Range(1, 1024));
  command->add_option("--run", options->run,
                      "a measured run of your own (JSON: scenario, measured step_time or tokens/s, optional "
                      "calibration; docs/calibration-bundle.md): predicted vs measured, uncalibrated and calibrated");
  command->add_option("--calibration", options->calibration,
                      "with --run: the calibration to compare with (replaces the run file's)");
  command->add_option("--kernels", options->kernels,
                      "an MoE kernel profile (validation/kernels/*.json, from validation/collect/kernel_profile.py): "
                      "grouped GEMMs and token permutation predicted vs measured");
  command->add_option("--gpu", options->gpu, "with --kernels: the GPU profile to predict with (a file or a name)");
  command->add_option("--trace", options->trace,
                      "a profiler trace of a step (PyTorch profiler Chrome JSON, ctwin run --trace, or nsys stats "
                      "cuda_gpu_kern_sum CSV): kernel time per class and phase, measured vs the twin's step of --scenario");
  command->add_option("--scenario", options->scenario, "with --trace: the scenario the trace ran (a file or a bundled name; --set changes it)");
  return [options, command] {
    if (!options->figure.empty()) {
      check_figure_path(options->figure);
      if (!options->kernels.empty() || !options->run.empty() || !options->trace.empty() || options->scaling) {
        throw InputError("--figure", "", "draws nccl-tests and --training validations, not --kernels, --run, --trace or --scaling");
      }
    }
    if (!options->kernels.empty()) {
      for (const char* other : {"--run", "--calibration", "--training", "--scaling", "--setups", "--role", "--only",
                                "--calibrated", "--rows", "--cases", "--profiles", "--set", "--jobs", "--network"}) {
        if (command->count(other) > 0) throw InputError(other, "", "does not apply to --kernels");
      }
      if (options->gpu.empty()) throw InputError("--gpu", "", "required with --kernels: the GPU profile to predict with");
      run_kernel_validation(options->kernels, options->gpu, options->format);
      return;
    }
    if (command->count("--gpu") > 0) throw InputError("--gpu", "", "applies to --kernels");
    if (!options->trace.empty()) {
      for (const char* other : {"--run", "--calibration", "--training", "--scaling", "--setups", "--role", "--only",
                                "--calibrated", "--rows", "--cases", "--profiles", "--jobs", "--network"}) {
        if (command->count(other) > 0) throw InputError(other, "", "does not apply to --trace (--set network=... does)");
      }
      if (options->scenario.empty()) throw InputError("--scenario", "", "required with --trace: the scenario the trace ran");
      run_trace_validation(options->trace, options->scenario, options->overrides, options->format);
      return;
    }
    if (command->count("--scenario") > 0) throw InputError("--scenario", "", "applies to --trace");
    if (!options->run.empty()) {
      for (const char* other : {"--training", "--scaling", "--setups", "--role", "--only", "--calibrated", "--rows",
                                "--cases", "--profiles", "--set", "--jobs", "--network"}) {
        if (command->count(other) > 0) throw InputError(other, "", "does not apply to --run");
      }
      run_run_validation(options->run, options->calibration, options->format);
      return;
    }
    if (command->count("--calibration") > 0) throw InputError("--calibration", "", "applies to --run");
    if (options->training || options->scaling) {
      const std::string mode = options->training ? "--training" : "--scaling";
      if (options->training && options->scaling) throw InputError("--scaling", "", "give --training or --scaling, not both");
      if (options->scaling && command->count("--jobs") > 0) throw InputError("--jobs", "", "applies to --training");
      if (options->scaling && command->count("--profiles") > 0) throw InputError("--profiles", "", "applies to --training");
      for (const char* nccl_only : {"--setups", "--role", "--calibrated", "--rows"}) {
        if (options->training && std::string(nccl_only) == "--calibrated") continue;
        if (command->count(nccl_only) > 0) {
          throw InputError(nccl_only, "", "applies to nccl-tests validation, not " + mode);
        }
      }
    }
    if (!options->scaling && !options->overrides.empty()) throw InputError("--set", "", "applies to --scaling");
    if (options->scaling) {
      if (!options->only.empty()) throw InputError("--only", "", "applies to nccl-tests and --training validation");
      ScalingValidateOptions scaling;
      if (!options->cases.empty()) scaling.cases = options->cases;
      scaling.network = options->network;
      scaling.format = options->format;
      scaling.overrides = options->overrides;
      run_scaling_validation(scaling);
      return;
    }
    if (options->training) {
      TrainingValidateOptions training;
      if (!options->cases.empty()) training.cases = options->cases;
      training.only = options->only;
      training.network = options->network;
      training.profiles = options->profiles;
      training.format = options->format;
      training.jobs = options->jobs;
      training.calibrated = options->calibrated;
      training.figure = options->figure;
      run_training_validation(training);
      return;
    }
    if (!options->cases.empty()) throw InputError("--cases", "", "needs --training or --scaling");
    if (command->count("--jobs") > 0) throw InputError("--jobs", "", "applies to --training");
    if (command->count("--profiles") > 0) throw InputError("--profiles", "", "applies to --training");
    const Format format = parse_format(options->format);
    api::NcclValidationRequest request;
    request.setups = options->setups;
    request.role = options->role;
    request.only = options->only;
    request.network = network_flag(options->network);
    request.calibrated = options->calibrated;
    const api::NcclValidation validation = api::validate_nccl(request);
    if (!options->figure.empty()) {
      write_figure("validate", api::nccl_validation_json(validation, options->network, options->calibrated), options->figure);
    }
    if (format == Format::kJson) {
      std::cout << json_text(api::nccl_validation_json(validation, options->network, options->calibrated), 2) << '\n';
    } else if (format == Format::kCsv) {
      comparison_table(api::nccl_csv_columns(), api::nccl_comparison_rows(validation)).print(std::cout, Format::kCsv);
    } else {
      print_table(validation, *options, std::cout);
    }
  };
}

}  // namespace ctwin::cli

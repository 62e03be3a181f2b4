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
#include <variant>

#include <CLI/CLI.hpp>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/command_pattern.hpp"
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
  GivenFlags given;
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

void declare_validate_options(CLI::App& command, ValidateOptions& o) {
  o.given.attach(command);
  command.add_option("--setups", o.setups, "manifest of measured logs")->capture_default_str();
  command.add_option("--role", o.role, "check (tests the defaults), underperforming, or all")
      ->capture_default_str();
  command.add_option("--only", o.only, "only setups whose id contains this text (repeatable)")->take_all();
  command.add_option("--network", o.network, "analytical or flow")->capture_default_str();
  command.add_flag("--calibrated", o.calibrated,
                    "also calibrate on one log per cluster and report the error on the others (held out); with "
                    "--training, fit each GPU's training_time_scale on its other dense runs (leave one out)");
  command.add_flag("--rows", o.rows, "print every size, not only the per-setup summary");
  command.add_option("--format", o.format, "table, json or csv (csv: one line per size)")->capture_default_str();
  command.add_option("--figure", o.figure,
                      figure_help("predicted against measured busbw with the ±15 % band (nccl-tests logs), or each "
                                  "run's error with the ±10 % band (--training),"));
  command.add_flag("--training", o.training,
                    "validate ctwin run against published training runs instead of nccl-tests logs");
  command.add_flag("--scaling", o.scaling,
                    "validate ctwin scale against published scaling runs (MFU per size and its trend)");
  command.add_option("--cases", o.cases, "with --training or --scaling: the cases file (default "
                      "validation/training/cases.json or scaling.json)");
  command.add_option("--profiles", o.profiles,
                      "with --training: a folder of GPU profiles (e.g. from ctwin calibrate --layers) that replace "
                      "the cases' profiles of the same name");
  command.add_option("--set", o.overrides,
                      "with --scaling: key=value on each study's scenario, e.g. gpu=models/gpus/calibrated/h100-sxm.json; with --trace: on --scenario")
      ->take_all();
  command.add_option("--jobs", o.jobs, "with --training: cases simulated at once (default: one per core)")
      ->check(CLI::Range(1, 1024));
  command.add_option("--run", o.run,
                      "a measured run of your own (JSON: scenario, measured step_time or tokens/s, optional "
                      "calibration; docs/calibration-bundle.md): predicted vs measured, uncalibrated and calibrated");
  command.add_option("--calibration", o.calibration,
                      "with --run: the calibration to compare with (replaces the run file's)");
  command.add_option("--kernels", o.kernels,
                      "an MoE kernel profile (validation/kernels/*.json, from validation/collect/kernel_profile.py): "
                      "grouped GEMMs and token permutation predicted vs measured");
  command.add_option("--gpu", o.gpu, "with --kernels: the GPU profile to predict with (a file or a name)");
  command.add_option("--trace", o.trace,
                      "a profiler trace of a step (PyTorch profiler Chrome JSON, ctwin run --trace, or nsys stats "
                      "cuda_gpu_kern_sum CSV): kernel time per class and phase, measured vs the twin's step of --scenario");
  command.add_option("--scenario", o.scenario, "with --trace: the scenario the trace ran (a file or a bundled name; --set changes it)");
}

// The query: one mode's request, chosen by the flags given (each mode refuses the others' flags).
struct ValidateCall {
  std::variant<api::NcclValidationRequest, TrainingValidateOptions, ScalingValidateOptions, RunValidateRequest,
               KernelValidateRequest, TraceValidateRequest>
      mode;
  Format format = Format::kTable;
};

using ValidateResult = std::variant<api::NcclValidation, TrainingValidationResult, api::ScalingValidation,
                                    api::RunValidation, api::KernelValidation, api::TraceValidation>;

ValidateCall validate_call(const ValidateOptions& o) {
  const auto& given = o.given;
  if (!o.figure.empty()) {
    check_figure_path(o.figure);
    if (!o.kernels.empty() || !o.run.empty() || !o.trace.empty() || o.scaling) {
      throw InputError("--figure", "", "draws nccl-tests and --training validations, not --kernels, --run, --trace or --scaling");
    }
  }
  if (!o.kernels.empty()) {
    for (const char* other : {"--run", "--calibration", "--training", "--scaling", "--setups", "--role", "--only",
                              "--calibrated", "--rows", "--cases", "--profiles", "--set", "--jobs", "--network"}) {
      if (given(other)) throw InputError(other, "", "does not apply to --kernels");
    }
    if (o.gpu.empty()) throw InputError("--gpu", "", "required with --kernels: the GPU profile to predict with");
    return ValidateCall{KernelValidateRequest{o.kernels, o.gpu}, parse_format(o.format)};
  }
  if (given("--gpu")) throw InputError("--gpu", "", "applies to --kernels");
  if (!o.trace.empty()) {
    for (const char* other : {"--run", "--calibration", "--training", "--scaling", "--setups", "--role", "--only",
                              "--calibrated", "--rows", "--cases", "--profiles", "--jobs", "--network"}) {
      if (given(other)) throw InputError(other, "", "does not apply to --trace (--set network=... does)");
    }
    if (o.scenario.empty()) throw InputError("--scenario", "", "required with --trace: the scenario the trace ran");
    return ValidateCall{TraceValidateRequest{o.trace, o.scenario, o.overrides}, parse_format(o.format)};
  }
  if (given("--scenario")) throw InputError("--scenario", "", "applies to --trace");
  if (!o.run.empty()) {
    for (const char* other : {"--training", "--scaling", "--setups", "--role", "--only", "--calibrated", "--rows",
                              "--cases", "--profiles", "--set", "--jobs", "--network"}) {
      if (given(other)) throw InputError(other, "", "does not apply to --run");
    }
    return ValidateCall{RunValidateRequest{o.run, o.calibration}, parse_format(o.format)};
  }
  if (given("--calibration")) throw InputError("--calibration", "", "applies to --run");
  if (o.training || o.scaling) {
    const std::string mode = o.training ? "--training" : "--scaling";
    if (o.training && o.scaling) throw InputError("--scaling", "", "give --training or --scaling, not both");
    if (o.scaling && given("--jobs")) throw InputError("--jobs", "", "applies to --training");
    if (o.scaling && given("--profiles")) throw InputError("--profiles", "", "applies to --training");
    for (const char* nccl_only : {"--setups", "--role", "--calibrated", "--rows"}) {
      if (o.training && std::string(nccl_only) == "--calibrated") continue;
      if (given(nccl_only)) throw InputError(nccl_only, "", "applies to nccl-tests validation, not " + mode);
    }
  }
  if (!o.scaling && !o.overrides.empty()) throw InputError("--set", "", "applies to --scaling");
  if (o.scaling) {
    if (!o.only.empty()) throw InputError("--only", "", "applies to nccl-tests and --training validation");
    ScalingValidateOptions scaling;
    if (!o.cases.empty()) scaling.cases = o.cases;
    scaling.network = o.network;
    scaling.format = o.format;
    scaling.overrides = o.overrides;
    return ValidateCall{std::move(scaling), parse_format(o.format)};
  }
  if (o.training) {
    TrainingValidateOptions training;
    if (!o.cases.empty()) training.cases = o.cases;
    training.only = o.only;
    training.network = o.network;
    training.profiles = o.profiles;
    training.format = o.format;
    training.jobs = o.jobs;
    training.calibrated = o.calibrated;
    training.figure = o.figure;
    const Format format = parse_format(o.format);
    check_training_options(training);
    return ValidateCall{std::move(training), format};
  }
  if (!o.cases.empty()) throw InputError("--cases", "", "needs --training or --scaling");
  if (given("--jobs")) throw InputError("--jobs", "", "applies to --training");
  if (given("--profiles")) throw InputError("--profiles", "", "applies to --training");
  const Format format = parse_format(o.format);
  api::NcclValidationRequest request;
  request.setups = o.setups;
  request.role = o.role;
  request.only = o.only;
  request.network = network_flag(o.network);
  request.calibrated = o.calibrated;
  return ValidateCall{std::move(request), format};
}

ValidateResult evaluate_validate_call(const ValidateCall& call) {
  if (const auto* r = std::get_if<KernelValidateRequest>(&call.mode)) return evaluate_kernel_validation(*r);
  if (const auto* r = std::get_if<TraceValidateRequest>(&call.mode)) return evaluate_trace_validation(*r);
  if (const auto* r = std::get_if<RunValidateRequest>(&call.mode)) return evaluate_run_validation(*r);
  if (const auto* r = std::get_if<ScalingValidateOptions>(&call.mode)) return evaluate_scaling_validation(*r);
  if (const auto* r = std::get_if<TrainingValidateOptions>(&call.mode)) return evaluate_training_validation(*r);
  return api::validate_nccl(std::get<api::NcclValidationRequest>(call.mode));
}

void print_nccl_validation(const api::NcclValidation& validation, Format format, const ValidateOptions& o) {
  if (!o.figure.empty()) {
    write_figure("validate", api::nccl_validation_json(validation, o.network, o.calibrated), o.figure);
  }
  if (format == Format::kJson) {
    std::cout << json_text(api::nccl_validation_json(validation, o.network, o.calibrated), 2) << '\n';
  } else if (format == Format::kCsv) {
    comparison_table(api::nccl_csv_columns(), api::nccl_comparison_rows(validation)).print(std::cout, Format::kCsv);
  } else {
    print_table(validation, o, std::cout);
  }
}

void print_validate(const ValidateResult& result, const ValidateCall& call, const ValidateOptions& o) {
  if (const auto* v = std::get_if<api::KernelValidation>(&result)) {
    print_kernel_validation(*v, call.format);
  } else if (const auto* v = std::get_if<api::TraceValidation>(&result)) {
    print_trace_validation(*v, call.format);
  } else if (const auto* v = std::get_if<api::RunValidation>(&result)) {
    print_run_validation(*v, call.format);
  } else if (const auto* v = std::get_if<api::ScalingValidation>(&result)) {
    print_scaling_validation(*v, o.network, call.format);
  } else if (const auto* v = std::get_if<TrainingValidationResult>(&result)) {
    print_training_validation(*v, std::get<TrainingValidateOptions>(call.mode));
  } else {
    print_nccl_validation(std::get<api::NcclValidation>(result), call.format, o);
  }
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  return add_command(app, CommandParts<ValidateOptions, ValidateCall, ValidateResult>{
                              "validate",
                              "Predicted vs measured: nccl-tests busbw for every logged setup, "
                              "(--training) published training runs or (--scaling) scaling runs",
                              declare_validate_options, validate_call, evaluate_validate_call, print_validate});
}

}  // namespace ctwin::cli

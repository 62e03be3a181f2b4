// ctwin scale: a scenario's throughput and linearity over GPU counts (strong or weak scaling).

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include "ctwin/api/public_analysis.hpp"
#include "ctwin/api/error_band.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/error_band_output.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/placement_option.hpp"
#include "ctwin/cli/step_flags.hpp"
#include "ctwin/cli/warnings_output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::cli {
namespace {

struct ScaleOptions {
  std::string scenario;
  std::string placement;
  std::string gpus;
  bool weak = false;
  std::string batch;
  std::string network;
  std::vector<std::string> overrides;
  std::string calibration;
  std::string format = "table";
  std::string figure;
  unsigned jobs = default_jobs();
};

std::vector<std::int64_t> parse_sizes(const std::string& text) {
  std::vector<std::int64_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9) {
      throw InputError("--gpus", "", "expected a comma-separated list of GPU counts such as 8,64,512, got '" + text + "'");
    }
    sizes.push_back(std::stoll(item));
  }
  return sizes;
}

void declare_scale_options(CLI::App& command, ScaleOptions& o) {
  command.add_option("scenario", o.scenario, "scenario file (scenarios/*.json)")->required();
  command.add_option("--gpus", o.gpus, "GPU counts, ascending: 8,64,512,4096,16384")->required();
  command.add_flag("--weak", o.weak, "grow the global batch with the GPU count: --batch per-replica");
  command.add_option("--batch", o.batch,
                     "each size's global batch: nearest (the scenario's, rounded to the nearest multiple of "
                     "micro-batch x dp; the default), fixed (the scenario's; a size it does not divide is invalid) "
                     "or per-replica (each DP replica keeps its share: weak scaling)");
  command.add_option("--network", o.network, "analytical or flow (default: the scenario's)");
  command.add_option("--calibration", o.calibration,
                     "calibration file (ctwin calibrate --bundle, or --nccl -o): its GPU profile and cluster fit "
                     "replace the scenario's");
  command.add_option("--set", o.overrides, "override a scenario field at every size: parallel.tp=4 (repeatable)");
  add_placement_option(command, o.placement);
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
  command.add_option("--figure", o.figure, figure_help("linearity and MFU against GPUs"));
  command.add_option("--jobs", o.jobs, "sizes simulated at once (default: one per core)")->check(CLI::Range(1, 1024));
}

// The query: the scenario as the flags change it, and the sizes it is replayed at.
struct ScaleCall {
  api::Scenario input;
  api::ScalingOptions sizes;
  Format format = Format::kTable;
};

ScaleCall scale_call(const ScaleOptions& o) {
  const Format format = parse_format(o.format);
  if (!o.figure.empty()) check_figure_path(o.figure);
  const std::vector<std::string> overrides = with_step_flags(o.overrides, {o.placement, "", o.network});
  api::ScalingOptions query;
  query.gpus = parse_sizes(o.gpus);
  if (o.weak && !o.batch.empty() && o.batch != "per-replica") {
    throw InputError("--weak", "", "grows the batch per replica; it cannot be combined with --batch " + o.batch);
  }
  query.batch = o.weak ? analysis::BatchPolicy::kPerReplica
                       : analysis::parse_batch_policy(o.batch.empty() ? "nearest" : o.batch, "--batch");
  query.jobs = o.jobs;
  // Progress on a terminal only: sizes on flow take seconds each, and stdout may be a pipe to a parser.
  if (isatty(fileno(stderr)) != 0) {
    query.progress = [](std::size_t i, std::size_t n, std::int64_t gpus) {
      std::cerr << "\r\033[K[" << i + 1 << "/" << n << "] " << gpus << " GPUs" << std::flush;
      if (i + 1 == n) std::cerr << '\n';
    };
  }
  return ScaleCall{api::with_calibration(api::Scenario::load(o.scenario), o.calibration).with_assignments(overrides),
                   std::move(query), format};
}

analysis::ScalingStudy evaluate_scale_call(const ScaleCall& call) {
  api::EvalContext context;
  return api::evaluate_scaling(call.input, context, call.sizes);
}

void print_scale(const analysis::ScalingStudy& study, const ScaleCall& call, const ScaleOptions& o) {
  const Format format = call.format;
  if (!o.figure.empty()) write_figure("scale", api::scaling_json(study), o.figure);
  if (format == Format::kJson) {
    std::cout << json_text(api::scaling_json(study), 2) << '\n';
    return;
  }
  const analysis::ErrorBands bands = api::load_bundled_error_bands();
  const analysis::ErrorBand band = analysis::band_for(bands, study.error_band);
  Table table({"gpus", "dp", "global batch", "step s", "step s p10-p90", "tokens/s", "tokens/s/GPU", "MFU %",
               "MFU % p10-p90", "comm %", "linearity", "fits", "warnings", "note"});
  for (const auto& p : study.points) {
    if (!p.invalid.empty()) {
      table.add_row({std::to_string(p.gpus), "-", std::to_string(p.global_batch), "-", "-", "-", "-", "-", "-", "-", "-",
                     "-", "-", "invalid: " + p.invalid});
      continue;
    }
    const auto& r = p.report;
    table.add_row({std::to_string(p.gpus), std::to_string(r.dp), std::to_string(p.global_batch), fixed(r.step_time_s, 4),
                   interval_text(analysis::time_interval(r.step_time_s, *band.from), 4),
                   fixed(r.tokens_per_s, 0), fixed(r.tokens_per_s / static_cast<double>(p.gpus), 1), fixed(100 * r.mfu, 1),
                   interval_text(analysis::throughput_interval(r.mfu, *band.from), 1, 100),
                   fixed(100 * r.comm_ratio, 1), fixed(p.linearity, 3),
                   r.fits_memory ? "yes" : "no", warning_checks(p.warnings).empty() ? "-" : warning_checks(p.warnings),
                   p.batch_note.empty() ? "" : "batch: " + p.batch_note});
  }
  if (format == Format::kTable) {
    const bool weak = study.batch == analysis::BatchPolicy::kPerReplica;
    std::cout << study.model << ", " << (weak ? "weak" : "strong") << " scaling, batch "
              << analysis::batch_policy_name(study.batch) << "; linearity = tokens/s / "
              << "(tokens/s at the smallest size x size ratio)\n";
  }
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
  if (format != Format::kTable) return;
  print_band_source(std::cout, band);
  for (const auto& p : study.points) {
    if (p.warnings.empty()) continue;
    std::cout << "\n[" << p.gpus << " GPUs]";
    print_warnings(std::cout, p.warnings);
  }
}

}  // namespace

Action add_scale_command(CLI::App& app) {
  return add_command(app, CommandParts<ScaleOptions, ScaleCall, analysis::ScalingStudy>{
                              "scale", "Throughput and linearity of a scenario over GPU counts", declare_scale_options,
                              scale_call, evaluate_scale_call, print_scale});
}

}  // namespace ctwin::cli

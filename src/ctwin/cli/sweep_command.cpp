// ctwin sweep: one step per point of a grid of scenario fields, as a table, JSON or CSV; shards of
// a sweep and their merge.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "ctwin/api/shard.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/cli/placement_option.hpp"
#include "ctwin/cli/step_flags.hpp"
#include "ctwin/cli/warnings_output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::cli {
namespace {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> grid;
  std::vector<std::string> overrides;
  std::string calibration;
  std::string network;
  std::string placement;
  std::string format = "table";
  unsigned jobs = default_jobs();
  std::string shard;
  std::vector<std::string> merge;
};

// Each distinct warning once, with the points it concerns: the table names only its check.
void print_point_warnings(const api::SweepResult& result) {
  std::map<std::string, std::pair<fabric::BuildWarning, std::vector<std::size_t>>> seen;
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    for (const auto& w : result.points[i].warnings) {
      auto& entry = seen[w.check + "\n" + w.message];
      entry.first = w;
      entry.second.push_back(i + 1);
    }
  }
  if (seen.empty()) return;
  std::cout << "\nwarnings (rows of the table above)\n";
  for (const auto& [key, entry] : seen) {
    std::string rows;
    for (const auto row : entry.second) {
      if (!rows.empty()) rows += ',';
      rows += std::to_string(row);
    }
    std::cout << "  " << entry.first.check << " (rows " << rows << "): " << entry.first.message << "\n    fix: " << entry.first.fix
              << '\n';
  }
}

void print_sweep(const api::SweepResult& result, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::sweep_json(result), 2) << '\n';
    return;
  }
  std::vector<std::string> headers;
  for (const auto& axis : result.axes) headers.push_back(axis.path);
  for (const char* column :
       {"dp", "step_s", "tokens_per_s", "mfu_%", "comm_%", "bubble_s", "mem_GiB", "fits", "note", "warnings"}) {
    headers.emplace_back(column);
  }
  Table table(headers);
  for (const auto& p : result.points) {
    std::vector<std::string> row = p.values;
    if (!p.invalid.empty()) {
      for (int i = 0; i < 8; ++i) row.emplace_back("-");
      row.push_back("invalid: " + p.invalid);
    } else {
      const auto& f = p.figures;
      for (const auto& cell : {std::to_string(f.dp), fixed(f.step_time_s, 4), fixed(f.tokens_per_s, 0),
                               fixed(100 * f.mfu, 1), fixed(100 * f.comm_ratio, 1), fixed(f.bubble_s, 4),
                               fixed(f.memory_gib_per_gpu, 1), std::string(f.fits_memory ? "yes" : "no"),
                               std::string()}) {
        row.push_back(cell);
      }
    }
    const std::string checks = warning_checks(p.warnings);
    row.push_back(checks.empty() ? "-" : checks);
    table.add_row(row);
  }
  if (format == Format::kTable) std::cout << result.model << ": " << result.points.size() << " points\n";
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
  if (format == Format::kTable) print_point_warnings(result);
}

void declare_sweep_options(CLI::App& command, SweepOptions& o) {
  command.add_option("scenario", o.scenario, "scenario file (scenarios/*.json)");
  command.add_option("--grid", o.grid,
                     "field=v1,v2,...: a scenario field and its values, e.g. parallel.tp=1,2,4,8 or "
                     "cluster.server.nics.bandwidth=400Gbps,800Gbps (repeatable: every combination)");
  command.add_option("--set", o.overrides, "override a scenario field at every point: training.global_batch=256");
  command.add_option("--network", o.network, "analytical or flow (default: the scenario's)");
  add_placement_option(command, o.placement);
  command.add_option("--calibration", o.calibration,
                     "calibration file (ctwin calibrate --bundle, or --nccl -o): its GPU profile and cluster fit "
                     "replace the scenario's");
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
  command.add_option("--jobs", o.jobs, "points simulated at once (default: one per core; results do not depend on it)")
      ->check(CLI::Range(1, 1024));
  command.add_option("--shard", o.shard,
                     "i/N: run only the i-th of N interleaved slices of the grid's points and write that shard's "
                     "JSON (whatever --format) for --merge");
  command.add_option("--merge", o.merge, "shard files written by --shard: print the sweep one machine would have given")
      ->expected(1, -1);
}

// The query: a grid over the scenario (or its shard), or shards written before to merge.
struct SweepCall {
  std::optional<api::Scenario> input;  ///< none: --merge
  std::vector<api::GridAxis> axes;
  api::SweepOptions options;
  std::vector<nlohmann::json> shards;  ///< --merge: the shards' JSON
  std::vector<std::string> shard_files;  ///< and their files, named in errors
  Format format = Format::kTable;
};

SweepCall sweep_call(const SweepOptions& o) {
  SweepCall call;
  call.format = parse_format(o.format);
  if (!o.merge.empty()) {
    if (!o.scenario.empty() || !o.shard.empty() || !o.grid.empty()) {
      throw InputError("--merge", "", "takes shard files only (no scenario, --grid or --shard)");
    }
    for (const auto& file : o.merge) call.shards.push_back(load_json_file(file));
    call.shard_files = o.merge;
    return call;
  }
  if (o.scenario.empty()) throw InputError("scenario", "", "a scenario file is required (or --merge FILES)");
  if (o.grid.empty()) throw InputError("--grid", "", "at least one --grid field=v1,v2,... is required");
  call.options = api::SweepOptions{o.jobs, item_progress("points")};
  if (!o.shard.empty()) api::parse_shard(o.shard, call.options.shard_index, call.options.shard_count);
  const std::vector<std::string> overrides = with_step_flags(o.overrides, {o.placement, "", o.network});
  for (const auto& text : o.grid) call.axes.push_back(api::parse_grid_axis(text));
  call.input = api::with_calibration(api::Scenario::load(o.scenario), o.calibration).with_assignments(overrides);
  // A shard of one (1/1) is the whole sweep: printed as such, so it needs no merge.
  if (call.options.shard_count > 1) call.format = Format::kJson;
  return call;
}

api::SweepResult evaluate_sweep_call(const SweepCall& call) {
  if (!call.input) return api::merge_sweeps(call.shards, call.shard_files);
  api::EvalContext context;
  return api::evaluate_sweep(*call.input, call.axes, context, call.options);
}

void print_sweep_call(const api::SweepResult& result, const SweepCall& call, const SweepOptions&) {
  print_sweep(result, call.format);
}

}  // namespace

Action add_sweep_command(CLI::App& app) {
  return add_command(app, CommandParts<SweepOptions, SweepCall, api::SweepResult>{
                              "sweep", "One training step per point of a grid of scenario or topology fields",
                              declare_sweep_options, sweep_call, evaluate_sweep_call, print_sweep_call});
}

}  // namespace ctwin::cli

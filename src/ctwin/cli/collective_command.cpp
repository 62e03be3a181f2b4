// ctwin collective: a virtual nccl-tests. Same columns and busbw factors as nccl-tests'
// *_perf binaries, so a measured log and a prediction can be compared line by line.

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include "ctwin/api/collective_flags.hpp"
#include "ctwin/api/degraded_build.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/api/public_calibration.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/api/public_collectives.hpp"
#include "ctwin/cli/routing_option.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/unit_parse.hpp"

namespace ctwin::cli {
namespace {

// The sweep's flags are the library's (shared with Python); the rest only the command reads.
struct CollectiveOptions : api::CollectiveFlags {
  FabricOptions fabric;
  std::string format = "table";
  std::string figure;
  std::vector<std::string> degrade;
};

void print_table(const collectives::CollectiveResult& result, const CollectiveOptions& options, std::ostream& out) {
  const auto op = result.op;
  out << "# ctwin collective: " << collectives::name(op) << " on " << result.gpus << " GPUs, " << result.channels
      << " channels, network " << options.network << (options.every_transfer ? ", every transfer" : "") << "\n";
  out << "#\n#       size         count      type   redop    root     time   algbw   busbw   algo   proto\n";
  out << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n";
  char line[256];
  for (const auto& row : result.rows) {
    std::snprintf(line, sizeof line, "%12lld  %12lld  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %5s  %6s\n",
                  static_cast<long long>(row.size.count()), static_cast<long long>(row.count), options.dtype.c_str(),
                  collectives::has_redop(op) ? "sum" : "none", collectives::has_root(op) ? 0 : -1, row.time.seconds() * 1e6,
                  row.algbw_GBps, row.busbw_GBps, std::string(collectives::name(row.algorithm)).c_str(),
                  std::string(collectives::name(row.protocol)).c_str());
    out << line;
  }
  double sum = 0;
  for (const auto& row : result.rows) sum += row.busbw_GBps;
  std::snprintf(line, sizeof line, "# Avg bus bandwidth    : %g\n", result.rows.empty() ? 0.0 : sum / result.rows.size());
  out << "#\n" << line;
}

// The query: the sweep, the build it runs on and the parts degraded on it.
struct CollectiveCall {
  collectives::CollectiveQuery sweep;
  api::Build build;
  std::vector<std::string> degrade;
  Format format = Format::kTable;
  std::string progress;  ///< what the progress line says while it runs
};

void declare_collective_options(CLI::App& command, CollectiveOptions& options) {
  add_fabric_options(command, options.fabric);
  add_routing_option(command, options.fabric.routing);
  command.add_option("--op", options.op, "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv")
      ->capture_default_str();
  command.add_option("--algo", options.algorithm, "auto, ring, tree, nvls, nvlstree, hd, direct, pat (like NCCL_ALGO) or hierarchical (all_reduce across the sites of a build)")
      ->capture_default_str();
  command.add_option("--proto", options.protocol, "auto, simple, ll or ll128 (like NCCL_PROTO)")->capture_default_str();
  command.add_option("-b,--begin", options.begin, "smallest size, nccl-tests style (8, 1K, 64M)")->capture_default_str();
  command.add_option("-e,--end", options.end, "largest size")->capture_default_str();
  command.add_option("-f,--factor", options.factor, "size multiplier between rows")->capture_default_str();
  command.add_option("-d,--dtype", options.dtype, "element type: float, half, bfloat16, int8, double, ...")
      ->capture_default_str();
  command.add_option("--network", options.network, "analytical or flow")->capture_default_str();
  command.add_option("--channels", options.channels, "channels (NCCL nChannels); 0 = one per rail")->capture_default_str();
  command.add_flag("--every-transfer", options.every_transfer,
                   "simulate every step's transfers instead of one step per phase (slow; for checking)");
  command.add_option("--format", options.format, "table, json or csv")->capture_default_str();
  command.add_option("--figure", options.figure, figure_help("busbw against message size, nccl-tests style"));
  command.add_option("--degrade", options.degrade,
                     "a part at a share of its rate: nic:RANK=0.25, link:leaf3.up5=0.5, leaf:3=uplinks:0.5 (repeatable)");
}

CollectiveCall collective_call(const CollectiveOptions& options) {
  CollectiveCall call;
  call.format = parse_format(options.format);
  if (!options.figure.empty()) check_figure_path(options.figure);
  call.sweep = api::collective_query(options, api::kCollectiveCliFlags);
  call.degrade = options.degrade;
  call.progress = "simulating " + options.op + " on " + std::to_string(options.fabric.gpus) + " GPUs, sizes";
  call.build = build_of(options.fabric);
  return call;
}

collectives::CollectiveResult evaluate_collective_call(const CollectiveCall& call) {
  api::EvalContext context;
  const ProgressLine line(call.progress, true);
  return api::evaluate_degraded_collective(call.build, call.degrade, "--degrade", call.sweep, context);
}

void print_collective(const collectives::CollectiveResult& result, const CollectiveCall& call,
                      const CollectiveOptions& options) {
  if (!options.figure.empty()) write_figure("collective", api::collective_json(result), options.figure);
  if (call.format == Format::kJson) {
    std::cout << json_text(api::collective_json(result), 2) << '\n';
  } else if (call.format == Format::kCsv) {
    Table table({"size_bytes", "count", "time_us", "algbw_GBps", "busbw_GBps", "algo", "protocol"});
    for (const auto& row : result.rows) {
      table.add_row({std::to_string(row.size.count()), std::to_string(row.count), fixed(row.time.seconds() * 1e6, 3),
                     fixed(row.algbw_GBps, 3), fixed(row.busbw_GBps, 3), std::string(collectives::name(row.algorithm)),
                     std::string(collectives::name(row.protocol))});
    }
    table.print(std::cout, call.format);
  } else {
    print_table(result, options, std::cout);
  }
}

}  // namespace

Action add_collective_command(CLI::App& app) {
  return add_command(app, CommandParts<CollectiveOptions, CollectiveCall, collectives::CollectiveResult>{
                              "collective", "Predict what nccl-tests would print for a collective on a build",
                              declare_collective_options, collective_call, evaluate_collective_call, print_collective});
}

}  // namespace ctwin::cli

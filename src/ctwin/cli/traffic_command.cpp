// ctwin traffic: play a named traffic pattern on a build through a network model.

#include <iostream>

#include <CLI/CLI.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/json_csv.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/api/public_network.hpp"

namespace ctwin::cli {
namespace {

struct TrafficOptions {
  FabricOptions fabric;
  std::string pattern = "alltoall";
  std::string size = "16MiB";
  std::string network = "flow";
  std::string format = "table";
  bool pxn = false;
  bool full_solve = false;
  bool timing = false;
  int steps = 8;
  int flows_per_pair = 1;
};

Bytes parse_size_flag(const std::string& text) {
  try {
    const Bytes size = parse_bytes(text);
    if (size < Bytes(0)) throw UnitError("must not be negative");
    return size;
  } catch (const UnitError& e) {
    throw InputError("--size", "", e.what());
  }
}

void declare_traffic_options(CLI::App& command, TrafficOptions& o) {
  add_fabric_options(command, o.fabric);
  std::string patterns;
  for (const auto& [name, what] : network::pattern_catalog()) patterns += "\n  " + name + ": " + what;
  command.add_option("--pattern", o.pattern, "traffic pattern:" + patterns)->capture_default_str();
  command.add_option("--size", o.size, "bytes per transfer, with a unit (64MiB, 1GB)")->capture_default_str();
  command.add_option("--network", o.network, "analytical, flow or simgrid")->capture_default_str();
  command.add_flag("--pxn", o.pxn, "route cross-rail transfers over NVLink to the destination's rail first");
  command.add_option("--steps", o.steps, "alltoall_chain: exchanges per GPU")->capture_default_str();
  command.add_option("--flows-per-pair", o.flows_per_pair, "flows per GPU pair (NCCL channels), spread by ECMP")
      ->capture_default_str();
  command.add_flag("--full-solve", o.full_solve, "flow: re-solve every flow at every change (slow; for checking)");
  command.add_option("--format", o.format, "table, json or csv (one row, the JSON's fields as columns)")
      ->capture_default_str();
  command.add_flag("--timing", o.timing,
                   "json and csv: add wall_s, ctwin's own run time (left out by default so the output is "
                   "deterministic)");
}

// The query: the pattern on the build, and what the progress line says while it plays.
struct TrafficCall {
  api::Build build;
  api::TrafficQuery query;
  Format format = Format::kTable;
  std::string progress;
};

TrafficCall traffic_call(const TrafficOptions& o) {
  const Format format = parse_format(o.format);
  api::TrafficQuery query;
  query.pattern = o.pattern;
  query.options = network::PatternOptions{parse_size_flag(o.size), o.pxn, o.steps, o.flows_per_pair};
  query.network = network_flag(o.network);
  query.full_solve = o.full_solve;
  return TrafficCall{build_of(o.fabric), std::move(query), format,
                     "simulating " + o.pattern + " on " + std::to_string(o.fabric.gpus) + " GPUs"};
}

api::TrafficSummary evaluate_traffic_call(const TrafficCall& call) {
  api::EvalContext context;
  const ProgressLine line(call.progress);
  return api::evaluate_traffic(call.build, call.query, context);
}

void print_traffic(const api::TrafficSummary& result, const TrafficCall& call, const TrafficOptions& o) {
  if (call.format == Format::kJson) {
    std::cout << json_text(api::traffic_json(result, o.timing), 2) << '\n';
    return;
  }
  if (call.format == Format::kCsv) {
    print_json_csv(std::cout, api::traffic_json(result, o.timing), "summary");
    return;
  }
  std::cout << result.pattern << " on " << result.gpus << " GPUs of " << result.cluster << ", " << result.transfers
            << " transfers of " << format_bytes(result.size) << ", network " << result.network << "\n";
  Table table({"quantity", "value"});
  table.add_row({"makespan", format_time(result.makespan)});
  table.add_row({"first completion", format_time(result.first_completion)});
  table.add_row({"median completion", format_time(result.median_completion)});
  table.add_row({"aggregate throughput", fixed(result.aggregate_GBps, 2) + " GB/s"});
  table.add_row({"per-GPU throughput", fixed(result.aggregate_GBps / static_cast<double>(result.gpus), 2) + " GB/s"});
  table.add_row({"engine events", std::to_string(result.events)});
  if (result.solves) table.add_row({"rate solves", std::to_string(*result.solves)});
  table.add_row({"wall time", fixed(result.wall_s, 3) + " s"});
  table.print(std::cout, Format::kTable, "  ");
}

}  // namespace

Action add_traffic_command(CLI::App& app) {
  return add_command(app, CommandParts<TrafficOptions, TrafficCall, api::TrafficSummary>{
                              "traffic",
                              "Play a traffic pattern (alltoall, incast, cross_rail, ...) on a "
                              "build and report completion times",
                              declare_traffic_options, traffic_call, evaluate_traffic_call, print_traffic});
}

}  // namespace ctwin::cli

// ctwin traffic: play a named traffic pattern on a build through a network model.

#include <chrono>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/network/flow_model.hpp"
#include "ctwin/network/traffic_pattern.hpp"

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

}  // namespace

Action add_traffic_command(CLI::App& app) {
  auto* command = app.add_subcommand("traffic", "Play a traffic pattern (alltoall, incast, cross_rail, ...) on a "
                                                "build and report completion times");
  auto options = std::make_shared<TrafficOptions>();
  add_fabric_options(*command, options->fabric);
  std::string patterns;
  for (const auto& [name, what] : network::pattern_catalog()) patterns += "\n  " + name + ": " + what;
  command->add_option("--pattern", options->pattern, "traffic pattern:" + patterns)->capture_default_str();
  command->add_option("--size", options->size, "bytes per transfer, with a unit (64MiB, 1GB)")->capture_default_str();
  command->add_option("--network", options->network, "analytical, flow or simgrid")->capture_default_str();
  command->add_flag("--pxn", options->pxn, "route cross-rail transfers over NVLink to the destination's rail first");
  command->add_option("--steps", options->steps, "alltoall_chain: exchanges per GPU")->capture_default_str();
  command->add_option("--flows-per-pair", options->flows_per_pair, "flows per GPU pair (NCCL channels), spread by ECMP")
      ->capture_default_str();
  command->add_flag("--full-solve", options->full_solve, "flow: re-solve every flow at every change (slow; for checking)");
  command->add_option("--format", options->format, "table or json")->capture_default_str();
  command->add_flag("--timing", options->timing,
                    "json: add wall_s, ctwin's own run time (left out by default so the output is deterministic)");
  return [options] {
    const Format format = parse_format(options->format);
    const network::PatternOptions pattern_options{parse_size_flag(options->size), options->pxn, options->steps,
                                                  options->flows_per_pair};
    const fabric::Fabric built = build_fabric(options->fabric);
    const network::TrafficPattern pattern = network::make_pattern(options->pattern, built, pattern_options);
    engine::Simulator simulator;
    auto model = options->full_solve && options->network == "flow"
                     ? std::make_unique<network::FlowModel>(built, simulator, network::FlowModelOptions{false})
                     : network::make_network_model(options->network, built, simulator);
    const auto wall_start = std::chrono::steady_clock::now();
    const network::TrafficResult result = network::run_pattern(*model, pattern);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    std::vector<SimTime> sorted = result.completed_at;
    std::sort(sorted.begin(), sorted.end());
    const auto percentile = [&](double p) {
      return sorted.empty() ? SimTime() : sorted[static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1))];
    };
    const double total_bytes = static_cast<double>(result.stats.bytes_delivered.count());
    const double seconds = result.makespan.seconds();
    const double throughput = seconds > 0 ? total_bytes / seconds : 0;
    const auto* flow = dynamic_cast<const network::FlowModel*>(model.get());
    if (format == Format::kJson) {
      nlohmann::json out{{"pattern", pattern.name},
                         {"network", std::string(model->name())},
                         {"gpus", built.gpus()},
                         {"transfers", pattern.transfers.size()},
                         {"size_bytes", pattern_options.size.count()},
                         {"bytes_delivered", result.stats.bytes_delivered.count()},
                         {"makespan_us", result.makespan.microseconds()},
                         {"completion_us", {{"min", percentile(0).microseconds()},
                                            {"median", percentile(0.5).microseconds()},
                                            {"max", percentile(1).microseconds()}}},
                         {"aggregate_GBps", throughput * 1e-9},
                         {"events", result.events}};
      if (options->timing) out["wall_s"] = wall;
      if (flow != nullptr) {
        out["solves"] = flow->solves();
        out["solved_flows"] = flow->solved_flows();
      }
      std::cout << out.dump(2) << '\n';
      return;
    }
    std::cout << pattern.name << " on " << built.gpus() << " GPUs of " << built.spec().name << ", "
              << pattern.transfers.size() << " transfers of " << format_bytes(pattern_options.size) << ", network "
              << model->name() << "\n";
    Table table({"quantity", "value"});
    table.add_row({"makespan", format_time(result.makespan)});
    table.add_row({"first completion", format_time(percentile(0))});
    table.add_row({"median completion", format_time(percentile(0.5))});
    table.add_row({"aggregate throughput", fixed(throughput * 1e-9, 2) + " GB/s"});
    table.add_row({"per-GPU throughput", fixed(throughput * 1e-9 / built.gpus(), 2) + " GB/s"});
    table.add_row({"engine events", std::to_string(result.events)});
    if (flow != nullptr) table.add_row({"rate solves", std::to_string(flow->solves())});
    table.add_row({"wall time", fixed(wall, 3) + " s"});
    table.print(std::cout, Format::kTable, "  ");
  };
}

}  // namespace ctwin::cli

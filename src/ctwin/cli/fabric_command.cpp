// ctwin fabric: the bill of materials and shape of a build.

#include <iostream>
#include <optional>
#include <vector>

#include <CLI/CLI.hpp>
#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/json_csv.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/warnings_output.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/api/public_fabric.hpp"

namespace ctwin::cli {
namespace {

void print_table(const fabric::FabricSummary& summary, const std::vector<fabric::BuildWarning>& warnings,
                 Format format) {
  std::cout << summary.name << ": " << summary.gpus << " GPUs on " << summary.nodes << " nodes of "
            << summary.gpus_per_node << " GPUs";
  if (summary.scalable_units > 0) std::cout << ", " << summary.scalable_units << " scalable units";
  std::cout << ", " << summary.tiers << (summary.tiers == 1 ? " switch tier" : " switch tiers");
  if (summary.rail_spine_groups > 0) {
    std::cout << ", spines per rail group (" << summary.rail_spine_groups << " groups, " << summary.pods << " pods)";
  } else if (summary.pods > 1) {
    std::cout << " (" << summary.pods << " pods)";
  }
  std::cout << "\n\nswitches\n";
  Table tiers({"tier", "switches", "ports used", "ports total", "down:up"});
  for (const auto& tier : summary.switch_tiers) {
    tiers.add_row({tier.tier, std::to_string(tier.switches), std::to_string(tier.ports_used),
                   std::to_string(tier.ports_total), fixed(tier.oversubscription, 2) + ":1"});
  }
  tiers.print(std::cout, format, "  ");
  std::cout << "\ncables\n";
  Table cables({"kind", "speed", "cables", "transceivers"});
  for (const auto& group : summary.cables) {
    cables.add_row({fabric::to_string(group.kind), format_bandwidth(group.bandwidth), std::to_string(group.cables),
                    group.transceivers ? std::to_string(group.transceivers) : "-"});
  }
  cables.print(std::cout, format, "  ");
  std::cout << "  scale-out cables " << summary.fabric_cables << ", transceivers " << summary.transceivers
            << " (optics at every switch and NIC port)\n\nbandwidth (per direction)\n"
            << "  NVLink per GPU      " << fixed(summary.nvlink_per_gpu.gigabytes_per_second(), 1) << " GB/s\n"
            << "  NIC per GPU         " << fixed(summary.injection_per_gpu.gigabits_per_second(), 1) << " Gb/s\n"
            << "  scale-out bisection " << fixed(summary.bisection.gigabytes_per_second() / 1000, 3) << " TB/s\n";
  std::cout << "\nhops between GPU pairs\n";
  Table hops({"pair", "from", "to", "links", "switches", "fewest links", "latency", "bottleneck"});
  for (const auto& hop : summary.hops) {
    hops.add_row({hop.pair_class, std::to_string(hop.from), std::to_string(hop.to), std::to_string(hop.links),
                  std::to_string(hop.switches), std::to_string(hop.fewest_links), format_time(hop.latency),
                  fixed(hop.bottleneck.gigabytes_per_second(), 1) + " GB/s"});
  }
  hops.print(std::cout, format, "  ");
  print_warnings(format == Format::kCsv ? std::cerr : std::cout, warnings);
}

// One line a tier, from the same JSON as --format json.
void print_storage(const nlohmann::json& tiers) {
  std::cout << "storage (docs/io.md):\n";
  for (const auto& t : tiers) {
    std::cout << "  " << t.at("name").get<std::string>() << " (" << t.at("kind").get<std::string>() << ", "
              << t.at("attach").get<std::string>() << "): ";
    if (t.contains("servers")) {
      std::cout << t.at("servers").get<long long>() << " servers x " << fixed(t.at("read_per_server_GBps").get<double>(), 1)
                << " GB/s = " << fixed(t.at("aggregate_read_GBps").get<double>(), 1) << " GB/s read; a node's path "
                << fixed(t.at("node_path_GBps").get<double>(), 1) << " GB/s; the build draws at most "
                << fixed(t.at("build_read_cap_GBps").get<double>(), 1) << " GB/s";
    } else {
      std::cout << fixed(t.at("read_per_node_GBps").get<double>(), 1) << " GB/s read per node";
    }
    std::cout << "\n";
  }
}

struct FabricCommandOptions {
  FabricOptions fabric;
  std::string format = "table";
  std::string table;
};

// The query: the build the flags name and how to print it.
struct FabricCall {
  api::Build build;
  Format format = Format::kTable;
};

struct FabricResult {
  fabric::FabricSummary summary;
  std::vector<fabric::BuildWarning> warnings;
  nlohmann::json report;                ///< --format json and csv: the library's report
  std::optional<nlohmann::json> storage;  ///< the table's storage tiers, when the topology has some
};

void declare_fabric_options(CLI::App& command, FabricCommandOptions& o) {
  add_fabric_options(command, o.fabric);
  command.add_option("--format", o.format, "table, json or csv (one table per output: see --table)")->capture_default_str();
  command.add_option("--table", o.table,
                     "with --format csv: summary (the default: the build's totals in one row), switches, cables, "
                     "hops, or storage (a topology with storage tiers)");
}

FabricCall fabric_call(const FabricCommandOptions& o) {
  const Format format = parse_format(o.format);
  if (!o.table.empty() && format != Format::kCsv) throw InputError("--table", "", "picks a table of --format csv");
  return FabricCall{build_of(o.fabric), format};
}

FabricResult evaluate_fabric_call(const FabricCall& call) {
  api::EvalContext context;
  FabricResult result{api::evaluate_fabric(call.build, context), api::build_warnings(call.build), {}, std::nullopt};
  if (call.format != Format::kTable) {
    result.report = api::fabric_report_json(call.build, context);
  } else if (const fabric::ClusterSpec spec = api::load_build(call.build); spec.storage) {
    result.storage = api::storage_json(spec, result.summary.nodes);
  }
  return result;
}

void print_fabric(const FabricResult& result, const FabricCall& call, const FabricCommandOptions& o) {
  if (call.format == Format::kJson) {
    std::cout << json_text(result.report, 2) << '\n';
  } else if (call.format == Format::kCsv) {
    print_json_csv(std::cout, result.report, o.table);
  } else {
    print_table(result.summary, result.warnings, call.format);
    if (result.storage) print_storage(*result.storage);
  }
}

}  // namespace

Action add_fabric_command(CLI::App& app) {
  return add_command(app, CommandParts<FabricCommandOptions, FabricCall, FabricResult>{
                              "fabric",
                              "Summarize a build: nodes, switches per tier, cables and "
                              "transceivers, bisection bandwidth, oversubscription, hop counts",
                              declare_fabric_options, fabric_call, evaluate_fabric_call, print_fabric});
}

}  // namespace ctwin::cli

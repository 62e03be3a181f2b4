// ctwin fabric: the bill of materials and shape of a build.

#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::cli {
namespace {

nlohmann::json to_json(const fabric::FabricSummary& summary) {
  nlohmann::json out;
  out["name"] = summary.name;
  out["gpus"] = summary.gpus;
  out["nodes"] = summary.nodes;
  out["gpus_per_node"] = summary.gpus_per_node;
  out["scalable_units"] = summary.scalable_units;
  out["pods"] = summary.pods;
  out["tiers"] = summary.tiers;
  out["switches"] = nlohmann::json::array();
  for (const auto& tier : summary.switch_tiers) {
    out["switches"].push_back({{"tier", tier.tier},
                               {"count", tier.switches},
                               {"ports_used", tier.ports_used},
                               {"ports_total", tier.ports_total},
                               {"oversubscription", tier.oversubscription}});
  }
  out["cables"] = nlohmann::json::array();
  for (const auto& group : summary.cables) {
    out["cables"].push_back({{"kind", fabric::to_string(group.kind)},
                             {"bandwidth_Gbps", group.bandwidth.gigabits_per_second()},
                             {"cables", group.cables},
                             {"transceivers", group.transceivers}});
  }
  out["fabric_cables"] = summary.fabric_cables;
  out["transceivers"] = summary.transceivers;
  out["nvlink_per_gpu_GBps"] = summary.nvlink_per_gpu.gigabytes_per_second();
  out["injection_per_gpu_Gbps"] = summary.injection_per_gpu.gigabits_per_second();
  out["bisection_GBps"] = summary.bisection.gigabytes_per_second();
  out["hops"] = nlohmann::json::array();
  for (const auto& hop : summary.hops) {
    out["hops"].push_back({{"pair_class", hop.pair_class},
                           {"from", hop.from},
                           {"to", hop.to},
                           {"links", hop.links},
                           {"switches", hop.switches},
                           {"fewest_links", hop.fewest_links},
                           {"latency_us", hop.latency.microseconds()},
                           {"bottleneck_GBps", hop.bottleneck.gigabytes_per_second()}});
  }
  return out;
}

void print_table(const fabric::FabricSummary& summary, Format format) {
  std::cout << summary.name << ": " << summary.gpus << " GPUs on " << summary.nodes << " nodes of "
            << summary.gpus_per_node << " GPUs";
  if (summary.scalable_units > 0) std::cout << ", " << summary.scalable_units << " scalable units";
  std::cout << ", " << summary.tiers << (summary.tiers == 1 ? " switch tier" : " switch tiers");
  if (summary.pods > 1) std::cout << " (" << summary.pods << " pods)";
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
}

}  // namespace

Action add_fabric_command(CLI::App& app) {
  auto* command = app.add_subcommand("fabric", "Summarize a build: nodes, switches per tier, cables and "
                                               "transceivers, bisection bandwidth, oversubscription, hop counts");
  auto options = std::make_shared<FabricOptions>();
  add_fabric_options(*command, *options);
  auto format = std::make_shared<std::string>("table");
  command->add_option("--format", *format, "table, json or csv")->capture_default_str();
  return [options, format] {
    const Format chosen = parse_format(*format);
    const fabric::Fabric built = build_fabric(*options);
    const fabric::FabricSummary summary = fabric::summarize(built);
    if (chosen == Format::kJson) {
      std::cout << to_json(summary).dump(2) << '\n';
    } else {
      print_table(summary, chosen);
    }
  };
}

}  // namespace ctwin::cli

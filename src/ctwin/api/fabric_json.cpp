#include "ctwin/api/report_json.hpp"

#include <algorithm>

namespace ctwin::api {

nlohmann::json fabric_summary_json(const fabric::FabricSummary& summary) {
  nlohmann::json out;
  out["name"] = summary.name;
  out["gpus"] = summary.gpus;
  out["nodes"] = summary.nodes;
  out["gpus_per_node"] = summary.gpus_per_node;
  out["scalable_units"] = summary.scalable_units;
  out["pods"] = summary.pods;
  out["tiers"] = summary.tiers;
  // Only where set, so that builds with shared spines keep their bytes.
  if (summary.rail_spine_groups > 0) out["rail_spine_groups"] = summary.rail_spine_groups;
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

nlohmann::json storage_json(const fabric::ClusterSpec& spec, long long nodes) {
  nlohmann::json tiers = nlohmann::json::array();
  if (!spec.storage) return tiers;
  const auto gbps = [](double bytes_per_s) { return bytes_per_s * 1e-9; };
  for (const auto& tier : spec.storage->tiers) {
    nlohmann::json t{{"name", tier.name}, {"kind", fabric::to_string(tier.kind)}, {"attach", fabric::to_string(tier.attach)}};
    if (tier.shared()) {
      const double path = fabric::storage_node_path_Bps(spec, tier);
      t["servers"] = tier.servers;
      t["read_per_server_GBps"] = tier.read_per_server.gigabytes_per_second();
      if (tier.write_per_server.bytes_per_second() > 0) {
        t["write_per_server_GBps"] = tier.write_per_server.gigabytes_per_second();
      }
      t["aggregate_read_GBps"] = gbps(tier.aggregate_read_Bps());
      if (tier.metadata_ops_per_s) t["metadata_ops_per_s"] = *tier.metadata_ops_per_s;
      t["node_path_GBps"] = gbps(path);
      t["build_read_cap_GBps"] = gbps(std::min(tier.aggregate_read_Bps(), static_cast<double>(nodes) * path));
    } else {
      t["read_per_node_GBps"] = tier.read_per_node.gigabytes_per_second();
      if (tier.write_per_node.bytes_per_second() > 0) t["write_per_node_GBps"] = tier.write_per_node.gigabytes_per_second();
    }
    if (!tier.part.empty()) t["part"] = tier.part;
    tiers.push_back(std::move(t));
  }
  return tiers;
}


}  // namespace ctwin::api

#include "ctwin/fabric/build_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "ctwin/fabric/pcie_generation.hpp"

namespace ctwin::fabric {
namespace {

std::string num(double value, int digits = 0) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string gbps(Bandwidth b) { return num(b.gigabits_per_second()) + " Gb/s"; }

std::string percent(long long part, long long whole) { return num(100.0 * part / whole) + " %"; }

void check_nic(const ClusterSpec& spec, std::vector<BuildWarning>& warnings) {
  const ServerSpec& server = spec.server;
  const Bandwidth nic = server.nics.link.bandwidth;
  // Every NIC hangs off one x16 link (its PCIe switch's or the root port's); GPU data crosses it.
  if (nic > server.pcie.bandwidth) {
    // The first PCIe generation whose x16 link carries the NIC: 63 GB/s at Gen5, doubling each one.
    int generation = std::max(server.pcie_generation + 1, 5);
    Bandwidth x16 = Bandwidth::bytes_per_second(63e9 * std::pow(2.0, generation - 5));
    while (x16 < nic) {
      ++generation;
      x16 = x16 * 2;
    }
    // A generation the reader refuses would be advice that cannot be taken (Gen8 for a 3.2T NIC;
    // issue 36): past the newest, only slower NICs are offered.
    std::string fix = generation <= kMaxPcieGeneration
                          ? "use a server with a faster host link (server.pcie.generation=" + std::to_string(generation) +
                                ", server.pcie.bandwidth=" + num(x16.gigabytes_per_second()) + "GBps) or "
                          : "no PCIe generation up to Gen" + std::to_string(kMaxPcieGeneration) +
                                " carries it on one x16 link: use ";
    fix += "NICs of " + gbps(server.pcie.bandwidth) + " or less (server.nics.bandwidth=" +
           num(server.pcie.bandwidth.gigabits_per_second()) + "Gbps)";
    warnings.push_back(
        {"nic_above_pcie",
         "a " + gbps(nic) + " NIC sits behind a PCIe Gen" + std::to_string(server.pcie_generation) + " x16 link of " +
             num(server.pcie.bandwidth.gigabytes_per_second()) + " GB/s (" + gbps(server.pcie.bandwidth) +
             ") per direction, " + num(server.pcie.achieved().gigabytes_per_second(), 1) +
             " GB/s achieved: GPU traffic through it runs at the slot's rate, not the NIC's",
         fix});
  }
  if (nic > spec.fabric.link.bandwidth) {
    warnings.push_back({"nic_above_switch_port",
                        "NICs run at " + gbps(nic) + " but the fabric's switch ports at " +
                            gbps(spec.fabric.link.bandwidth) + " (" + spec.fabric.switch_spec.model +
                            "): a real port would link at the slower rate",
                        "set fabric.link.bandwidth and fabric.switch to a switch with " + gbps(nic) +
                            " ports, or server.nics.bandwidth=" + num(spec.fabric.link.bandwidth.gigabits_per_second()) +
                            "Gbps"});
  }
}

void check_leaves(const ClusterSpec& spec, const TierPlan& plan, std::vector<BuildWarning>& warnings) {
  // A 1:1 leaf that cannot fill its ports with whole nodes (18 NICs of an NVL72 rack on a
  // 64-port leaf) is the reference design's choice; oversubscribing to save switches and then
  // leaving an eighth of each leaf dark is the mistake this names.
  if (plan.tiers < 2 || spec.fabric.leaf_oversubscription <= 1) return;
  const int ports = spec.fabric.switch_spec.ports;
  const int idle = ports - plan.leaf_downlinks - plan.leaf_uplinks;
  if (idle * 8 < ports) return;
  std::string fix;
  if (spec.fabric.kind == FabricKind::kRailOptimized) {
    const double ratio = spec.fabric.leaf_oversubscription;
    const int down = static_cast<int>(std::floor(ports * ratio / (1 + ratio) + 1e-9));
    const int nodes = down / spec.fabric.rails_per_leaf;
    fix = "fill the leaves: fabric.nodes_per_su=" + std::to_string(nodes) + " gives " +
          std::to_string(nodes * spec.fabric.rails_per_leaf) + " downlinks and " +
          std::to_string(static_cast<int>(std::ceil(nodes * spec.fabric.rails_per_leaf / ratio - 1e-9))) +
          " uplinks; or keep 1:1";
  } else {
    fix = "a leaf takes whole nodes of " + std::to_string(plan.rails) +
          " NICs: choose an oversubscription that fills its ports, or a switch radix that divides evenly";
  }
  warnings.push_back({"leaf_ports_idle",
                      "each leaf uses " + std::to_string(plan.leaf_downlinks) + " down + " +
                          std::to_string(plan.leaf_uplinks) + " up of its " + std::to_string(ports) + " ports (" +
                          num(static_cast<double>(plan.leaf_downlinks) / plan.leaf_uplinks, 2) + ":1): " +
                          std::to_string(idle) + " ports idle per leaf, " +
                          std::to_string(static_cast<long long>(idle) * plan.leaves) + " in all (" +
                          percent(idle, ports) + " of leaf ports)",
                      fix});
}

// Spines (and cores) come in counts the wiring divides evenly, so a build between two sizes
// can leave many of their ports unwired: switches bought for growth that may never come.
void check_upper_tiers(const ClusterSpec& spec, const TierPlan& plan, std::vector<BuildWarning>& warnings) {
  if (plan.tiers < 2) return;
  const long long ports = spec.fabric.switch_spec.ports;
  auto check = [&](const char* check, const char* name, long long switches, long long used, const std::string& fix,
                   const char* used_as = "are wired") {
    const long long total = switches * ports;
    const long long idle = total - used;
    if (switches == 0 || idle * 3 < total) return;  // a third of a tier unwired is worth a line
    warnings.push_back({check,
                        std::to_string(switches) + " " + name + " have " + std::to_string(total) + " ports; " +
                            std::to_string(used) + " " + used_as + ", " + std::to_string(idle) + " (" +
                            percent(idle, total) + ") stranded",
                        fix});
  };
  long long spine_used = static_cast<long long>(plan.leaves) * plan.leaf_uplinks;
  if (plan.tiers == 3) spine_used += static_cast<long long>(plan.spines()) * plan.spine_uplinks;
  // Per-rail spines keep their core uplinks on purpose (the design's growth path), so only the
  // downlinks of unbuilt leaves of a group count as stranded.
  if (plan.per_rail && plan.tiers == 2) spine_used += static_cast<long long>(plan.spines()) * plan.spine_uplinks_kept;
  std::string fix = plan.tiers == 2 ? "size the build so that leaves x uplinks fills the spines (" +
                                          std::to_string(ports) +
                                          " ports each), or plan the spines for the size the build will grow to"
                                    : "grow the build to whole pods of " + std::to_string(plan.leaves_per_pod) + " leaves";
  if (plan.per_rail) {
    fix = "each rail's spines are sized for a group of " + std::to_string(plan.leaves_per_pod) +
          " leaves (fabric.leaves_per_spine_group): build whole groups, or make the group the size of the build";
  }
  check("spine_ports_stranded", "spines", plan.spines(), spine_used, fix,
        plan.per_rail && plan.tiers == 2 ? "are wired or kept for cores" : "are wired");
  if (plan.tiers == 3) {
    check("core_ports_stranded", "cores", plan.cores(), static_cast<long long>(plan.spines()) * plan.spine_uplinks,
          "a core takes " + std::to_string(ports) + " spine uplinks: size the build in pods that fill them (" +
              std::to_string(plan.pods) + " pods now), or raise fabric.oversubscription.spine");
  }
}

}  // namespace

std::vector<BuildWarning> check_build(const ClusterSpec& spec, const Topology& topology) {
  std::vector<BuildWarning> warnings;
  check_nic(spec, warnings);
  topology.check(warnings);
  return warnings;
}

void check_fat_tree(const ClusterSpec& spec, const TierPlan& plan, std::vector<BuildWarning>& warnings) {
  check_leaves(spec, plan, warnings);
  check_upper_tiers(spec, plan, warnings);
}

std::vector<BuildWarning> ignored_fields(const nlohmann::json& document) {
  std::vector<BuildWarning> warnings;
  const auto fabric = document.find("fabric");
  if (fabric == document.end() || !fabric->is_object()) return warnings;
  const auto kind = fabric->find("kind");
  if (kind == fabric->end() || *kind != "top_of_rack") return warnings;
  for (const char* key : {"nodes_per_su", "rails_per_leaf"}) {
    const auto value = fabric->find(key);
    if (value == fabric->end() || value->is_null()) continue;
    warnings.push_back({"ignored_field",
                        std::string("fabric.") + key + " = " + value->dump() +
                            " is ignored: it only means something with kind rail_optimized",
                        std::string("remove it, or --set fabric.") + key + "=null"});
  }
  return warnings;
}

}  // namespace ctwin::fabric

#include "ctwin/fabric/topologies/plane_clos.hpp"

#include <algorithm>
#include <charconv>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/ecmp_hash.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::fabric {
namespace {

int plane_clos_parameter(const ClusterSpec& spec, const char* name) {
  const auto it = spec.fabric.parameters.find(name);
  CTWIN_ASSERT(it != spec.fabric.parameters.end(), "the plane_clos readers set every parameter");
  return static_cast<int>(it->second);
}

// Parses "<prefix>N" at the front of `text`, consuming it.
std::optional<int> take_numbered(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  text.remove_prefix(prefix.size());
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || value < 0) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

}  // namespace

std::unique_ptr<Topology> plan_plane_clos(const ClusterSpec& spec, int nodes) {
  return std::make_unique<PlaneClos>(spec, nodes);
}

PlaneClos::PlaneClos(const ClusterSpec& spec, int nodes) : spec_(spec) {
  shape_.planes = plane_clos_parameter(spec, "planes");
  shape_.rail_leaves = plane_clos_parameter(spec, "rail_leaves") != 0;
  shape_.rails = spec.server.nics.count;
  shape_.nodes_per_group = plane_clos_parameter(spec, "nodes_per_group");
  shape_.groups_per_zone = plane_clos_parameter(spec, "groups_per_zone");
  shape_.spines = plane_clos_parameter(spec, "spines");
  shape_.spine_uplinks = plane_clos_parameter(spec, "spine_uplinks");
  shape_.most_zones = plane_clos_parameter(spec, "zones");
  shape_.nodes = nodes;
  shape_.groups = static_cast<int>(ceil_div(static_cast<long long>(nodes), shape_.nodes_per_group));
  shape_.zones = static_cast<int>(ceil_div(static_cast<long long>(shape_.groups), shape_.groups_per_zone));
  const long long per_zone = static_cast<long long>(shape_.nodes_per_group) * shape_.groups_per_zone;
  if (shape_.zones > shape_.most_zones) {
    const char* field = shape_.planes > 1 ? "/fabric/pods" : "/fabric/zones";
    throw InputError(spec.file, field,
                     std::to_string(static_cast<long long>(nodes) * spec.server.gpus) +
                         " GPUs exceed what this fabric can build (at most " +
                         std::to_string(per_zone * shape_.most_zones * spec.server.gpus) + " GPUs in " +
                         std::to_string(shape_.most_zones) + " zones of " + std::to_string(per_zone) + " nodes)");
  }
  port_link_ = spec.server.nics.link;
  port_link_.bandwidth = port_link_.bandwidth * (1.0 / shape_.planes);
  port_link_.latency = SimTime{};  // the NIC link carries the hop's latency; the port split adds none
}

std::vector<TierSize> PlaneClos::tiers() const {
  const double nic = spec_.server.nics.link.bandwidth.bytes_per_second();
  const double wire = spec_.fabric.link.bandwidth.bytes_per_second();
  const double leaf_down = static_cast<double>(shape_.nodes_per_group) * (shape_.rail_leaves ? 1 : shape_.rails) * nic /
                           shape_.planes;
  const double spine_down = static_cast<double>(shape_.groups_per_zone) * shape_.leaves_per_group();
  std::vector<TierSize> tiers;
  if (shape_.planes > 1) tiers.push_back({"nic_port", VertexKind::kNic, shape_.ports(), 1.0});
  tiers.push_back({"leaf", VertexKind::kLeaf, shape_.leaves(), leaf_down / (shape_.spines * wire)});
  tiers.push_back({"spine", VertexKind::kSpine, shape_.spine_count(),
                   shape_.zones > 1 ? spine_down / shape_.spine_uplinks : 1.0});
  tiers.push_back({"core", VertexKind::kCore, shape_.cores(), 1.0});
  return tiers;
}

long long PlaneClos::switch_cables() const {
  return shape_.port_cables() + shape_.leaf_cables() + shape_.core_cables();
}

int PlaneClos::leaf_of(int plane, int node, int nic) const {
  const int group = node / shape_.nodes_per_group;
  return plane * shape_.leaves_per_plane() + group * shape_.leaves_per_group() + (shape_.rail_leaves ? nic : 0);
}

int PlaneClos::zone_of_leaf(int leaf) const {
  return (leaf % shape_.leaves_per_plane()) / shape_.leaves_per_group() / shape_.groups_per_zone;
}

long long PlaneClos::port_cable(int node, int nic, int plane) const {
  return (static_cast<long long>(node) * shape_.rails + nic) * shape_.planes + plane;
}

long long PlaneClos::leaf_uplink(int leaf, int u) const {
  return shape_.port_cables() + static_cast<long long>(leaf) * shape_.spines + u;
}

long long PlaneClos::spine_uplink(int spine, int k) const {
  return shape_.port_cables() + shape_.leaf_cables() + static_cast<long long>(spine) * shape_.spine_uplinks + k;
}

void PlaneClos::wire(SwitchWiring& wiring) const {
  const LinkSpec& wire = spec_.fabric.link;
  if (shape_.planes > 1) {
    for (int node = 0; node < shape_.nodes; ++node) {
      for (int nic = 0; nic < shape_.rails; ++nic) {
        for (int plane = 0; plane < shape_.planes; ++plane) {
          wiring.cable(node * shape_.rails + nic, leaf_base() + leaf_of(plane, node, nic), port_link_, LinkKind::kAccess);
        }
      }
    }
  }
  for (int leaf = 0; leaf < shape_.leaves(); ++leaf) {
    for (int u = 0; u < shape_.spines; ++u) {
      wiring.cable(leaf_base() + leaf, spine_base() + spine_index(plane_of_leaf(leaf), zone_of_leaf(leaf), u), wire,
                   LinkKind::kLeafSpine);
    }
  }
  if (shape_.zones < 2) return;
  for (int spine = 0; spine < shape_.spine_count(); ++spine) {
    const int plane = spine / (shape_.zones * shape_.spines);
    const int u = spine % shape_.spines;
    for (int k = 0; k < shape_.spine_uplinks; ++k) {
      wiring.cable(spine_base() + spine, core_base() + plane * shape_.cores_per_plane() + u * shape_.spine_uplinks + k,
                   wire, LinkKind::kSpineCore);
    }
  }
}

int PlaneClos::access_switch(int node, int nic) const {
  return shape_.planes > 1 ? node * shape_.rails + nic : leaf_base() + leaf_of(0, node, nic);
}

std::pair<double, double> PlaneClos::plane_weights(const Fabric& fabric, int from, int to) const {
  double weight[2] = {0, 0};
  const double nominal = port_link_.bandwidth.bytes_per_second();
  for (int plane = 0; plane < 2; ++plane) {
    double least = nominal;
    for (const int port : {from, to}) {
      const LinkId cable = fabric.switch_link(port_cable(port / shape_.rails, port % shape_.rails, plane));
      least = std::min(least, fabric.link(cable).bandwidth.bytes_per_second());
    }
    // A port cable at the floor of --degrade belongs to a lost leaf: the NIC's bond moves its
    // flows to the other port (HPN's dual-ToR failover), it does not trickle bytes into it.
    weight[plane] = least <= nominal * limits::kMinDegradedShare * (1 + 1e-9) ? 0 : least;
  }
  return {weight[0], weight[1]};
}

int PlaneClos::pick_plane(const Fabric& fabric, int from, int to, std::uint64_t flow_hash) const {
  const auto [w0, w1] = plane_weights(fabric, from, to);
  if (w0 + w1 <= 0) return ecmp_pick(flow_hash, 9, 2);  // both lost: the route exists, at the floor
  constexpr int kSteps = 1 << 20;
  return ecmp_pick(flow_hash, 9, kSteps) < kSteps * (w0 / (w0 + w1)) ? 0 : 1;
}

void PlaneClos::append_leaf_path(const Fabric& fabric, int leaf_a, int leaf_b, int u, int k,
                                 std::vector<LinkId>& out) const {
  if (leaf_a == leaf_b) return;
  out.push_back(fabric.switch_link(leaf_uplink(leaf_a, u)));
  const int zone_a = zone_of_leaf(leaf_a);
  const int zone_b = zone_of_leaf(leaf_b);
  if (zone_a != zone_b) {
    const int plane = plane_of_leaf(leaf_a);
    out.push_back(fabric.switch_link(spine_uplink(spine_index(plane, zone_a, u), k)));
    out.push_back(reverse(fabric.switch_link(spine_uplink(spine_index(plane, zone_b, u), k))));
  }
  out.push_back(reverse(fabric.switch_link(leaf_uplink(leaf_b, u))));
}

void PlaneClos::append_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                                   std::vector<LinkId>& out) const {
  if (from == to) return;
  const int u = ecmp_pick(flow_hash, 0, shape_.spines);
  const int k = shape_.spine_uplinks > 0 ? ecmp_pick(flow_hash, 1, shape_.spine_uplinks) : 0;
  if (shape_.planes == 1) {
    append_leaf_path(fabric, from - leaf_base(), to - leaf_base(), u, k, out);
    return;
  }
  const int plane = pick_plane(fabric, from, to, flow_hash);
  const int leaf_a = leaf_of(plane, from / shape_.rails, from % shape_.rails);
  const int leaf_b = leaf_of(plane, to / shape_.rails, to % shape_.rails);
  out.push_back(fabric.switch_link(port_cable(from / shape_.rails, from % shape_.rails, plane)));
  append_leaf_path(fabric, leaf_a, leaf_b, u, k, out);
  out.push_back(reverse(fabric.switch_link(port_cable(to / shape_.rails, to % shape_.rails, plane))));
}

// Every choice append_switch_path() makes, each plane at its weight and every spine and core
// uplink of a plane alike.
void PlaneClos::spread_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                                   std::vector<std::pair<LinkId, double>>& out) const {
  (void)flow_hash;
  if (from == to) return;
  double share[2] = {1, 0};
  if (shape_.planes > 1) {
    const auto [w0, w1] = plane_weights(fabric, from, to);
    share[0] = w0 + w1 > 0 ? w0 / (w0 + w1) : 0.5;
    share[1] = 1 - share[0];
  }
  std::vector<LinkId> path;
  for (int plane = 0; plane < shape_.planes; ++plane) {
    if (share[plane] <= 0) continue;
    int leaf_a = from - leaf_base();
    int leaf_b = to - leaf_base();
    if (shape_.planes > 1) {
      leaf_a = leaf_of(plane, from / shape_.rails, from % shape_.rails);
      leaf_b = leaf_of(plane, to / shape_.rails, to % shape_.rails);
      out.emplace_back(fabric.switch_link(port_cable(from / shape_.rails, from % shape_.rails, plane)), share[plane]);
    }
    const int cores = zone_of_leaf(leaf_a) != zone_of_leaf(leaf_b) ? shape_.spine_uplinks : 1;
    const int paths = leaf_a == leaf_b ? 0 : shape_.spines * cores;
    for (int p = 0; p < paths; ++p) {
      path.clear();
      append_leaf_path(fabric, leaf_a, leaf_b, p / cores, p % cores, path);
      for (const LinkId link : path) out.emplace_back(link, share[plane] / paths);
    }
    if (shape_.planes > 1) {
      out.emplace_back(reverse(fabric.switch_link(port_cable(to / shape_.rails, to % shape_.rails, plane))), share[plane]);
    }
  }
}

// One part per plane and spine: part i takes plane i / spines and spine i % spines (one part per
// plane where both ends share their leaves); between zones its core uplink is consecutive from a
// hashed start. A lost plane's parts ride the other.
int PlaneClos::split_switch_paths(int from, int to) const {
  if (from == to) return 1;
  if (shape_.planes == 1) return shape_.spines;
  const bool same_leaf = leaf_of(0, from / shape_.rails, from % shape_.rails) == leaf_of(0, to / shape_.rails, to % shape_.rails);
  return shape_.planes * (same_leaf ? 1 : shape_.spines);
}

void PlaneClos::append_split_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash, int index,
                                         std::vector<LinkId>& out) const {
  if (from == to) return;
  const int per_plane = shape_.planes == 1 ? shape_.spines : split_switch_paths(from, to) / shape_.planes;
  CTWIN_ASSERT(index >= 0 && index < shape_.planes * per_plane, "a part of the split names a plane and a spine");
  const int u = index % per_plane;
  const int k = shape_.spine_uplinks > 0 ? (ecmp_pick(flow_hash, 1, shape_.spine_uplinks) + u) % shape_.spine_uplinks : 0;
  if (shape_.planes == 1) {
    append_leaf_path(fabric, from - leaf_base(), to - leaf_base(), u, k, out);
    return;
  }
  int plane = index / per_plane;
  // A lost plane's parts ride the other plane: the flow keeps its parts, the live port all of them.
  const auto [w0, w1] = plane_weights(fabric, from, to);
  if ((plane == 0 ? w0 : w1) <= 0 && (plane == 0 ? w1 : w0) > 0) plane = 1 - plane;
  out.push_back(fabric.switch_link(port_cable(from / shape_.rails, from % shape_.rails, plane)));
  append_leaf_path(fabric, leaf_of(plane, from / shape_.rails, from % shape_.rails),
                   leaf_of(plane, to / shape_.rails, to % shape_.rails), u, k, out);
  out.push_back(reverse(fabric.switch_link(port_cable(to / shape_.rails, to % shape_.rails, plane))));
}

std::string PlaneClos::cable_name(const Fabric& fabric, LinkId even) const {
  const long long n = (static_cast<long long>(even) - fabric.switch_link(0)) / 2;
  if (even < fabric.switch_link(0) || n >= switch_cables()) return "";
  std::string name;
  if (n < shape_.port_cables()) {
    const long long nic = n / shape_.planes;
    name = "n" + std::to_string(nic / shape_.rails) + ".nic" + std::to_string(nic % shape_.rails);
    return name + ".p" + std::to_string(n % shape_.planes);
  }
  const long long leaf_n = n - shape_.port_cables();
  if (leaf_n < shape_.leaf_cables()) {
    name = "leaf" + std::to_string(leaf_n / shape_.spines);
    return name + ".up" + std::to_string(leaf_n % shape_.spines);
  }
  const long long spine_n = leaf_n - shape_.leaf_cables();
  name = "spine" + std::to_string(spine_n / shape_.spine_uplinks);
  return name + ".up" + std::to_string(spine_n % shape_.spine_uplinks);
}

std::optional<LinkId> PlaneClos::find_cable(const Fabric& fabric, std::string_view name, std::string& problem) const {
  std::string_view text = name;
  if (const auto node = take_numbered(text, "n")) {
    const auto nic = take_numbered(text, ".nic");
    const auto plane = nic ? take_numbered(text, ".p") : std::nullopt;
    if (!plane || !text.empty() || shape_.planes < 2) return std::nullopt;
    if (*node >= shape_.nodes || *nic >= shape_.rails || *plane >= shape_.planes) {
      problem = "no such NIC port cable in the build (nN.nicR.pP, P 0 or 1)";
      return std::nullopt;
    }
    return fabric.switch_link(port_cable(*node, *nic, *plane));
  }
  text = name;
  if (const auto leaf = take_numbered(text, "leaf")) {
    const auto u = take_numbered(text, ".up");
    if (!u || !text.empty()) return std::nullopt;
    if (*leaf >= shape_.leaves() || *u >= shape_.spines) {
      problem = "no such leaf uplink in the build";
      return std::nullopt;
    }
    return fabric.switch_link(leaf_uplink(*leaf, *u));
  }
  text = name;
  if (const auto spine = take_numbered(text, "spine")) {
    const auto k = take_numbered(text, ".up");
    if (!k || !text.empty()) return std::nullopt;
    if (shape_.zones < 2 || *spine >= shape_.spine_count() || *k >= shape_.spine_uplinks) {
      problem = "no such spine uplink in the build (spines have core uplinks only with more than one zone)";
      return std::nullopt;
    }
    return fabric.switch_link(spine_uplink(*spine, *k));
  }
  return std::nullopt;
}

std::string PlaneClos::cable_forms() const {
  return shape_.planes > 1 ? "nN.nicR.pP, leafL.upK or spineS.upK" : "leafL.upK or spineS.upK";
}

std::vector<LinkId> PlaneClos::uplinks(const Fabric& fabric, int leaf) const {
  std::vector<LinkId> links;
  for (int u = 0; u < shape_.spines; ++u) links.push_back(fabric.switch_link(leaf_uplink(leaf, u)));
  return links;
}

std::optional<int> PlaneClos::uplink_part_of(const Fabric& fabric, LinkId link) const {
  const long long n = (static_cast<long long>(link & ~LinkId{1}) - fabric.switch_link(0)) / 2;
  const long long leaf_n = n - shape_.port_cables();
  if (n < 0 || leaf_n < 0 || leaf_n >= shape_.leaf_cables()) return std::nullopt;
  return static_cast<int>(leaf_n / shape_.spines);
}

// A lost leaf of a dual plane: its port cables and uplinks, every node behind it left on its
// other plane. One plane has no other: its leaves cannot be lost without cutting nodes off.
std::vector<LinkId> PlaneClos::lost_leaf_cables(const Fabric& fabric, int leaf) const {
  if (shape_.planes < 2) return {};
  std::vector<LinkId> links = uplinks(fabric, leaf);
  const int plane = plane_of_leaf(leaf);
  const int group = (leaf % shape_.leaves_per_plane()) / shape_.leaves_per_group();
  const int first = group * shape_.nodes_per_group;
  const int last = std::min(shape_.nodes, first + shape_.nodes_per_group);
  for (int node = first; node < last; ++node) {
    for (int nic = 0; nic < shape_.rails; ++nic) {
      if (leaf_of(plane, node, nic) == leaf) links.push_back(fabric.switch_link(port_cable(node, nic, plane)));
    }
  }
  return links;
}

void PlaneClos::describe(FabricSummary& summary) const {
  summary.tiers = levels();
  summary.pods = shape_.zones;
}

double PlaneClos::bisection(const Fabric& fabric) const {
  (void)fabric;
  // Halving the nodes, a cut is bounded by half the injection, by half the leaf uplinks and,
  // across zones, by half the spine uplinks (the oversubscribed tier).
  const double wire = spec_.fabric.link.bandwidth.bytes_per_second();
  double cut = spec_.server.nics.link.bandwidth.bytes_per_second() * shape_.rails * shape_.nodes;
  if (shape_.leaves() > shape_.planes) cut = std::min(cut, wire * static_cast<double>(shape_.leaf_cables()));
  if (shape_.zones > 1) cut = std::min(cut, wire * static_cast<double>(shape_.core_cables()));
  return shape_.nodes > 1 ? cut / 2 : 0;
}

std::vector<PairProbe> PlaneClos::probes(const Fabric& fabric) const {
  std::vector<PairProbe> probes;
  const int per_node = fabric.gpus_per_node();
  const auto probe = [&](const char* name, long long node, int local) {
    const long long gpu = node * per_node + local;
    if (node < shape_.nodes && gpu < fabric.gpus()) probes.push_back({name, 0, static_cast<GpuId>(gpu), false});
  };
  const int gpus_per_rail = std::max(1, per_node / shape_.rails);
  if (shape_.nodes_per_group > 1) probe(shape_.rail_leaves ? "same rail" : "same leaf", 1, 0);
  if (shape_.rail_leaves && shape_.rails > 1 && shape_.nodes_per_group > 1) probe("cross rail", 1, gpus_per_rail);
  if (shape_.groups_per_zone > 1) probe(shape_.rail_leaves ? "cross segment" : "cross leaf", shape_.nodes_per_group, 0);
  probe("cross zone", static_cast<long long>(shape_.nodes_per_group) * shape_.groups_per_zone, 0);
  return probes;
}

void PlaneClos::check(std::vector<BuildWarning>& warnings) const {
  const long long per_zone = static_cast<long long>(shape_.nodes_per_group) * shape_.groups_per_zone;
  if (shape_.zones < 2 || shape_.nodes % per_zone == 0) return;
  warnings.push_back({"zone_partly_filled",
                      "the last of " + std::to_string(shape_.zones) + " zones holds " +
                          std::to_string(shape_.nodes % per_zone) + " of its " + std::to_string(per_zone) +
                          " nodes; its spines and their core uplinks are built whole",
                      "size the build in whole zones (" + std::to_string(per_zone * spec_.server.gpus) + " GPUs each)"});
}

}  // namespace ctwin::fabric

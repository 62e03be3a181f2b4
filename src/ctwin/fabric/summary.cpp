#include "ctwin/fabric/summary.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "ctwin/core/int_math.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::fabric {
namespace {

HopCount measure(const Fabric& fabric, std::string pair_class, GpuId from, GpuId to, bool pxn) {
  HopCount hop;
  hop.pair_class = std::move(pair_class);
  hop.from = from;
  hop.to = to;
  const auto path = route(fabric, from, to, {.flow_label = 0, .pxn = pxn});
  hop.links = static_cast<int>(path.size());
  const PathProperties properties = path_properties(fabric, path);
  hop.latency = properties.latency;
  hop.bottleneck = properties.bottleneck;
  for (LinkId id : path) {
    const VertexKind entered = fabric.vertex_kind(fabric.link(id).to);
    if (entered != VertexKind::kGpu && entered != VertexKind::kNic) ++hop.switches;
  }
  hop.fewest_links = fabric.hop_distances(fabric.gpu_vertex(from))[fabric.gpu_vertex(to)];
  return hop;
}

void add_hops(const Fabric& fabric, FabricSummary& summary) {
  const TierPlan& plan = fabric.tiers();
  const int per_node = fabric.gpus_per_node();
  const int gpus = fabric.gpus();
  auto first_gpu_of_node = [&](long long node) { return static_cast<GpuId>(node * per_node); };
  if (per_node > 1 && gpus > 1) summary.hops.push_back(measure(fabric, "same node", 0, 1, false));
  if (plan.nodes < 2) return;
  const int gpus_per_rail = per_node / plan.rails;
  const GpuId next_node = first_gpu_of_node(1);
  if (next_node < gpus && fabric.leaf_of_nic(0, 0) == fabric.leaf_of_nic(1, 0)) {
    summary.hops.push_back(measure(fabric, "same rail", 0, next_node, false));
  }
  const GpuId other_rail = next_node + gpus_per_rail;
  if (plan.rails > 1 && other_rail < gpus && fabric.leaf_of_nic(0, 0) != fabric.leaf_of_nic(1, 1)) {
    summary.hops.push_back(measure(fabric, "cross rail", 0, other_rail, false));
    if (fabric.spec().server.nvlink) summary.hops.push_back(measure(fabric, "cross rail (PXN)", 0, other_rail, true));
  }
  if (fabric.spec().fabric.kind == FabricKind::kRailOptimized) {
    const GpuId next_su = first_gpu_of_node(fabric.spec().fabric.nodes_per_su);
    if (next_su < gpus && plan.pod_of_leaf(fabric.leaf_of_nic(next_su / per_node, 0)) == 0) {
      summary.hops.push_back(measure(fabric, "cross SU", 0, next_su, false));
    }
  } else {
    const GpuId next_leaf = first_gpu_of_node(plan.nodes_per_leaf);
    if (next_leaf < gpus && plan.pod_of_leaf(fabric.leaf_of_nic(next_leaf / per_node, 0)) == 0) {
      summary.hops.push_back(measure(fabric, "cross leaf", 0, next_leaf, false));
    }
  }
  if (plan.tiers == 3 && plan.pods > 1) {
    // First node whose first NIC's leaf sits in another pod (pod 1, or with per-rail spine
    // groups the first pod of the next block of scalable units).
    for (int node = 0; node < plan.nodes; ++node) {
      if (plan.pod_of_leaf(fabric.leaf_of_nic(node, 0)) != 0) {
        if (first_gpu_of_node(node) < gpus) summary.hops.push_back(measure(fabric, "cross pod", 0, first_gpu_of_node(node), false));
        break;
      }
    }
  }
}

}  // namespace

FabricSummary summarize(const Fabric& fabric) {
  const ClusterSpec& spec = fabric.spec();
  const TierPlan& plan = fabric.tiers();
  FabricSummary summary;
  summary.name = spec.name;
  summary.gpus = fabric.gpus();
  summary.nodes = fabric.nodes();
  summary.gpus_per_node = fabric.gpus_per_node();
  summary.tiers = plan.tiers;
  summary.pods = plan.pods;
  if (plan.per_rail) summary.rail_spine_groups = plan.rail_groups;
  if (spec.fabric.kind == FabricKind::kRailOptimized) {
    summary.scalable_units = static_cast<int>(ceil_div(plan.nodes, spec.fabric.nodes_per_su));
  }

  // Ports in use per tier, counted from the cables themselves.
  std::map<VertexKind, long long> ports_used;
  std::map<std::tuple<LinkKind, double>, long long> cable_count;
  for (LinkId id = 0; id < fabric.links().size(); id += 2) {
    const Link& link = fabric.link(id);
    ++cable_count[{link.kind, link.bandwidth.bytes_per_second()}];
    for (VertexId end : {link.from, link.to}) {
      const VertexKind kind = fabric.vertex_kind(end);
      if (kind == VertexKind::kLeaf || kind == VertexKind::kSpine || kind == VertexKind::kCore) ++ports_used[kind];
    }
  }
  const int ports = spec.fabric.switch_spec.ports;
  const int per_transceiver = spec.fabric.switch_spec.ports_per_transceiver;
  auto add_tier = [&](const char* name, VertexKind kind, int switches, double oversubscription) {
    if (switches == 0) return;
    summary.switch_tiers.push_back({name, switches, ports_used[kind], static_cast<long long>(switches) * ports, oversubscription});
  };
  const double leaf_ratio = plan.tiers >= 2 ? static_cast<double>(plan.leaf_downlinks) / plan.leaf_uplinks : 1.0;
  const double spine_ratio =
      plan.tiers == 3 ? static_cast<double>(plan.leaves_per_pod) * plan.links_per_leaf_spine() / plan.spine_uplinks : 1.0;
  add_tier("leaf", VertexKind::kLeaf, plan.leaves, leaf_ratio);
  add_tier("spine", VertexKind::kSpine, plan.spines(), spine_ratio);
  add_tier("core", VertexKind::kCore, plan.cores(), 1.0);

  for (const auto& [key, cables] : cable_count) {
    const auto [kind, bytes_per_second] = key;
    CableGroup group{kind, Bandwidth::bytes_per_second(bytes_per_second), cables, 0};
    const bool scale_out = kind == LinkKind::kAccess || kind == LinkKind::kLeafSpine || kind == LinkKind::kSpineCore;
    if (scale_out) {
      // A NIC port takes one transceiver; switch ports share cages of ports_per_transceiver.
      const long long switch_ends = kind == LinkKind::kAccess ? cables : 2 * cables;
      const long long nic_ends = kind == LinkKind::kAccess ? cables : 0;
      group.transceivers = nic_ends + ceil_div(switch_ends, per_transceiver);
      summary.fabric_cables += cables;
      summary.transceivers += group.transceivers;
    }
    summary.cables.push_back(group);
  }
  std::stable_sort(summary.cables.begin(), summary.cables.end(), [](const CableGroup& a, const CableGroup& b) {
    return static_cast<int>(a.kind) > static_cast<int>(b.kind);
  });

  if (spec.server.nvlink) summary.nvlink_per_gpu = spec.server.nvlink->link.bandwidth;
  const double nic_total = spec.server.nics.link.bandwidth.bytes_per_second() * plan.rails * plan.nodes;
  summary.injection_per_gpu = spec.server.nics.link.bandwidth * (static_cast<double>(plan.rails) / fabric.gpus_per_node());
  // Halving the nodes, every byte crossing the cut climbs to the top tier in use, so the cut
  // is bounded by half of the injection and by half of each tier's uplink capacity.
  double cut = nic_total;
  const double wire = spec.fabric.link.bandwidth.bytes_per_second();
  if (plan.tiers >= 2) cut = std::min(cut, wire * plan.leaves * plan.leaf_uplinks);
  if (plan.tiers == 3) cut = std::min(cut, wire * plan.spines() * plan.spine_uplinks);
  summary.bisection = Bandwidth::bytes_per_second(plan.leaves > 1 ? cut / 2 : 0);

  add_hops(fabric, summary);
  return summary;
}

}  // namespace ctwin::fabric

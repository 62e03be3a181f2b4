#include "ctwin/fabric/summary.hpp"

#include <algorithm>
#include <cmath>
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
  if (fabric.gpus_per_node() > 1 && fabric.gpus() > 1) summary.hops.push_back(measure(fabric, "same node", 0, 1, false));
  for (const PairProbe& probe : fabric.topology().probes(fabric)) {
    summary.hops.push_back(measure(fabric, probe.pair_class, probe.from, probe.to, probe.pxn));
  }
}

}  // namespace

FabricSummary summarize(const Fabric& fabric) {
  const ClusterSpec& spec = fabric.spec();
  const Topology& topology = fabric.topology();
  FabricSummary summary;
  summary.name = spec.name;
  summary.gpus = fabric.gpus();
  summary.nodes = fabric.nodes();
  summary.gpus_per_node = fabric.gpus_per_node();
  topology.describe(summary);

  // Ports in use per tier, counted from the cables themselves. A dual plane's NIC port cable (from
  // a NIC port vertex the Topology numbers among its switches) slower than the fabric's links
  // takes that share of a switch port: HPN's 200G ports are breakouts of 400G ones.
  std::map<VertexKind, double> ports_used;
  const double wire = spec.fabric.link.bandwidth.bytes_per_second();
  std::map<std::tuple<LinkKind, double>, long long> cable_count;
  std::map<std::tuple<LinkKind, double>, int> breakout_share;
  for (LinkId id = 0; id < fabric.links().size(); id += 2) {
    const Link& link = fabric.link(id);
    // A NIC's link to its own ports (a dual plane's port split) is inside the NIC, not a cable.
    if (fabric.vertex_kind(link.from) == VertexKind::kNic && fabric.vertex_kind(link.to) == VertexKind::kNic) continue;
    ++cable_count[{link.kind, link.bandwidth.bytes_per_second()}];
    const bool breakout = fabric.vertex_kind(link.from) == VertexKind::kNic && link.from >= fabric.switch_vertex(0) &&
                          link.bandwidth.bytes_per_second() < wire;
    if (breakout) {
      breakout_share[{link.kind, link.bandwidth.bytes_per_second()}] =
          std::max(1, static_cast<int>(std::lround(wire / link.bandwidth.bytes_per_second())));
    }
    for (VertexId end : {link.from, link.to}) {
      const VertexKind kind = fabric.vertex_kind(end);
      if (is_fabric_switch(kind)) ports_used[kind] += breakout ? link.bandwidth.bytes_per_second() / wire : 1.0;
    }
  }
  const int ports = spec.fabric.switch_spec.ports;
  const int per_transceiver = spec.fabric.switch_spec.ports_per_transceiver;
  for (const TierSize& tier : topology.tiers()) {
    if (tier.switches == 0 || !is_fabric_switch(tier.kind)) continue;
    summary.switch_tiers.push_back({tier.name, tier.switches, std::llround(ports_used[tier.kind]),
                                    static_cast<long long>(tier.switches) * ports, tier.oversubscription});
  }

  for (const auto& [key, cables] : cable_count) {
    const auto [kind, bytes_per_second] = key;
    CableGroup group{kind, Bandwidth::bytes_per_second(bytes_per_second), cables, 0};
    if (const auto share = breakout_share.find(key); share != breakout_share.end()) {
      group.links_per_switch_port = share->second;
    }
    if (is_scale_out(kind)) {
      // A NIC port takes one transceiver; switch ports share cages of ports_per_transceiver, and
      // breakout cables share a switch port (splitter fibers on the cage's module).
      const long long switch_ends = kind == LinkKind::kAccess ? cables : 2 * cables;
      const long long nic_ends = kind == LinkKind::kAccess ? cables : 0;
      group.transceivers =
          nic_ends + ceil_div(switch_ends, static_cast<long long>(per_transceiver) * group.links_per_switch_port);
      summary.fabric_cables += cables;
      summary.transceivers += group.transceivers;
    }
    summary.cables.push_back(group);
  }
  std::stable_sort(summary.cables.begin(), summary.cables.end(), [](const CableGroup& a, const CableGroup& b) {
    return static_cast<int>(a.kind) > static_cast<int>(b.kind);
  });

  if (spec.server.nvlink) summary.nvlink_per_gpu = spec.server.nvlink->link.bandwidth;
  summary.injection_per_gpu =
      spec.server.nics.link.bandwidth * (static_cast<double>(spec.server.nics.count) / fabric.gpus_per_node());
  summary.bisection = Bandwidth::bytes_per_second(topology.bisection(fabric));

  add_hops(fabric, summary);
  return summary;
}

}  // namespace ctwin::fabric

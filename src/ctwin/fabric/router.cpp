#include "ctwin/fabric/router.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <span>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::fabric {
namespace {

// SplitMix64 finalizer: a fixed, platform-independent mix, so paths never depend on the
// standard library's std::hash.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int pick(std::uint64_t flow_hash, int salt, int choices) {
  return static_cast<int>(mix(flow_hash + static_cast<std::uint64_t>(salt) * 0x632be59bd9b4e019ULL) %
                          static_cast<std::uint64_t>(choices));
}

void append_node_links(const Fabric& fabric, int node, std::span<const LinkId> local, std::vector<LinkId>& out) {
  for (LinkId id : local) out.push_back(fabric.node_link(node, id));
}

void append_switch_path(const Fabric& fabric, int leaf_a, int leaf_b, std::uint64_t flow_hash, std::vector<LinkId>& out) {
  if (leaf_a == leaf_b) return;
  const TierPlan& plan = fabric.tiers();
  const int spines_per_pod = plan.spines_per_pod;
  const int up = pick(flow_hash, 0, plan.leaf_uplinks);
  const int plane = up % spines_per_pod;
  out.push_back(fabric.leaf_uplink(leaf_a, up));
  const int pod_a = plan.pod_of_leaf(leaf_a);
  const int pod_b = plan.pod_of_leaf(leaf_b);
  if (pod_a != pod_b) {
    const int cores = plan.cores_per_plane;
    const int spine_up = pick(flow_hash, 1, plan.spine_uplinks);
    const int core = spine_up % cores;
    out.push_back(fabric.spine_uplink(pod_a * spines_per_pod + plane, spine_up));
    const int down = core + cores * pick(flow_hash, 2, plan.links_per_spine_core());
    out.push_back(reverse(fabric.spine_uplink(pod_b * spines_per_pod + plane, down)));
  }
  const int down = plane + spines_per_pod * pick(flow_hash, 3, plan.links_per_leaf_spine());
  out.push_back(reverse(fabric.leaf_uplink(leaf_b, down)));
}

}  // namespace

void append_route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options, std::vector<LinkId>& out) {
  CTWIN_ASSERT(src >= 0 && src < fabric.gpus() && dst >= 0 && dst < fabric.gpus(), "GPU ids within the build");
  if (src == dst) return;
  const ServerLayout& server = fabric.server();
  const int src_node = fabric.node_of(src);
  const int dst_node = fabric.node_of(dst);
  int src_local = fabric.local_index(src);
  const int dst_local = fabric.local_index(dst);
  if (options.leg != SwitchLeg::kWhole) {
    CTWIN_ASSERT(src_node == dst_node && fabric.spec().server.nvlink, "switch legs stay inside an NVLink node");
    std::vector<LinkId> whole;
    append_node_links(fabric, src_node, server.gpu_to_gpu(src_local, dst_local), whole);
    CTWIN_ASSERT(whole.size() >= 2, "an NVSwitch path has a link in and a link out");
    out.push_back(options.leg == SwitchLeg::kToSwitch ? whole.front() : whole.back());
    return;
  }
  if (src_node == dst_node) {
    append_node_links(fabric, src_node, server.gpu_to_gpu(src_local, dst_local), out);
    return;
  }
  const int dst_nic = server.nic_of_gpu(dst_local);
  int src_nic = server.nic_of_gpu(src_local);
  if (options.pxn && src_nic != dst_nic && fabric.spec().server.nvlink) {
    const int relay = server.gpu_of_nic(dst_nic);
    append_node_links(fabric, src_node, server.gpu_to_gpu(src_local, relay), out);
    src_local = relay;
    src_nic = dst_nic;
  }
  append_node_links(fabric, src_node, server.gpu_to_nic(src_local, src_nic), out);
  out.push_back(fabric.access_link(src_node, src_nic));
  const std::uint64_t flow_hash =
      mix(static_cast<std::uint64_t>(src) * 0x100000001b3ULL ^ mix(static_cast<std::uint64_t>(dst)) ^
          mix(options.flow_label + 0x51ed27ULL));
  append_switch_path(fabric, fabric.leaf_of_nic(src_node, src_nic), fabric.leaf_of_nic(dst_node, dst_nic), flow_hash, out);
  out.push_back(reverse(fabric.access_link(dst_node, dst_nic)));
  append_node_links(fabric, dst_node, server.nic_to_gpu(dst_nic, dst_local), out);
}

std::vector<std::vector<LinkId>> node_route_parts(const Fabric& fabric, int node) {
  // Mirrors the node-local steps of append_route(); a test routes every GPU pair of small
  // builds, with and without PXN and legs, and finds each route's runs of node links here.
  const ServerLayout& server = fabric.server();
  const bool nvlink = fabric.spec().server.nvlink.has_value();
  std::vector<std::vector<LinkId>> parts;
  const auto part = [&](std::initializer_list<std::span<const LinkId>> locals, std::optional<LinkId> access) {
    std::vector<LinkId> links;
    for (std::span<const LinkId> local : locals) append_node_links(fabric, node, local, links);
    if (access) links.push_back(*access);
    parts.push_back(std::move(links));
  };
  for (int a = 0; a < server.gpus(); ++a) {
    for (int b = 0; b < server.gpus(); ++b) {
      if (a == b) continue;
      const std::span<const LinkId> whole = server.gpu_to_gpu(a, b);
      part({whole}, std::nullopt);
      if (nvlink && whole.size() >= 2) {
        part({whole.first(1)}, std::nullopt);
        part({whole.last(1)}, std::nullopt);
      }
    }
  }
  for (int a = 0; a < server.gpus(); ++a) {
    const int own_nic = server.nic_of_gpu(a);
    part({server.gpu_to_nic(a, own_nic)}, fabric.access_link(node, own_nic));
    if (!nvlink) continue;
    for (int b = 0; b < server.gpus(); ++b) {  // PXN towards b's rail
      const int nic = server.nic_of_gpu(b);
      if (nic == own_nic || server.gpu_of_nic(nic) != b) continue;  // each rail once, by its relay
      part({server.gpu_to_gpu(a, b), server.gpu_to_nic(b, nic)}, fabric.access_link(node, nic));
    }
  }
  for (int b = 0; b < server.gpus(); ++b) {
    const int nic = server.nic_of_gpu(b);
    std::vector<LinkId> links{reverse(fabric.access_link(node, nic))};
    append_node_links(fabric, node, server.nic_to_gpu(nic, b), links);
    parts.push_back(std::move(links));
  }
  return parts;
}

PathProperties path_properties(const Fabric& fabric, const std::vector<LinkId>& path) {
  PathProperties properties;
  if (path.empty()) return properties;
  properties.bottleneck = fabric.link(path.front()).achieved();
  for (LinkId id : path) {
    const Link& link = fabric.link(id);
    properties.latency += link.latency;
    properties.bottleneck = std::min(properties.bottleneck, link.achieved());
  }
  return properties;
}

std::vector<LinkId> route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options) {
  std::vector<LinkId> links;
  append_route(fabric, src, dst, options, links);
  return links;
}

}  // namespace ctwin::fabric
